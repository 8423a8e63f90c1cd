"""Score card pages: a pod's cards for its staff, one card with its history and actions, and
a player's own card looked up by registration code.

Every page reads the cards through `scoring.services.cards.load_stage`, so "verified" means
the same thing here as in the standings and the rehearsal; every change goes through
`enter_card`, `confirm_card` or `resolve_card`, which check the pod assignment and refuse a
self-confirmation whatever the page shows. Staff need `cards.verify` and, on top of it,
`may_verify` for the pod (organisers: every pod), checked before GET and POST alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import View

from scoring import queue
from scoring.forms_cards import CardForm, ConfirmForm, ResolveForm
from scoring.mixins import CardPodAccessMixin
from scoring.models import CardEntry
from scoring.presenters.cards import (
    STATUS_BADGES,
    Layout,
    card_layout,
    stage_cards,
    unreported_words,
    usernames,
    with_stage,
)
from scoring.rules.cards import STATUS_LABELS, Card, CardState, Status
from scoring.services.cards import (
    StageCards,
    card_of,
    confirm_card,
    current_state,
    enter_card,
    load_stage,
    resolve_card,
    verify_pods,
)
from scoring.services.rounds import still_to_finish
from tournaments.foundation.errors import UserFacingError
from tournaments.models import CardProblem, Player
from tournaments.permissions import PUBLIC, TournamentPermissionMixin

VERIFY = "cards.verify"


# --- the paper card layout (shared by every card page) ----------------------------------------


def reference_of(cards: StageCards, player_id: int) -> Card | None:
    """What the current entry is checked against: the table record, else the latest entry by
    somebody else (a pod that played on paper only)."""
    record = cards.records.get(player_id)
    if record is not None:
        return record
    versions = cards.versions.get(player_id, [])
    if not versions:
        return None
    current = versions[-1]
    for entry in reversed(versions[:-1]):
        if entry.entered_by_id != current.entered_by_id:
            return card_of(entry)
    return None


def next_to_enter(cards: StageCards, pod: int, after: int, user_id) -> Player | None:
    """The pod's next card (in the list's order, going round) that still needs this person
    to type the paper in: nobody has, or only somebody else has and it waits for a second."""
    members = cards.in_pod(pod)
    start = members.index(after) + 1 if after in members else 0
    for pid in members[start:] + members[:start]:
        status = cards.states[pid].status
        versions = cards.versions.get(pid, [])
        if status == Status.UNCHECKED or (
            status == Status.SECOND_ENTRY and versions and versions[-1].entered_by_id != user_id
        ):
            return cards.players[pid]
    return None


@dataclass
class CardView:
    player: Player
    state: CardState
    versions: list[CardEntry]
    layout: Layout
    entered_by: str
    checked_by: str
    confirmed_by: str  # who confirmed the current version, verified or not (any more)
    hostess: bool = False
    url: str = ""
    mine: bool = False  # the person looking entered the current version
    hidden: bool = False  # a paper-only card entered once, shown to its enterer only
    paper_only: bool = False  # the pod reported no table results

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def label(self) -> str:
        return self.state.label

    @property
    def badge(self) -> str:
        return STATUS_BADGES[self.state.status]

    @property
    def current(self) -> CardEntry | None:
        return self.versions[-1] if self.versions else None


def card_view(
    cards: StageCards,
    player_id: int,
    names: dict[int, str],
    *,
    hostess_id=None,
    url="",
    user_id=None,
) -> CardView:
    state = cards.states[player_id]
    versions = cards.versions.get(player_id, [])
    shown, against = state.official, None
    if state.status == Status.DIFFERS:
        # What the paper says, its boxes that disagree outlined.
        shown, against = card_of(versions[-1]), reference_of(cards, player_id)
    checker = state.checked_by
    mine = bool(versions) and versions[-1].entered_by_id == user_id
    # Every version of such a card is by the same person (else it would be compared).
    hidden = state.status == Status.SECOND_ENTRY and not mine
    layout = card_layout(
        cards.stage, shown, against=against, highlighted=state.verified, hidden=hidden
    )
    return CardView(
        player=cards.players[player_id],
        state=state,
        versions=versions,
        layout=layout,
        entered_by=names.get(versions[-1].entered_by_id, "") if versions else "",
        checked_by=names.get(checker, "") if checker else "",
        confirmed_by=names.get(versions[-1].confirmed_by_id, "") if versions else "",
        hostess=player_id == hostess_id,
        url=url,
        mine=mine,
        hidden=hidden,
        paper_only=cards.records.get(player_id) is None,
    )


# --- staff: access to a pod's cards -----------------------------------------------------------


# --- one pod's cards --------------------------------------------------------------------------


class PodCardsView(CardPodAccessMixin, View):
    """Every card of the pod like the paper, with its status and the pod checks.

    A fixed number of queries whatever the size of the pod or the stage.
    """

    permission = VERIFY
    http_method_names = ["get"]

    def get(self, request, slug, number):
        cards = load_stage(self.stage, pod=self.pod)
        names = usernames(cards)
        members = cards.in_pod(self.pod.number)
        views = [
            card_view(
                cards,
                pid,
                names,
                hostess_id=self.pod.hostess_id,
                url=self.card_url(pid),
                user_id=request.user.pk,
            )
            for pid in members
        ]
        check = verify_pods(cards, [self.pod])[0]
        counts = {status: 0 for status in STATUS_LABELS}
        for view in views:
            counts[view.status] += 1
        context = {
            **self.base_context(),
            "cards": views,
            "check": check,
            "unreported": unreported_words(check.unreported),
            "playing": still_to_finish(self.stage),
            "counts": [(STATUS_LABELS[s], STATUS_BADGES[s], n) for s, n in counts.items() if n],
            "paper_only": bool(members) and all(cards.records[p] is None for p in members),
            "problems": self.problems(),
            "pod_url": with_stage(
                reverse("pod-detail", args=[slug, self.pod.number]), self.stage_query
            ),
        }
        return TemplateResponse(request, "scoring/cards/pod_cards.html", context)

    def problems(self) -> list[CardProblem]:
        """The players' "problem with my card?" notes for this pod, each with its card."""
        notes = list(CardProblem.objects.filter(pod=self.pod).select_related("player"))
        for note in notes:
            note.url = self.card_url(note.player_id)
        return notes


# --- one card ---------------------------------------------------------------------------------


class CardDetailView(CardPodAccessMixin, View):
    """The table record beside the current version, every version, and what can be done:
    enter the paper card, confirm someone else's entry, or resolve a difference."""

    permission = VERIFY
    http_method_names = ["get", "post"]

    def load(self, player_pk: int) -> None:
        self.cards = load_stage(self.stage, pod=self.pod)
        if player_pk not in self.cards.in_pod(self.pod.number):
            raise Http404("This player has no card in this pod.")
        self.player = self.cards.players[player_pk]
        self.names = usernames(self.cards)
        self.view = card_view(
            self.cards,
            player_pk,
            self.names,
            hostess_id=self.pod.hostess_id,
            user_id=self.request.user.pk,
        )

    @property
    def version(self) -> int:
        current = self.view.current
        return current.version if current else 0

    def card_form(self, data=None) -> CardForm:
        return CardForm(data, stage=self.stage, initial={"base_version": self.version})

    def render(self, *, card_form=None, resolve_form=None, confirm_error="", resolve_error=""):
        view, stage = self.view, self.stage
        current = view.current
        record = self.cards.records[self.player.pk]
        status = view.status
        mine = view.mine
        against = reference_of(self.cards, self.player.pk) if status == Status.DIFFERS else None
        history = [
            {
                "entry": entry,
                "layout": card_layout(stage, card_of(entry), hidden=view.hidden),
                "entered_by": self.names.get(entry.entered_by_id, ""),
                "confirmed_by": self.names.get(entry.confirmed_by_id, ""),
            }
            for entry in reversed(view.versions)
        ]
        if card_form is None:
            card_form = self.card_form()
        if resolve_form is None:
            resolve_form = ResolveForm(initial={"version": self.version})
        elif status != Status.DIFFERS:
            # Resolved or entered again meanwhile: the resolve form, and what it says was
            # wrong with the one sent, are no longer on the page; say why nothing was saved.
            resolve_error = (
                f"Nothing was resolved: {self.player.name}'s card has no difference to "
                f"resolve now (it is marked “{STATUS_LABELS[status]}”). Read it again below."
            )
        context = {
            **self.base_context(),
            "card": view,
            "player": self.player,
            "playing": still_to_finish(stage),
            "record": record,
            "record_layout": card_layout(stage, record) if record is not None else None,
            "current_layout": (
                card_layout(stage, card_of(current), against=against, hidden=view.hidden)
                if current is not None
                else None
            ),
            # Type from the paper first; the numbers to compare with come after the form.
            "form_first": status == Status.UNCHECKED
            or (status == Status.SECOND_ENTRY and not mine),
            "history": history,
            "mine": mine,
            "can_confirm": status == Status.TO_CONFIRM
            and not mine
            and current.confirmed_by_id is None,
            "can_resolve": status == Status.DIFFERS,
            # A resolution for the tables: the paper is known to differ, so the confirmer
            # checks the resolver's reason, not the paper against the screen.
            "resolved_for_tables": current is not None
            and current.kind == CardEntry.Kind.RESOLUTION
            and record is not None
            and card_of(current) == record,
            "enter_open": card_form.is_bound
            or status == Status.UNCHECKED
            or (status == Status.SECOND_ENTRY and not mine),
            "card_form": card_form,
            "resolve_form": resolve_form,
            "confirm_error": confirm_error,
            "resolve_error": resolve_error,
            "back_url": self.pod_cards_url(f"#card-{self.player.pk}"),
            "action_url": self.request.get_full_path(),
        }
        return TemplateResponse(self.request, "scoring/cards/card_detail.html", context)

    def get(self, request, slug, number, player_pk):
        self.load(player_pk)
        return self.render()

    def post(self, request, slug, number, player_pk):
        self.load(player_pk)
        action = request.POST.get("action")
        if action == "enter":
            return self.enter()
        if action == "confirm":
            return self.confirm()
        if action == "resolve":
            return self.resolve()
        return HttpResponseBadRequest("Unknown action.")

    def done(self, message: str, *, to_card: bool = False, entry=None, next_url: str = ""):
        """Where a save goes next, told the same way to a form and to the phone's queue (which
        opens `next` only if the staff member is still waiting on this save)."""
        target = next_url or (
            self.card_url(self.player.pk)
            if to_card
            else self.pod_cards_url(f"#card-{self.player.pk}")
        )
        if entry is not None and queue.from_queue(self.request):
            status = queue.DUPLICATE if entry.replayed else queue.SAVED
            return queue.reply(
                self.request,
                self.pod,
                status,
                message,
                version=entry.version,
                next_url=next_url or (target if to_card else ""),
            )
        messages.success(self.request, message)
        return redirect(target)

    def enter(self):
        form = self.card_form(self.request.POST)
        from_queue = queue.from_queue(self.request)
        if not form.is_valid():
            if from_queue:
                return queue.invalid(self.request, self.pod, form, version=self.version)
            return self.render(card_form=form)
        try:
            entry = enter_card(
                self.stage,
                self.player,
                form.card(),
                actor=self.request.user,
                base_version=form.cleaned_data["base_version"],
                idempotency_key=self.request.POST.get("idempotency_key"),
            )
        except UserFacingError as exc:
            if from_queue:
                return queue.refused(self.request, self.pod, exc)
            # Shown with what was typed; the form now builds on the version shown above it, so
            # saving again after reading it is a deliberate new version.
            self.load(self.player.pk)
            data = self.request.POST.copy()
            data["base_version"] = str(self.version)
            fresh = self.card_form(data)
            fresh.is_valid()
            fresh.add_error(exc.field if exc.field in fresh.fields else None, exc.message)
            return self.render(card_form=fresh)
        state = current_state(self.stage, self.player)
        text = f"{self.player.name}'s card saved (version {entry.version}): "
        text = queue.already(entry.replayed, text + STATUS_LABELS[state.status] + ".")
        if state.status == Status.DIFFERS:
            return self.done(text + " Check the differences below.", to_card=True, entry=entry)
        after = next_to_enter(
            load_stage(self.stage, pod=self.pod),
            self.pod.number,
            self.player.pk,
            self.request.user.pk,
        )
        if after is None:
            return self.done(text + " Every card of this pod has been entered.", entry=entry)
        return self.done(
            f"{text} Next: {after.name}'s card.", entry=entry, next_url=self.card_url(after.pk)
        )

    def confirm(self):
        form = ConfirmForm(self.request.POST)
        from_queue = queue.from_queue(self.request)
        if not form.is_valid():
            if from_queue:
                return queue.invalid(self.request, self.pod, form, version=self.version)
            return self.render(confirm_error="This page is out of date: reload it.")
        try:
            entry = confirm_card(
                self.stage,
                self.player,
                actor=self.request.user,
                version=form.cleaned_data["version"],
                idempotency_key=self.request.POST.get("idempotency_key"),
            )
        except UserFacingError as exc:
            if from_queue:
                return queue.refused(self.request, self.pod, exc)
            self.load(self.player.pk)
            return self.render(confirm_error=exc.message)
        text = f"{self.player.name}'s card confirmed (version {entry.version})."
        return self.done(queue.already(entry.replayed, text), entry=entry)

    def resolve(self):
        form = ResolveForm(self.request.POST)
        if not form.is_valid():
            return self.render(resolve_form=form)
        try:
            entry = resolve_card(
                self.stage,
                self.player,
                choice=form.cleaned_data["choice"],
                reason=form.cleaned_data["reason"],
                actor=self.request.user,
                version=form.cleaned_data["version"],
            )
        except UserFacingError as exc:
            self.load(self.player.pk)
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            return self.render(resolve_form=form)
        state = current_state(self.stage, self.player)
        then = "verified." if state.verified else "someone other than you must now confirm it."
        return self.done(f"{self.player.name}'s card resolved (version {entry.version}): {then}")


# --- a player's own card ----------------------------------------------------------------------


def normalise_code(value: str) -> str:
    return "".join(value.split()).upper()[:20]


class MyCardView(TournamentPermissionMixin, View):
    """A player types their registration code and sees their card in each stage.

    Shows the name and the card only: never an e-mail or a phone. A fixed number of queries
    (one stage's pod at a time, and there are at most three stages).
    """

    permission = PUBLIC
    http_method_names = ["get"]

    def get(self, request, slug):
        code = normalise_code(request.GET.get("code", ""))
        context = {"tournament": self.tournament, "code": code, "player": None, "stages": []}
        # A NUL is in no code, and PostgreSQL refuses it in a query: simply not found.
        if code and "\x00" not in code:
            player = (
                Player.objects.filter(tournament=self.tournament, code=code)
                .only("pk", "name", "code", "tournament_id", "status", "checked_in_at")
                .first()
            )
            context["player"] = player
            if player is not None:
                context["stages"] = stage_cards(self.tournament, player)
        return TemplateResponse(request, "scoring/cards/my_card.html", context)


P = "t/<slug:slug>/pods/<int:number>/cards/"
urlpatterns = [
    path(P, PodCardsView.as_view(), name="pod-cards"),
    path(f"{P}<int:player_pk>/", CardDetailView.as_view(), name="card-detail"),
    path("t/<slug:slug>/card/", MyCardView.as_view(), name="my-card"),
]
