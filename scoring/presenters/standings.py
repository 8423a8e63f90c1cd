"""Standings as the public and the board see them, ranks, and the cards of a stage as CSV rows."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache

from scoring.presenters.cards import STATUS_BADGES, usernames
from scoring.rules.cards import PUBLIC_LABELS, STATUS_LABELS, Status
from scoring.services.cards import SORT_KEYS, StandingRow, load_stage, standings
from tournaments.foundation.csv_files import neutralise


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


def shared_standings(stage) -> list[StandingRow]:
    """Every row of `stage` in the default order, computed at most once per SHARED_SECONDS."""
    key = f"standings:{stage.pk}:{stage.drawn_at.timestamp()}"
    return cache.get_or_set(key, lambda: standings(load_stage(stage)), SHARED_SECONDS)


def ranks(rows: list[StandingRow]) -> dict[int, int]:
    """Rank by wins then buncos; players level on both share a rank (1, 2, 2, 4)."""
    result: dict[int, int] = {}
    previous = None
    for position, row in enumerate(sorted(rows, key=SORT_KEYS["wins"]), start=1):
        key = (row.card.wins, row.card.buncos)
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
        f"round_{n}_{targets[(n - 1) % len(targets)]}s" for n in range(1, stage.round_count + 1)
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


# The board (asked for again by every projector after each change) and public visitors share
# one reading of the stage for this long: reading a fully played stage of 1,200 players takes
# about a second.
# Staff, admins and organisers always get fresh numbers.
SHARED_SECONDS = 20
