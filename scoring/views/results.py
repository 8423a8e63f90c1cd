"""Staff pages for entering results: my pods, one pod's tables, and one table's result form.

Staff hold `results.enter`; on top of that `may_record` limits them to the pods they are
assigned to (organisers: every pod), checked before GET and POST alike. Pods are numbered
within a stage, so a pod URL means the latest stage's pod unless `?stage=<kind>` names an
earlier stage (correcting a qualifying result after the semi-final was drawn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.functional import cached_property
from django.views.generic import TemplateView, View

from tournaments.forms.numbers import whole_number
from tournaments.models import Pod, Round, Seat, Stage
from tournaments.permissions import TournamentPermissionMixin, has_permission, permissions_of
from tournaments.services.errors import UserFacingError
from tournaments.services.rounds import current_round, progress

from ..forms import ResultForm
from ..models import RollCredit, TableResult
from ..rules.table import pair_label, partner_pairs
from ..services.results import ResultConflict, ResultEntry, may_record, record_result

ENTER = "results.enter"


# --- shared helpers (the public pages use them too) -------------------------------------------


def stages_newest_first(tournament) -> list[Stage]:
    return list(tournament.stages.order_by("-drawn_at", "-pk"))


def pick_stage(stages: list[Stage], kind: str | None) -> Stage | None:
    """The stage named by `?stage=`, else the latest one drawn."""
    for stage in stages:
        if stage.kind == kind:
            return stage
    return stages[0] if stages else None


def seat_name(seat: Seat) -> str:
    return seat.player.name if seat.player_id is not None else "ghost"


def token(seat: Seat) -> tuple[str, int]:
    return ("p", seat.player_id) if seat.player_id is not None else ("g", seat.ghost)


@dataclass
class SeatRow:
    seat: Seat
    hostess: bool = False
    next_seat: Seat | None = None

    @property
    def number(self) -> int:
        return self.seat.seat

    @property
    def name(self) -> str:
        return seat_name(self.seat)

    @property
    def is_ghost(self) -> bool:
        return self.seat.player_id is None

    @property
    def pair(self) -> int:
        return 0 if self.seat.seat in (1, 3) else 1


@dataclass
class CreditRow:
    name: str
    seat: int | None
    credit: RollCredit


@dataclass
class TableView:
    number: int
    seats: list[SeatRow]
    result: TableResult | None = None
    credits: list[CreditRow] = field(default_factory=list)

    @property
    def head(self) -> bool:
        return self.number == 1

    def pair_names(self, pair: int) -> str:
        first, second = (1, 3) if pair == 0 else (2, 4)
        by_number = {row.number: row for row in self.seats}
        return " & ".join(by_number[n].name for n in (first, second) if n in by_number)

    @property
    def names_13(self) -> str:
        return self.pair_names(0)

    @property
    def names_24(self) -> str:
        return self.pair_names(1)

    @property
    def winner_names(self) -> str:
        return self.pair_names(self.result.winner) if self.result else ""


def credit_rows(result: TableResult, seats: list[Seat]) -> list[CreditRow]:
    seat_of = {s.player_id: s for s in seats if s.player_id is not None}
    rows = []
    for credit in result.credits.all():
        seat = seat_of.get(credit.player_id)
        name = seat.player.name if seat else f"Player #{credit.player_id}"
        rows.append(CreditRow(name, seat.seat if seat else None, credit))
    return sorted(rows, key=lambda row: row.seat or 9)


def build_tables(
    pod: Pod, seats: list[Seat], results: dict[int, TableResult], next_seats: list[Seat]
) -> list[TableView]:
    going_to = {token(s): s for s in next_seats}
    by_table: dict[int, list[Seat]] = {}
    for seat in seats:
        by_table.setdefault(seat.table, []).append(seat)
    tables = []
    for number in range(1, pod.tables + 1):
        table_seats = sorted(by_table.get(number, []), key=lambda s: s.seat)
        rows = [
            SeatRow(
                seat=s,
                hostess=s.player_id is not None and s.player_id == pod.hostess_id,
                next_seat=going_to.get(token(s)),
            )
            for s in table_seats
        ]
        result = results.get(number)
        view = TableView(number, rows, result)
        if result is not None:
            view.credits = credit_rows(result, table_seats)
        tables.append(view)
    return tables


def results_with_credits():
    return TableResult.objects.select_related("entered_by").prefetch_related(
        Prefetch("credits", queryset=RollCredit.objects.order_by("player_id"))
    )


def pod_url(pod: Pod, stage_query: str, round_number: int | None = None) -> str:
    url = reverse("pod-detail", args=[pod.stage.tournament.slug, pod.number])
    query = {"stage": stage_query} if stage_query else {}
    if round_number is not None:
        query["round"] = str(round_number)
    return f"{url}?{urlencode(query)}" if query else url


class PodAccessMixin:
    """After the tournament permission check: the pod from the URL, and `pod_permission`
    (recording results here; verifying cards in the card views)."""

    pod_permission = staticmethod(may_record)

    def dispatch(self, request, *args, **kwargs):
        stages = stages_newest_first(self.tournament)
        self.stage = pick_stage(stages, request.GET.get("stage"))
        if self.stage is None:
            raise Http404("No pods have been drawn yet.")
        # Links keep ?stage= only when it is not the latest stage's pod.
        self.stage_query = "" if self.stage is stages[0] else self.stage.kind
        self.pod = get_object_or_404(
            Pod.objects.select_related("hostess"), stage=self.stage, number=kwargs["number"]
        )
        self.pod.stage = self.stage
        self.stage.tournament = self.tournament
        if not self.pod_permission(request.user, self.pod):
            raise PermissionDenied(f"You are not assigned to {self.pod}.")
        return super().dispatch(request, *args, **kwargs)


# --- my pods ----------------------------------------------------------------------------------


@dataclass
class PodSummary:
    pod: Pod
    reported: int
    url: str

    @property
    def complete(self) -> bool:
        return self.reported >= self.pod.tables


class MyPodsView(TournamentPermissionMixin, TemplateView):
    permission = ENTER
    template_name = "scoring/my_pods.html"

    def get_context_data(self, **kwargs):
        user = self.request.user
        every_pod = has_permission(user, self.tournament, "stages.run")
        stages = stages_newest_first(self.tournament)
        pods = Pod.objects.filter(stage__tournament=self.tournament).select_related(
            "stage__tournament", "hostess"
        )
        if not every_pod:
            pods = pods.filter(staff=user)
        pods_by_stage: dict[int, list[Pod]] = {}
        for pod in pods.order_by("number"):
            pods_by_stage.setdefault(pod.stage_id, []).append(pod)
        sections = []
        for stage in stages:
            mine = pods_by_stage.get(stage.pk)
            if not mine:
                continue
            round_ = current_round(stage)
            reported = {p.pod_id: p.reported for p in progress(round_)} if round_ else {}
            query = "" if stage is stages[0] else stage.kind
            sections.append(
                {
                    "stage": stage,
                    # The stage being played comes first; a finished one below it is folded.
                    "folded": bool(sections) and stage.status == Stage.Status.FINISHED,
                    "round": round_,
                    "pods": [
                        PodSummary(pod, reported.get(pod.pk, 0), pod_url(pod, query))
                        for pod in mine
                    ],
                }
            )
        return super().get_context_data(
            sections=sections, every_pod=every_pod, drawn=bool(stages), **kwargs
        )


# --- one pod ----------------------------------------------------------------------------------


class PodDetailView(TournamentPermissionMixin, PodAccessMixin, TemplateView):
    """The pod's tables for the current round (or `?round=N`): seats, results, next seats.

    A fixed number of queries whatever the size of the event.
    """

    permission = ENTER
    template_name = "scoring/pod_detail.html"

    def get_context_data(self, **kwargs):
        pod, stage = self.pod, self.stage
        rounds = list(stage.rounds.order_by("number"))
        current = current_round(stage)
        round_ = current
        wanted = whole_number(self.request.GET.get("round", ""))
        if wanted is not None:
            round_ = next((r for r in rounds if r.number == wanted), None)
            if round_ is None:
                raise Http404("No such round.")
        if round_ is None:
            raise Http404("This stage has no rounds.")
        next_round = next((r for r in rounds if r.number == round_.number + 1), None)
        seats, next_seats = [], []
        for seat in Seat.objects.filter(
            pod=pod, round__in=[r for r in (round_, next_round) if r is not None]
        ).select_related("player"):
            (seats if seat.round_id == round_.pk else next_seats).append(seat)
        results = {
            r.table: r
            for r in results_with_credits().filter(round=round_, pod=pod, is_current=True)
        }
        tables = build_tables(pod, seats, results, next_seats)
        next_tables = [
            sorted((s for s in next_seats if s.table == n), key=lambda s: s.seat)
            for n in range(1, pod.tables + 1)
        ]
        return super().get_context_data(
            stage=stage,
            pod=pod,
            round=round_,
            current=current,
            rounds=rounds,
            next_round=next_round,
            next_tables=next_tables if next_seats else [],
            tables=tables,
            reported=len(results),
            stage_query=self.stage_query,
            **kwargs,
        )


# --- one table's result -----------------------------------------------------------------------


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


class TableResultView(TournamentPermissionMixin, PodAccessMixin, View):
    """The result form of one table in one round: record, correct, and see its history."""

    permission = ENTER
    http_method_names = ["get", "post"]
    template_name = "scoring/table_result.html"

    def setup_table(self, round_number: int, table: int) -> None:
        self.round = get_object_or_404(Round, stage=self.stage, number=round_number)
        self.round.stage = self.stage
        if not 1 <= table <= self.pod.tables:
            raise Http404("No such table.")
        self.table = table
        self.seats = list(
            Seat.objects.filter(round=self.round, pod=self.pod, table=table)
            .select_related("player")
            .order_by("seat")
        )
        self.__dict__.pop("history", None)  # read again after a conflict

    @cached_property
    def history(self) -> list[TableResult]:
        """Every version of the table's result, newest first, with its credits.

        Read only when a page is rendered: a save that goes through redirects without it, and
        after a long night of corrections it is the heaviest read of the form.
        """
        return list(
            results_with_credits()
            .filter(round=self.round, pod=self.pod, table=self.table)
            .order_by("-version")
        )

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
            "player_rows": [
                {"row": row, "fields": form.count_fields(row.number)}
                for row in view.seats
                if not row.is_ghost
            ],
            "chosen_winner": form["winner"].value() if form.is_bound else None,
            "current": self.current,
            "history": history,
            "conflict": conflict_view,
            "typed": typed,
            "blocked": self.blocked_message(),
            "needs_reason": self.current is not None and self.round.status == Round.Status.CLOSED,
            "back_url": pod_url(self.pod, self.stage_query, self.round.number),
            "action_url": self.request.get_full_path(),
        }
        return TemplateResponse(self.request, self.template_name, context)

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
        self.setup_table(round_number, table)
        seat_of_player = {s.player_id: s.seat for s in self.seats if s.player_id is not None}
        return self.render(self.form(initial=ResultForm.initial_from(self.current, seat_of_player)))

    def post(self, request, slug, number, round_number, table):
        self.setup_table(round_number, table)
        form = self.form(request.POST)
        if not form.is_valid():
            return self.render(form)
        try:
            recorded = record_result(
                round_=self.round,
                pod=self.pod,
                table=table,
                entry=form.entry(),
                actor=request.user,
                base_version=form.cleaned_data["base_version"],
            )
        except ResultConflict as exc:
            # Their result is shown beside ours; the form now corrects *their* version, so
            # saving again is a deliberate correction, not a silent overwrite.
            data = request.POST.copy()
            data["base_version"] = str(exc.current.version)
            typed = self.typed_summary(form.entry())
            fresh = self.form(data)
            fresh.is_valid()
            fresh.add_error(None, exc.message)
            self.setup_table(round_number, table)
            conflict = next((r for r in self.history if r.pk == exc.current.pk), exc.current)
            return self.render(fresh, conflict=conflict, typed=typed)
        except UserFacingError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            return self.render(form)
        result = recorded.result
        what = "corrected" if result.version > 1 else "saved"
        names = " & ".join(
            seat_name(s) for s in self.seats if s.seat in partner_pairs()[result.winner]
        )
        messages.success(
            request,
            f"Table {table} {what} (round {self.round.number}): {pair_label(result.winner)}"
            f" — {names} — won. Version {result.version}.",
        )
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
        current = current_round(self.stage)
        round_arg = None if current and current.pk == self.round.pk else self.round.number
        return redirect(pod_url(self.pod, self.stage_query, round_arg))


urlpatterns = [
    path("t/<slug:slug>/pods/", MyPodsView.as_view(), name="my-pods"),
    path("t/<slug:slug>/pods/<int:number>/", PodDetailView.as_view(), name="pod-detail"),
    path(
        "t/<slug:slug>/pods/<int:number>/round/<int:round_number>/table/<int:table>/",
        TableResultView.as_view(),
        name="table-result",
    ),
]
