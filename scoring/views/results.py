"""Staff's result form for one table in one round: record, correct, and see its history.

Staff hold `results.enter`; on top of that `may_record` limits them to the pods they are
assigned to (organisers: every pod), checked before GET and POST alike (pod_access.py).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.functional import cached_property
from django.views.generic import View

from scoring import queue
from scoring.forms import ResultForm
from scoring.mixins import ENTER, PodAccessMixin
from scoring.models import TableResult
from scoring.presenters.stages import pod_url
from scoring.presenters.tables import (
    SeatRow,
    TableView,
    credit_rows,
    seat_name,
    with_credits,
)
from scoring.rules.table import pair_label, partner_pairs
from scoring.services.results import ResultConflict, ResultEntry, record_result
from tournaments.foundation.errors import UserFacingError
from tournaments.models import Round, Seat
from tournaments.permissions import permissions_of

# --- one table's result -----------------------------------------------------------------------

# Versions of a table's result the form shows unless asked for all: the current one and the
# ones it replaced most recently are what staff argue about at the table, and the page should
# cost the same after the night's twentieth correction as after its first.
HISTORY_SHOWN = 3


def result_text(winner: int, points: tuple, tie: bool, note: str | None) -> str:
    """One line for a result: the pair's label, then "won 45–45 (tie, roll-off: 5 vs 3)"."""
    text = f"{pair_label(winner)} won"
    if points[0] is not None:
        text += f" {points[0]}–{points[1]}"
    if tie:
        text += " (tie, roll-off" + (f": {note}" if note else "") + ")"
    return text


def describe(result: TableResult) -> str:
    points = (result.points_13, result.points_24)
    return result_text(result.winner, points, result.tie, (result.tie_break or {}).get("note"))


class TableResultView(PodAccessMixin, View):
    """The result form of one table in one round: record, correct, and see its history."""

    permission = ENTER
    http_method_names = ["get", "post"]
    template_name = "scoring/table_result.html"

    def setup_table(self, table: int) -> None:
        if self.url_round is None:
            raise Http404("No such round.")
        self.round = self.url_round
        if not 1 <= table <= self.pod.tables:
            raise Http404("No such table.")
        self.table = table
        for name in ("seats", "history"):
            self.__dict__.pop(name, None)  # read again after a conflict

    @cached_property
    def seats(self) -> list[Seat]:
        """The table's seats, read only when a page is rendered (a save that goes through
        has the seats the service read under the pod's lock)."""
        return list(
            Seat.objects.filter(round=self.round, pod=self.pod, table=self.table)
            .select_related("player")
            .order_by("seat")
        )

    @property
    def whole_history(self) -> bool:
        return self.request.GET.get("history") == "all"

    @cached_property
    def history(self) -> list[TableResult]:
        """The newest versions of the table's result (every one with ?history=all), newest
        first, with their credits.

        Read only when a page is rendered: a save that goes through redirects without it. The
        current version is always the newest, so it is always among them.
        """
        versions = TableResult.objects.filter(
            round=self.round, pod=self.pod, table=self.table
        ).order_by("-version")
        return with_credits(versions if self.whole_history else versions[:HISTORY_SHOWN])

    @property
    def earlier_versions(self) -> int:
        """How many older versions the page leaves out: versions are numbered 1, 2, 3... per
        table, so the newest one's number counts them all."""
        return self.history[-1].version - 1 if self.history else 0

    @property
    def current(self) -> TableResult | None:
        return next((r for r in self.history if r.is_current), None)

    def blocked_message(self) -> str:
        """Why the form is not shown (the service refuses these too), or ""."""
        if self.round.status == Round.Status.PENDING:
            return f"Round {self.round.number} has not started yet: no results can be entered."
        if self.round.status == Round.Status.CLOSED and self.current is None:
            return (
                f"Round {self.round.number} is closed and table {self.table} has no result. "
                "Ask the organiser to reopen the round."
            )
        if len(self.seats) != 4:
            return f"Table {self.table} has no seating for round {self.round.number}."
        return ""

    def form(self, data=None, initial=None) -> ResultForm:
        return ResultForm(
            data, initial=initial, snake_eyes=bool(self.stage.rules.get("snake_eyes"))
        )

    def render(
        self, form: ResultForm, *, conflict: TableResult | None = None, typed: dict | None = None
    ):
        view = TableView(
            self.table,
            [
                SeatRow(s, hostess=s.player_id is not None and s.player_id == self.pod.hostess_id)
                for s in self.seats
            ],
        )
        history = [
            {"result": r, "text": describe(r), "credits": credit_rows(r, self.seats)}
            for r in self.history
        ]
        conflict_view = None
        if conflict is not None:
            conflict_view = {
                "result": conflict,
                "text": describe(conflict),
                "credits": credit_rows(conflict, self.seats),
            }
        context = {
            "tournament": self.tournament,
            "perms_here": permissions_of(self.request.user, self.tournament),
            "stage": self.stage,
            "pod": self.pod,
            "round": self.round,
            "table": view,
            "form": form,
            "player_rows": form.player_rows(view.seats),
            "chosen_winner": form["winner"].value() if form.is_bound else None,
            "current": self.current,
            "history": history,
            "earlier_versions": self.earlier_versions,
            "whole_history_url": self.whole_history_url(),
            "conflict": conflict_view,
            "typed": typed,
            "blocked": self.blocked_message(),
            "needs_reason": self.current is not None and self.round.status == Round.Status.CLOSED,
            "back_url": pod_url(self.pod, self.stage_query, self.round.number),
            "action_url": self.request.get_full_path(),
        }
        return TemplateResponse(self.request, self.template_name, context)

    def whole_history_url(self) -> str:
        query = self.request.GET.copy()
        query["history"] = "all"
        return f"{self.request.path}?{query.urlencode()}#history"

    def typed_summary(self, entry: ResultEntry) -> dict:
        names = {s.seat: seat_name(s) for s in self.seats}
        credits = [
            (names.get(seat, f"Seat {seat}"), tally)
            for seat, tally in sorted(entry.tallies.items())
            if tally
        ]
        text = result_text(entry.winner, entry.points, entry.tie, entry.tie_break.get("note"))
        return {"text": text, "credits": credits}

    def get(self, request, slug, number, round_number, table):
        self.setup_table(table)
        seat_of_player = {s.player_id: s.seat for s in self.seats if s.player_id is not None}
        return self.render(self.form(initial=ResultForm.initial_from(self.current, seat_of_player)))

    def post(self, request, slug, number, round_number, table):
        self.setup_table(table)
        form = self.form(request.POST)
        from_queue = queue.from_queue(request)
        if not form.is_valid():
            if from_queue:
                return queue.invalid(
                    request, self.pod, form, version=getattr(self.current, "version", 0)
                )
            return self.render(form)
        try:
            recorded = record_result(
                round_=self.round,
                pod=self.pod,
                table=table,
                entry=form.entry(),
                actor=request.user,
                base_version=form.cleaned_data["base_version"],
                idempotency_key=request.POST.get("idempotency_key"),
            )
        except UserFacingError as exc:
            if from_queue:
                return queue.refused(request, self.pod, exc)
            return self.refused(exc, form, round_number, table)
        return self.saved(request, recorded, table)

    def refused(self, exc: UserFacingError, form: ResultForm, round_number: int, table: int):
        if isinstance(exc, ResultConflict):
            # Their result is shown beside ours; the form now corrects *their* version, so
            # saving again is a deliberate correction, not a silent overwrite.
            data = self.request.POST.copy()
            data["base_version"] = str(exc.current.version)
            typed = self.typed_summary(form.entry())
            fresh = self.form(data)
            fresh.is_valid()
            fresh.add_error(None, exc.message)
            self.setup_table(table)
            conflict = next((r for r in self.history if r.pk == exc.current.pk), exc.current)
            return self.render(fresh, conflict=conflict, typed=typed)
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return self.render(form)

    def saved(self, request, recorded, table: int):
        result = recorded.result
        what = "corrected" if result.version > 1 else "saved"
        names = " & ".join(
            seat_name(s) for s in recorded.seats if s.seat in partner_pairs()[result.winner]
        )
        text = (
            f"Table {table} {what} (round {self.round.number}): {pair_label(result.winner)}"
            f" — {names} — won. Version {result.version}."
        )
        text = queue.already(recorded.replayed, text)
        if queue.from_queue(request):
            status = queue.DUPLICATE if recorded.replayed else queue.SAVED
            return queue.reply(request, self.pod, status, text, version=result.version)
        messages.success(request, text)
        if recorded.next_round == "frozen":
            # The players moved at the bell and are playing there; moving them now would
            # send later results to the wrong players. The wins and losses still change.
            messages.warning(
                request,
                f"Round {self.round.number + 1} had already started, so nobody moves: its "
                "seats stay as they are being played. This correction changes the wins and "
                "losses on the score cards and in the standings.",
            )
        elif recorded.next_round == "seated":
            messages.info(
                request,
                f"Every table of {self.pod} has reported: round {self.round.number + 1} seats "
                "are ready.",
            )
        round_arg = None if recorded.round_is_current else self.round.number
        return redirect(pod_url(self.pod, self.stage_query, round_arg))


urlpatterns = [
    path(
        "t/<slug:slug>/pods/<int:number>/round/<int:round_number>/table/<int:table>/",
        TableResultView.as_view(),
        name="table-result",
    ),
]
