"""The final table: the first of four finalists to throw any three of a kind wins it all.

Order of play is itself decided by dice ("lowest number rolls first"), so the result keeps
that roll-off too: the whole final can be replayed and shown on the results board.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .dice import DieSource, die_source, three_dice
from .errors import EngineBug, RuleError
from .tiebreak import RollOff, roll_off

MAX_FINAL_TURNS = 100_000


@dataclass(frozen=True, slots=True)
class FinalTurn:
    """One finalist's single throw of three dice."""

    player: Hashable
    dice: tuple[int, int, int]


@dataclass(frozen=True)
class FinalResult:
    """Everything thrown at the final table, in order."""

    players: list[Hashable]
    order_roll: RollOff
    order: list[Hashable]
    turns: list[FinalTurn]
    winner: Hashable


def play_final(players: Sequence[Hashable], rng: random.Random | DieSource) -> FinalResult:
    """Play the final table of the Rolling for Pink sheet.

    With a scripted `rng` the faces are: first the order roll-off (one die per player in the
    listed order, then re-throws among tied players), then three dice per turn.
    """
    group = list(players)
    if not 2 <= len(group) <= 4:
        raise RuleError("The final table seats two to four players.")
    if len(set(group)) != len(group):
        raise RuleError("A player has only one seat at the final table.")
    source = die_source(rng)
    order_roll = roll_off(group, source, high_wins=False)
    order = order_roll.order
    turns: list[FinalTurn] = []
    for n in range(MAX_FINAL_TURNS):
        player = order[n % len(order)]
        dice = three_dice(source)
        turns.append(FinalTurn(player, dice))
        if dice[0] == dice[1] == dice[2]:
            return FinalResult(group, order_roll, order, turns, player)
    raise EngineBug(f"No three of a kind in {MAX_FINAL_TURNS} final-table turns.")
