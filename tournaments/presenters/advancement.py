"""What the advancement page shows of each stage's cut, as the service planned it.

The cut itself (who is in, who ties at the line, the places so far while a roll-off is
awaited) is decided by `tournaments.rules.advancement` and returned in the service's
`GroupPlan`; this module only names the players and lays the plan out in columns. The
results page and the board use the same roll-off and name helpers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.foundation.errors import UserFacingError
from tournaments.rules.advancement import Category, Tie

from ..foundation.text import whole_number
from ..models import Player, Qualifier, RollOff, Stage
from ..services import advancement as service

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
        if not self.ready:
            return False
        return service.changed_since_saved([g.plan for g in self.groups], self.saved)

    @property
    def can_save(self) -> bool:
        return self.finished and self.ready and not self.saved and not self.is_semi


def card_links(tournament, stage: Stage, plan: service.GroupPlan, pods: list) -> list:
    def url(number: int) -> str:
        base = reverse("pod-cards", args=[tournament.slug, number])
        return f"{base}?stage={stage.kind}"

    if (number := whole_number(plan.group)) is not None:
        return [(f"Pod {number} cards", url(number))]
    return [(f"Pod {p.number} cards", url(p.number)) for p in pods]


def group_shown(
    tournament,
    stage: Stage,
    plan: service.GroupPlan,
    categories: list[Category],
    names: dict[int, str],
    users: dict[int, str],
    pods: list,
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
            clear = plan.so_far.get(category.key)
            if clear is not None:
                column.rows = [
                    CutRow(
                        p.place,
                        name(p.player),
                        count_label(category.key, p.value),
                        p.via_roll_off,
                        f"already advances for {p.already.lower()}: the seat stays empty"
                        if p.already
                        else "",
                    )
                    for p in clear
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
        ids.update(int(p.player) for rows in plan.so_far.values() for p in rows)
    return ids


def stages_shown(tournament, stages: list[Stage]) -> list[StageShown]:
    """Each stage's cut in a fixed number of queries per stage, whatever the size."""
    planned = []
    for stage in stages:
        stage.tournament = tournament
        try:
            plans = service.plan_stage(stage)
            rules = service.advancement_rules(tournament, semi=stage.kind == Stage.Kind.SEMI_FINAL)
            planned.append((stage, plans, list(rules.categories), ""))
        except UserFacingError as exc:
            planned.append((stage, [], [], exc.message))
    names = player_names(set().union(*(plan_ids(p) for _, p, _, _ in planned)))
    user_ids = {
        r.recorded_by_id for _, p, _, _ in planned for g in p for r in g.by_category.values()
    }
    users = dict(
        get_user_model()
        .objects.filter(pk__in=user_ids - {None})
        .values_list("pk", get_user_model().USERNAME_FIELD)
    )
    shown = []
    for stage, plans, categories, error in planned:
        pods = list(stage.pods.order_by("number")) if stage.kind == Stage.Kind.SEMI_FINAL else []
        shown.append(
            StageShown(
                stage,
                [group_shown(tournament, stage, p, categories, names, users, pods) for p in plans],
                categories,
                list(stage.qualifiers.select_related("player", "saved_by").order_by("pk")),
                stage.rounds.filter(status="closed").count(),
                error,
            )
        )
    return shown
