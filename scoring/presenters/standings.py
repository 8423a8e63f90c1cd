"""Standings as the public and the board see them, ranks, and the cards of a stage as CSV rows."""

from __future__ import annotations

from dataclasses import dataclass

from scoring.presenters.cards import STATUS_BADGES, usernames
from scoring.rules.cards import PUBLIC_LABELS, STATUS_LABELS, Status, standing_order
from scoring.rules.ruleset import round_in_sets
from scoring.services.cards import SORT_KEYS, StandingRow, load_stage, standings
from tournaments.foundation import changes
from tournaments.foundation.csv_files import neutralise
from tournaments.models import FinalSeat, Qualifier, Stage


@dataclass(frozen=True)
class Ranked:
    rank: int
    row: StandingRow

    @property
    def label(self) -> str:
        return STATUS_LABELS[self.row.status]

    @property
    def badge(self) -> str:
        return STATUS_BADGES[self.row.status]

    @property
    def verified(self) -> bool:
        return self.row.status == Status.VERIFIED

    @property
    def public_label(self) -> str:
        return PUBLIC_LABELS[self.verified]


@dataclass(frozen=True)
class Advanced:
    """Who took a place in the next stage from this one, and what to call it."""

    players: frozenset[int]
    words: str  # the legend under the table
    badge: str  # beside each name


def advanced_from(stage: Stage) -> Advanced:
    """The players the organiser saved as going on from `stage` (one query): its qualifiers,
    or for the semi-final the final table's seats. Never guessed from the ranks: places go to
    each pod's category leaders and roll-offs, and two final seats are drawn."""
    if stage.kind == Stage.Kind.SEMI_FINAL:
        seats = FinalSeat.objects.filter(final__semi_stage=stage)
        return Advanced(
            frozenset(seats.values_list("player_id", flat=True)),
            "Seated at the final table",
            "final table",
        )
    qualifiers = Qualifier.objects.filter(from_stage=stage)
    return Advanced(
        frozenset(qualifiers.values_list("player_id", flat=True)),
        "Through to the semi-final",
        "semi-final",
    )


def shared_standings(stage) -> list[StandingRow]:
    """Every row of `stage` in the default order, as the public page and the board share it:
    computed once per change of the room (`changes.remembered`), so a crowd refreshing the
    public standings costs one counter read each, and no one sees numbers older than the
    last save."""
    return changes.remembered(
        stage.tournament_id, f"standings:{stage.pk}", lambda: standings(load_stage(stage))
    )


def ranks(rows: list[StandingRow]) -> dict[int, int]:
    """Rank by wins then buncos; players level on both share a rank (1, 2, 2, 4)."""
    result: dict[int, int] = {}
    previous = None
    for position, row in enumerate(sorted(rows, key=SORT_KEYS["wins"]), start=1):
        key = standing_order(row.card)
        if key != previous:
            rank, previous = position, key
        result[row.player.pk] = rank
    return result


def cards_csv_rows(cards) -> list[list]:
    stage = cards.stage
    snake_eyes = bool(stage.rules.get("snake_eyes"))
    targets = stage.targets
    totals = ["wins", "losses", "buncos", "minis"] + (["snake_eyes"] if snake_eyes else [])
    header = ["player", "code", "pod"]
    header += [
        f"round_{n}_{round_in_sets(targets, n)[1]}s" for n in range(1, stage.round_count + 1)
    ]
    header += totals + ["status", "version", "entered_by", "confirmed_by"]
    names = usernames(cards)
    rows = [header]
    for row in standings(cards, sort="pod"):
        pid = row.player.pk
        versions = cards.versions.get(pid, [])
        current = versions[-1] if versions else None
        checker = cards.states[pid].checked_by
        marks = list(row.card.rounds) or [None] * stage.round_count
        rows.append(
            [
                neutralise(row.player.name),
                neutralise(row.player.code),
                row.pod,
                *[mark or "" for mark in marks],
                *[getattr(row.card, name) for name in totals],
                STATUS_LABELS[row.status],
                current.version if current else "",
                neutralise(names.get(current.entered_by_id, "")) if current else "",
                neutralise(names.get(checker, "")) if checker else "",
            ]
        )
    return rows
