"""The organiser's advancement page and the final table page.

Advancement (`stages.run`) shows the engine's steps one by one for the qualifying stage and,
once it is played, the semi-final: standings, eligibility (only verified pods advance), the
cut, the roll-offs (physical dice typed in, or rolled on screen with a draw code from the
tournament's secret) and saving the qualifiers; then drawing the semi-final and seating the
final table, whose codes come from the same secret: no form here takes a seed.

The final table page shows the four finalists with why and how they got there, the order
roll and every throw. Seating needs `stages.run`; the order roll and the throws need
`results.enter`, so staff can run the table too. Every POST calls one service of
`tournaments.services.advancement` and redirects back with its message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import redirect
from django.urls import path, reverse
from django.views.generic import TemplateView, View

from scoring.rules import next_thrower
from scoring.rules.advancement import (
    AdvancementRules,
    Category,
    Standing,
    Tie,
    cut,
    eligibility,
    rank,
)
from scoring.services.cards import load_stage

from ..forms.advancement import OrderForm, RollOffForm, StageChoiceForm, ThrowForm
from ..forms.stages import first_error
from ..models import FinalSeat, FinalTable, FinalThrow, Player, Qualifier, RollOff, Stage
from ..permissions import TournamentPermissionMixin
from ..services import advancement as service
from ..services import draws as draw_service
from ..services.errors import UserFacingError
from ..words import count

RUN = "stages.run"
ENTER = "results.enter"
UNITS = {
    "wins": ("win", "wins"),
    "buncos": ("bunco", "buncos"),
    "losses": ("loss", "losses"),
    "minis": ("mini", "minis"),
}


def count_label(key: str, value: int) -> str:
    one, many = UNITS.get(key, (key, key))
    return f"{value} {one if value == 1 else many}"


def player_names(ids) -> dict[int, str]:
    """Names only: nothing here ever shows an e-mail or a phone number."""
    wanted = {int(i) for i in ids}
    if not wanted:
        return {}
    return dict(Player.objects.filter(pk__in=wanted).values_list("pk", "name"))


# --- roll-offs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Throw:
    """One simultaneous throw of a roll-off: (name, face) in the order the dice were typed."""

    dice: list[tuple[str, int]]


@dataclass(frozen=True)
class RollOffShown:
    record: RollOff
    names: list[str]
    throws: list[Throw]
    winners: list[str]
    recorded_by: str = ""

    @property
    def site_rolled(self) -> bool:
        return self.record.source == RollOff.Source.SITE

    @property
    def shared(self) -> bool:
        """Thrown for a prize of the same tie, which settled this cut too."""
        return self.record.kind == RollOff.Kind.PRIZE


def roll_off_shown(
    record: RollOff, names: dict[int, str], users: dict[int, str] | None = None
) -> RollOffShown:
    def name(pid) -> str:
        return names.get(int(pid), f"player {pid}")

    return RollOffShown(
        record,
        [name(p) for p in record.players],
        [Throw([(name(p), face) for p, face in throw.items()]) for throw in record.rounds],
        [name(p) for p in record.winners],
        (users or {}).get(record.recorded_by_id, ""),
    )


def roll_off_player_ids(records) -> set[int]:
    return {int(p) for r in records for p in (*r.players, *r.winners)}


# --- the advancement page's data ------------------------------------------------------------


@dataclass(frozen=True)
class CutRow:
    place: int
    name: str
    value: str
    via_roll_off: bool
    note: str = ""


@dataclass(frozen=True)
class TieShown:
    tie: Tie
    stage_kind: str
    names: list[str]  # in the order their dice are entered

    @property
    def value(self) -> str:
        return count_label(self.tie.category_key, self.tie.value)

    @property
    def form_id(self) -> str:
        return f"tie-{self.stage_kind}-{self.tie.group}-{self.tie.category_key}"


@dataclass
class Column:
    """One category of one group's cut: who is in, the tie still to roll, empty seats."""

    category: Category
    rows: list[CutRow] = field(default_factory=list)
    tie: TieShown | None = None
    empty: list[str] = field(default_factory=list)
    waiting: bool = False  # decided only after an earlier category's roll-off


@dataclass
class GroupShown:
    plan: service.GroupPlan
    columns: list[Column]
    ties: list[TieShown]
    roll_offs: list[RollOffShown]
    ineligible: list[tuple[str, str]]
    card_links: list[tuple[str, str]]

    @property
    def blocked(self) -> bool:
        return bool(self.plan.blocked)

    @property
    def decided(self) -> bool:
        return self.plan.result is not None


@dataclass
class StageShown:
    stage: Stage
    groups: list[GroupShown]
    categories: list[Category]
    saved: list[Qualifier]
    rounds_closed: int
    error: str = ""

    @property
    def kind(self) -> str:
        return self.stage.kind

    @property
    def is_semi(self) -> bool:
        return self.stage.kind == Stage.Kind.SEMI_FINAL

    @property
    def finished(self) -> bool:
        return self.stage.status == Stage.Status.FINISHED

    @property
    def ready(self) -> bool:
        return bool(self.groups) and all(g.decided for g in self.groups)

    @property
    def blocked(self) -> list[GroupShown]:
        return [g for g in self.groups if g.blocked]

    @property
    def ties(self) -> list[TieShown]:
        return [t for g in self.groups for t in g.ties]

    @property
    def roll_offs(self) -> list[tuple[GroupShown, RollOffShown]]:
        return [(g, r) for g in self.groups for r in g.roll_offs]

    @property
    def advancing(self) -> int:
        return sum(len(g.plan.result.qualifiers) for g in self.groups if g.plan.result)

    @property
    def changed_since_saved(self) -> bool:
        """The cards were corrected after the qualifiers were saved and now cut differently."""
        if not self.saved or not self.ready:
            return False
        now = {(q.player, q.category_key) for g in self.groups for q in g.plan.result.qualifiers}
        return now != {(q.player_id, q.category_key) for q in self.saved}

    @property
    def can_save(self) -> bool:
        return self.finished and self.ready and not self.saved and not self.is_semi


def card_links(tournament, stage: Stage, plan: service.GroupPlan, pods: list) -> list:
    def url(number: int) -> str:
        base = reverse("pod-cards", args=[tournament.slug, number])
        return f"{base}?stage={stage.kind}"

    if plan.group.isdigit():
        return [(f"Pod {plan.group} cards", url(int(plan.group)))]
    return [(f"Pod {p.number} cards", url(p.number)) for p in pods]


# A group still waiting for a roll-off has no result yet, but who is clearly in is known:
# player id, value, the category they already advance for (empty_seat), roll-off winner.
Clear = tuple[int, int, str, bool]


def clear_places(
    standings: list[Standing], rules: AdvancementRules, plan: service.GroupPlan
) -> dict[str, list[Clear]]:
    """The cut so far, category by category as the engine walks it, up to the first tie still
    to throw (under "next_in_line" the later lists depend on who wins it)."""
    eligible = eligibility(standings).eligible
    next_in_line = rules.top_both == "next_in_line"
    pending = {t.category_key for t in plan.pending}
    recorded = plan.by_category
    seated: dict[int, str] = {}
    found_so_far: dict[str, list[Clear]] = {}
    for category in rules.categories:
        found = cut(rank(eligible, category.key), category.places, seated if next_in_line else ())
        rows = [(r.player, r.value, seated.get(r.player, ""), False) for r in found.clear]
        if found.tie and category.key in recorded:
            value = found.tie[0].value
            rows += [(p, value, seated.get(p, ""), True) for p in recorded[category.key].winners]
        found_so_far[category.key] = rows
        for player, _, _, _ in rows:
            seated.setdefault(player, category.label)
        if next_in_line and category.key in pending:
            break
    return found_so_far


def partial_cuts(stage: Stage, plans, rules: AdvancementRules) -> dict[str, dict]:
    """Only when a group waits for a roll-off: one more reading of the stage's cards."""
    waiting = [p for p in plans if p.pending]
    if not waiting:
        return {}
    cards = load_stage(stage)
    partial = {}
    for plan in waiting:
        players = cards.in_pod(int(plan.group)) if plan.group.isdigit() else sorted(cards.pod_of)
        partial[plan.group] = clear_places(service.standings_of(cards, players), rules, plan)
    return partial


def group_shown(
    tournament,
    stage: Stage,
    plan: service.GroupPlan,
    categories: list[Category],
    names: dict[int, str],
    users: dict[int, str],
    pods: list,
    partial: dict[str, list[Clear]] | None = None,
) -> GroupShown:
    def name(pid) -> str:
        return names.get(int(pid), f"player {pid}")

    ties = [TieShown(t, stage.kind, [name(p) for p in t.players]) for t in plan.pending]
    columns = []
    for category in categories:
        column = Column(category)
        if plan.result is not None:
            column.rows = [
                CutRow(
                    q.place, name(q.player), count_label(q.category_key, q.value), q.via_roll_off
                )
                for q in plan.result.qualifiers
                if q.category_key == category.key
            ]
            column.empty = [
                f"Place {e.place}: {e.reason}"
                + (f" ({name(e.player)})" if e.player is not None else "")
                for e in plan.result.empty_seats
                if e.category_key == category.key
            ]
        else:
            column.tie = next((t for t in ties if t.tie.category_key == category.key), None)
            clear = (partial or {}).get(category.key)
            if clear is not None:
                column.rows = [
                    CutRow(
                        place,
                        name(player),
                        count_label(category.key, value),
                        via,
                        f"already advances for {already.lower()}: the seat stays empty"
                        if already
                        else "",
                    )
                    for place, (player, value, already, via) in enumerate(clear, 1)
                ]
            column.waiting = clear is None and not plan.blocked
        columns.append(column)
    ineligible = [(name(s.player), s.reason) for s in plan.result.ineligible] if plan.result else []
    return GroupShown(
        plan,
        columns,
        ties,
        [
            roll_off_shown(r, names, users)
            for r in sorted(plan.by_category.values(), key=lambda r: r.pk)
        ],
        ineligible,
        card_links(tournament, stage, plan, pods),
    )


def plan_ids(plans: list[service.GroupPlan]) -> set[int]:
    ids: set[int] = set()
    for plan in plans:
        for tie in plan.pending:
            ids.update(int(p) for p in tie.players)
        ids |= roll_off_player_ids(plan.by_category.values())
        if plan.result is not None:
            ids.update(int(q.player) for q in plan.result.qualifiers)
            ids.update(int(e.player) for e in plan.result.empty_seats if e.player is not None)
            ids.update(int(s.player) for s in plan.result.ineligible)
    return ids


def stages_shown(tournament, stages: list[Stage]) -> list[StageShown]:
    """Each stage's cut in a fixed number of queries per stage, whatever the size."""
    planned = []
    for stage in stages:
        stage.tournament = tournament
        try:
            plans = service.plan_stage(stage)
            rules = service.advancement_rules(tournament, semi=stage.kind == Stage.Kind.SEMI_FINAL)
            partial = partial_cuts(stage, plans, rules)
            planned.append((stage, plans, list(rules.categories), partial, ""))
        except UserFacingError as exc:
            planned.append((stage, [], [], {}, exc.message))
    ids = set().union(*(plan_ids(p) for _, p, _, _, _ in planned))
    for _, _, _, partial, _ in planned:
        ids.update(row[0] for group in partial.values() for rows in group.values() for row in rows)
    names = player_names(ids)
    user_ids = {
        r.recorded_by_id for _, p, _, _, _ in planned for g in p for r in g.by_category.values()
    }
    users = dict(
        get_user_model()
        .objects.filter(pk__in=user_ids - {None})
        .values_list("pk", get_user_model().USERNAME_FIELD)
    )
    shown = []
    for stage, plans, categories, partial, error in planned:
        pods = list(stage.pods.order_by("number")) if stage.kind == Stage.Kind.SEMI_FINAL else []
        shown.append(
            StageShown(
                stage,
                [
                    group_shown(
                        tournament, stage, p, categories, names, users, pods, partial.get(p.group)
                    )
                    for p in plans
                ],
                categories,
                list(stage.qualifiers.select_related("player", "saved_by").order_by("pk")),
                stage.rounds.filter(status="closed").count(),
                error,
            )
        )
    return shown


# --- the final table's data -----------------------------------------------------------------


@dataclass(frozen=True)
class SeatShown:
    seat: FinalSeat

    @property
    def name(self) -> str:
        return self.seat.player.name

    @property
    def drawn(self) -> bool:
        return bool(self.seat.pool)

    @property
    def reason(self) -> str:
        pool = len(self.seat.pool)
        if pool:
            return f"{self.seat.reason} (1 of {pool})"
        return self.seat.reason


@dataclass
class FinalShown:
    final: FinalTable
    seats: list[SeatShown]
    throws: list[FinalThrow]
    order: list[SeatShown] = field(default_factory=list)
    order_throws: list[Throw] = field(default_factory=list)
    needed: list[SeatShown] = field(default_factory=list)  # who throws for the order next

    @property
    def winner(self) -> SeatShown | None:
        return next((s for s in self.seats if s.seat.player_id == self.final.winner_id), None)

    @property
    def counted(self) -> list[FinalThrow]:
        """The throws that stand: a voided one is thrown again by the same finalist."""
        return [t for t in self.throws if t.voided_at is None]

    @property
    def next_number(self) -> int:
        return len(self.throws) + 1

    @property
    def voidable(self) -> FinalThrow | None:
        """The latest throw, while nothing has been thrown after it."""
        latest = self.throws[-1] if self.throws else None
        return latest if latest is not None and latest.voided_at is None else None

    @property
    def next_seat(self) -> SeatShown | None:
        if not self.order or self.final.winner_id is not None:
            return None
        player = next_thrower(self.final.order, len(self.counted))
        return next((s for s in self.seats if s.seat.player_id == player), None)

    @property
    def order_started(self) -> bool:
        """Typed dice of a tie for the lowest are in: the rest must be typed too."""
        return bool(self.final.order_faces) and not self.final.order

    @property
    def last_throw(self) -> FinalThrow | None:
        counted = self.counted
        return counted[-1] if counted else None

    @property
    def recent_throws(self) -> list[FinalThrow]:
        """The latest throws first, for the board."""
        return list(reversed(self.throws[-10:]))

    @property
    def places(self) -> list[tuple[SeatShown, int | None, FinalThrow | None]]:
        """Each seat with its place in the throwing order and its latest throw."""
        position = {s.seat.pk: n for n, s in enumerate(self.order, 1)}
        last = {t.player_id: t for t in self.counted}
        return [(s, position.get(s.seat.pk), last.get(s.seat.player_id)) for s in self.seats]


def final_shown(final: FinalTable) -> FinalShown:
    """The table, the order roll and every throw: two queries whatever happened."""
    seats = [SeatShown(s) for s in final.seats.select_related("player").order_by("seat")]
    throws = list(final.throws.select_related("player").order_by("number"))
    by_player = {s.seat.player_id: s for s in seats}
    shown = FinalShown(final, seats, throws)
    shown.order = [by_player[p] for p in final.order if p in by_player]
    state = service.order_state(final, [s.seat.player_id for s in seats])
    if state is not None:
        shown.order_throws = [
            Throw([(by_player[p].name, face) for p, face in throw.items()])
            for throw in state.rounds
        ]
        shown.needed = [by_player[p] for p in state.needed]
    return shown


def final_of(tournament) -> FinalTable | None:
    return (
        FinalTable.objects.filter(tournament=tournament)
        .select_related("winner", "semi_stage", "seated_by")
        .first()
    )


# --- views ------------------------------------------------------------------------------------


class AdvancementMixin(TournamentPermissionMixin):
    permission = RUN

    def page_url(self) -> str:
        return reverse("advancement", args=[self.tournament.slug])

    def stage(self, kind: str) -> Stage:
        stage = self.tournament.stages.filter(kind=kind).first()
        if stage is None:
            raise UserFacingError(f"The {Stage.Kind(kind).label.lower()} has not been drawn.")
        stage.tournament = self.tournament
        return stage


class AdvancementView(AdvancementMixin, TemplateView):
    template_name = "tournaments/advancement/advancement.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        tournament = self.tournament
        stages = {s.kind: s for s in tournament.stages.all()}
        qualifying = stages.get(Stage.Kind.QUALIFYING)
        semi = stages.get(Stage.Kind.SEMI_FINAL)
        shown = stages_shown(tournament, [s for s in (qualifying, semi) if s is not None])
        by_kind = {s.kind: s for s in shown}
        final = final_of(tournament)
        context.update(
            qualifying=by_kind.get(Stage.Kind.QUALIFYING),
            semi=by_kind.get(Stage.Kind.SEMI_FINAL),
            final=final,
            draws_published=final is not None
            and final.winner_id is not None
            and draw_service.is_published(tournament),
            units=UNITS,
        )
        return context


class AdvancementAction(AdvancementMixin, View):
    """POST only: `act` calls one service and returns (message, where to go next)."""

    http_method_names = ["post"]

    def post(self, request, slug):
        try:
            message, url = self.act()
        except UserFacingError as exc:
            messages.error(request, exc.message)
            url = self.page_url()
        else:
            messages.success(request, message)
        return redirect(url)

    def act(self) -> tuple[str, str]:
        raise NotImplementedError

    def valid(self, form):
        if not form.is_valid():
            raise UserFacingError(first_error(form))
        return form.cleaned_data


class RollOffView(AdvancementAction):
    def act(self):
        form = RollOffForm(self.request.POST)
        data = self.valid(form)
        stage = self.stage(data["stage"])
        record = service.record_roll_off(
            stage, data["group"], data["category"], actor=self.request.user, faces=form.faces
        )
        names = player_names(record.winners)
        winners = " and ".join(names[p] for p in record.winners)
        where = "the semi-final" if data["group"] == service.SEMI_GROUP else f"pod {data['group']}"
        how = (
            f"rolled on screen, draw code {record.seed}"
            if record.source == RollOff.Source.SITE
            else f"{len(record.faces)} dice entered"
        )
        verb = "wins" if len(record.winners) == 1 else "win"
        return (
            f"{record.category_label} in {where}: {winners} {verb} the roll-off ({how}).",
            self.page_url(),
        )


class SaveQualifiersView(AdvancementAction):
    def act(self):
        stage = self.stage(self.valid(StageChoiceForm(self.request.POST))["stage"])
        rows = service.save_qualifiers(stage, actor=self.request.user)
        verb = "advances" if len(rows) == 1 else "advance"
        return f"Saved: {count(len(rows), 'player')} {verb} to the semi-final.", self.page_url()


class DrawSemiFinalView(AdvancementAction):
    def act(self):
        stage = service.draw_semi_final(self.tournament, actor=self.request.user)
        players = len(stage.draw_input["players"])
        pods = stage.pods.count()
        return (
            f"Semi-final drawn: {players} players in {pods} pod{'s' if pods != 1 else ''}, "
            f"draw code {stage.seed}. Assign its staff and ring the bell on the stage page.",
            self.page_url(),
        )


class SeatFinalView(AdvancementAction):
    def act(self):
        final = service.seat_final(self.tournament, actor=self.request.user)
        return (
            f"The final table is seated (draw code {final.seed}). Roll for the order of play.",
            reverse("final-table", args=[self.tournament.slug]),
        )


class PublishDrawsView(AdvancementAction):
    def act(self):
        draw_service.publish(self.tournament, actor=self.request.user)
        return (
            "The draw secret is published: anyone can now check every draw on the results page.",
            reverse("results", args=[self.tournament.slug]) + "#draws",
        )


class FinalMixin(TournamentPermissionMixin):
    permission = ENTER

    def page_url(self) -> str:
        return reverse("final-table", args=[self.tournament.slug])


class FinalTableView(FinalMixin, TemplateView):
    template_name = "tournaments/advancement/final_table.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        final = final_of(self.tournament)
        context.update(
            final=final,
            shown=final_shown(final) if final is not None else None,
            semi=self.tournament.stages.filter(kind=Stage.Kind.SEMI_FINAL).first(),
        )
        return context


class FinalAction(FinalMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug):
        try:
            final = final_of(self.tournament)
            if final is None:
                raise UserFacingError("The final table is not seated yet.")
            message = self.act(final)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, message)
        return redirect(self.page_url())

    def valid(self, form):
        if not form.is_valid():
            raise UserFacingError(first_error(form))
        return form.cleaned_data


class FinalOrderView(FinalAction):
    def act(self, final):
        form = OrderForm(self.request.POST)
        self.valid(form)
        final = service.roll_for_order(final, actor=self.request.user, faces=form.faces)
        if final.order:
            names = player_names(final.order)
            return (
                f"{names[final.order[0]]} throws first (lowest die), "
                "then the dice go clockwise round the seats."
            )
        shown = final_shown(final)
        return f"Tie for the lowest die: {' and '.join(s.name for s in shown.needed)} throw again."


class FinalThrowView(FinalAction):
    def act(self, final):
        form = ThrowForm(self.request.POST)
        data = self.valid(form)
        made = service.throw(final, actor=self.request.user, dice=form.dice, number=data["number"])
        name = player_names([made.player_id])[made.player_id]
        dice = " ".join(map(str, made.dice))
        if len(set(made.dice)) == 1:
            return f"{name} throws {dice}: three of a kind! {name} wins the grand prize!"
        return f"Throw {made.number}: {name} throws {dice}."


urlpatterns = [
    path("t/<slug:slug>/manage/advancement/", AdvancementView.as_view(), name="advancement"),
    path(
        "t/<slug:slug>/manage/advancement/roll-off/",
        RollOffView.as_view(),
        name="advancement-roll-off",
    ),
    path(
        "t/<slug:slug>/manage/advancement/save/",
        SaveQualifiersView.as_view(),
        name="advancement-save",
    ),
    path(
        "t/<slug:slug>/manage/advancement/semi-final/",
        DrawSemiFinalView.as_view(),
        name="advancement-semi-final",
    ),
    path(
        "t/<slug:slug>/manage/advancement/seat-final/",
        SeatFinalView.as_view(),
        name="advancement-seat-final",
    ),
    path(
        "t/<slug:slug>/manage/advancement/publish-draws/",
        PublishDrawsView.as_view(),
        name="advancement-publish-draws",
    ),
    path("t/<slug:slug>/manage/final/", FinalTableView.as_view(), name="final-table"),
    path("t/<slug:slug>/manage/final/order/", FinalOrderView.as_view(), name="final-order"),
    path("t/<slug:slug>/manage/final/throw/", FinalThrowView.as_view(), name="final-throw"),
]
