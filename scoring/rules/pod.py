"""A round for a whole pod: every table rolls at once and the head table's bell ends it.

Tables are interleaved one throw per table per tick, head table first, which is the closest
a sequential program gets to "all tables playing simultaneously". When the head table's bell
rings on its throw, the other tables hear it before their throw of that same tick.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .dice import random_rolls
from .errors import EngineBug, RuleError
from .ruleset import RuleSet
from .table import MAX_ROLLS, TablePlay, TableRound
from .tiebreak import TieBreak, break_table_tie


@dataclass(frozen=True)
class PodRound:
    """One round of a pod: per-table results, how ties were settled, and who won each table.

    `winners[i]` is the winning pair (0 = seats 1 and 3, 1 = seats 2 and 4) of table `i`
    after any tie-break, so it is never None; `tie_breaks[i]` is None for untied tables.
    """

    target: int
    tables: list[TableRound]
    tie_breaks: list[TieBreak | None]
    winners: list[int]


def play_pod_round(
    target: int,
    rules: RuleSet,
    rng: random.Random,
    tables: int,
    ghosts: Sequence[Sequence[bool]] | None = None,
) -> PodRound:
    """Play one round for all tables of a pod with seeded dice, ties settled by the preset.

    `ghosts[i]` flags the ghost seats of table `i` (table 0 is the head table). The same `rng`
    feeds table play and then the tie-breaks, table by table, so the seed replays the round.
    """
    if not isinstance(tables, int) or isinstance(tables, bool) or tables < 1:
        raise RuleError("A pod round needs at least one table.")
    if ghosts is not None and len(ghosts) != tables:
        raise RuleError(f"Ghost flags are needed for each of the {tables} tables.")
    plays = [
        TablePlay(
            target,
            rules,
            head_table=(i == 0),
            ghosts=None if ghosts is None else ghosts[i],
        )
        for i in range(tables)
    ]
    throws = random_rolls(rng)
    head = plays[0]
    others = plays[1:]
    bell_heard = False
    ticks = 0
    while True:
        active = False
        for play in plays:
            if play.finished:
                continue
            active = True
            play.roll(next(throws))
            if play is head and head.bell_rung and not bell_heard:
                bell_heard = True
                for other in others:
                    other.ring_bell()
        if not active:
            break
        ticks += 1
        if ticks > MAX_ROLLS:
            raise EngineBug(f"The pod round did not end after {MAX_ROLLS} ticks.")
    results = [play.result() for play in plays]
    tie_breaks: list[TieBreak | None] = []
    winners: list[int] = []
    for play, result in zip(plays, results, strict=True):
        if result.winner is None:
            settled = break_table_tie(
                rules.table_tie_break,
                target,
                rules,
                rng,
                ghosts=play.ghosts,
                first_seat=play.seat,
            )
            tie_breaks.append(settled)
            winners.append(settled.winner)
        else:
            tie_breaks.append(None)
            winners.append(result.winner)
    return PodRound(target=target, tables=results, tie_breaks=tie_breaks, winners=winners)
