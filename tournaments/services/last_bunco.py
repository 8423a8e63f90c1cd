"""The night's last bunco: which bunco was recorded last, and staff's mark when it was not.

The complete rules suggest a "Last Bunco" prize (complete-rules-with-examples.txt, "Optional
rule: Prize categories"). The site knows when each bunco was typed in: a table's result is
saved as versions, and a bunco's moment is the save that first credited it. A correction keeps
that moment (retyping the points does not make an early bunco "last"); only a correction that
credits the player with more buncos at that table than before records a new one.

Saves are ordered by the result version's id, the database's sequence, not by the clock: it
is the order the saves reached the database, so two saves in the same second still have an
order, and a replay from the same seed orders them the same way (`rehearsal.py`). The time of
the save is shown beside it.

Staff may name a different bunco as the last one (the table shouted "Bunco!" last, but its
result was typed in first). The mark is a row of its own with a reason, the automatic answer
stays visible, and a newer mark replaces an older one without deleting it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from django.db import transaction

from scoring.models import RollCredit, TableResult
from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError

from ..models import LastBuncoMark, Player, Stage, Tournament
from .prize_categories import paid_started


@dataclass(frozen=True)
class Bunco:
    """A player's buncos at one table, as that table's current result credits them."""

    player_id: int
    round_number: int
    pod_number: int
    table: int
    result_id: int  # the current version: what a mark names
    recorded_id: int  # the version that first recorded it: orders the buncos
    recorded_at: datetime

    @property
    def chain(self) -> tuple[int, int, int]:
        return (self.round_number, self.pod_number, self.table)


@dataclass(frozen=True)
class LastBunco:
    """The stage's buncos in the order they were recorded, and the mark in force, if any."""

    recorded: tuple[Bunco, ...]
    mark: LastBuncoMark | None = None
    marked: Bunco | None = None  # what the mark names, while the results still credit it

    @property
    def automatic(self) -> tuple[Bunco, ...]:
        """The buncos of the last save that recorded one (several players at one table)."""
        if not self.recorded:
            return ()
        latest = self.recorded[-1].recorded_id
        return tuple(b for b in self.recorded if b.recorded_id == latest)

    @property
    def last(self) -> tuple[Bunco, ...]:
        return (self.marked,) if self.marked else self.automatic

    @property
    def stale_mark(self) -> bool:
        """A mark whose bunco a later correction took off the results: it no longer counts."""
        return self.mark is not None and self.marked is None

    def order(self) -> dict[int, int]:
        """Each player's last bunco as a place in the recording order (1 = first recorded);
        the marked bunco comes after every other."""
        places = {rid: n for n, rid in enumerate(sorted({b.recorded_id for b in self.recorded}), 1)}
        order: dict[int, int] = {}
        for b in self.recorded:
            order[b.player_id] = max(order.get(b.player_id, 0), places[b.recorded_id])
        if self.marked:
            order[self.marked.player_id] = len(places) + 1
        return order


def recorded_buncos(stage: Stage) -> tuple[Bunco, ...]:
    """Every bunco the current results credit, earliest recorded first: read once per change
    of the room (`changes.remembered`; results and their credits move the counter)."""
    return changes.remembered(stage.tournament_id, f"buncos:{stage.pk}", lambda: read_buncos(stage))


def read_buncos(stage: Stage) -> tuple[Bunco, ...]:
    """`recorded_buncos` from the database; two queries.

    Each table's versions are walked oldest first: a player keeps the save that first
    credited them while each later version credits them with at least as many buncos.
    """
    versions = TableResult.objects.filter(round__stage=stage).order_by(
        "round__number", "pod__number", "table", "version"
    )
    credited: dict[int, dict[int, int]] = {}
    for result_id, player_id, buncos in RollCredit.objects.filter(
        result__round__stage=stage, buncos__gt=0
    ).values_list("result_id", "player_id", "buncos"):
        credited.setdefault(result_id, {})[player_id] = buncos
    rows = versions.values_list(
        "id", "round__number", "pod__number", "table", "entered_at", "is_current"
    )
    found: list[Bunco] = []
    for chain, chain_rows in groupby(rows, key=lambda r: r[1:4]):
        since: dict[int, tuple[int, datetime]] = {}
        held: dict[int, int] = {}
        for result_id, *_, entered_at, is_current in chain_rows:
            now = credited.get(result_id, {})
            since = {
                p: since[p] if held.get(p, 0) >= n else (result_id, entered_at)
                for p, n in now.items()
            }
            held = now
            if is_current:
                found += [Bunco(p, *chain, result_id, *since[p]) for p in sorted(since)]
    return tuple(sorted(found, key=lambda b: (b.recorded_id, b.player_id)))


def last_bunco(stage: Stage) -> LastBunco:
    recorded = recorded_buncos(stage)
    mark = (
        LastBuncoMark.objects.filter(result__round__stage=stage)
        .select_related("result__round", "result__pod", "player", "marked_by")
        .order_by("id")
        .last()
    )
    if mark is None:
        return LastBunco(recorded)
    chain = (mark.result.round.number, mark.result.pod.number, mark.result.table)
    marked = next((b for b in recorded if b.chain == chain and b.player_id == mark.player_id), None)
    return LastBunco(recorded, mark, marked)


@transaction.atomic
def mark_last_bunco(
    stage: Stage, *, result_id: int, player: Player, actor, reason: str
) -> LastBuncoMark:
    """Names a bunco on the current results as the night's last one, with the reason why."""
    tournament = Tournament.objects.select_for_update().get(pk=stage.tournament_id)
    reason = reason.strip()
    if not reason:
        raise UserFacingError("Say why this bunco is the last one.", field="reason")
    if paid_started(tournament):
        raise UserFacingError("Prizes are being paid: the last bunco can no longer change.")
    bunco = next(
        (
            b
            for b in recorded_buncos(stage)
            if b.result_id == result_id and b.player_id == player.pk
        ),
        None,
    )
    if bunco is None:
        raise UserFacingError(
            "That bunco is not on the current results; open the page again and choose again."
        )
    mark = LastBuncoMark.objects.create(
        tournament=tournament,
        result_id=result_id,
        player=player,
        reason=reason[:300],
        marked_by=actor,
    )
    audit.record(
        "prizes.last_bunco",
        f"Last bunco marked: {player.name}, round {bunco.round_number}, table {bunco.table}"
        f" ({reason[:200]})",
        actor=actor,
        tournament=tournament,
        target=mark,
        data={"player": player.pk, "reason": mark.reason},
    )
    return mark
