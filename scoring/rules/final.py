"""The final table: the first of four finalists to throw any three of a kind wins it all.

The Rolling for Pink sheet (rolling-for-pink-tournament.txt, lines 107-110): "These four
players will roll a die to determine who goes first (lowest number rolls first). They will
roll three dice, attempting to roll a BUNKO (three of any number). If the person does not
roll a BUNKO, the dice will move clockwise to the next contestant."

So only the first thrower is chosen by dice; after them the dice pass round the table. Seats
are numbered clockwise (1 -> 2 -> 3 -> 4 -> 1), so "clockwise" is seat order starting from
the lowest die. Only a tie for the lowest die matters, and only the players in it throw
again; a tie for second place is never re-thrown because nobody's place depends on it.

The live final table calls these steps one at a time (`order_of_play` with the dice typed so
far, `take_turn` for each throw) and `play_final` is built from the same steps, so the
engine's tests exercise exactly what happens on event night.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .dice import DieSource, die_source, three_dice
from .errors import EngineBug, RuleError
from .roll import check_die

MAX_FINAL_TURNS = 100_000
MAX_ORDER_ROUNDS = 10_000


@dataclass(frozen=True, slots=True)
class FinalTurn:
    """One finalist's single throw of three dice."""

    player: Hashable
    dice: tuple[int, int, int]

    @property
    def wins(self) -> bool:
        return is_win(self.dice)


@dataclass(frozen=True)
class OrderResult:
    """The order roll so far: every throw, who must throw next, and the order once decided.

    `rounds` are the simultaneous throws, each a dict player -> die in seat order. While the
    lowest die is shared, `needed` names the tied players (in seat order) who throw again and
    `order` is empty; once one player alone has the lowest die, `order` starts with them and
    goes clockwise by seat, and `needed` is empty.
    """

    players: tuple[Hashable, ...]
    rounds: tuple[dict[Hashable, int], ...]
    needed: tuple[Hashable, ...]
    order: tuple[Hashable, ...]

    @property
    def decided(self) -> bool:
        return bool(self.order)

    @property
    def faces(self) -> list[int]:
        """Every die in the order thrown, as stored and as typed back in."""
        return [face for throw in self.rounds for face in throw.values()]


@dataclass(frozen=True)
class FinalResult:
    """Everything thrown at the final table, in order."""

    players: list[Hashable]
    order_roll: OrderResult
    order: list[Hashable]
    turns: list[FinalTurn]
    winner: Hashable


def seated(players_by_seat: Sequence[Hashable]) -> tuple[Hashable, ...]:
    """Two to four distinct players, listed from seat 1 clockwise."""
    group = tuple(players_by_seat)
    if not 2 <= len(group) <= 4:
        raise RuleError("The final table seats two to four players.")
    if len(set(group)) != len(group):
        raise RuleError("A player has only one seat at the final table.")
    return group


def clockwise_from(players_by_seat: Sequence[Hashable], first: Hashable) -> tuple[Hashable, ...]:
    """The dice "move clockwise to the next contestant": seat order, starting at `first`."""
    group = tuple(players_by_seat)
    start = group.index(first)
    return group[start:] + group[:start]


def order_of_play(players_by_seat: Sequence[Hashable], dice: Sequence[int]) -> OrderResult:
    """Read the order roll from the dice thrown so far (one die per player throwing).

    The first round is one die per finalist in seat order; each later round is one die per
    player tied on the lowest die of the round before, in seat order. Fewer dice than a
    round needs, or any die after the order is decided, is refused: staff are only ever asked
    for the dice the sheet calls for.
    """
    group = seated(players_by_seat)
    faces = [check_die(face) for face in dice]
    rounds: list[dict[Hashable, int]] = []
    throwing = group
    used = 0
    while used < len(faces):
        if len(faces) - used < len(throwing):
            raise RuleError(
                f"{len(throwing)} players throw now, one die each, but "
                f"{len(faces) - used} {'die was' if len(faces) - used == 1 else 'dice were'} "
                "entered."
            )
        throw = dict(zip(throwing, faces[used : used + len(throwing)], strict=True))
        rounds.append(throw)
        used += len(throwing)
        lowest = min(throw.values())
        throwing = tuple(p for p in throwing if throw[p] == lowest)
        if len(throwing) == 1:
            if used < len(faces):
                raise RuleError(
                    f"The order was decided after {used} dice, but {len(faces)} were "
                    "entered; check the entry."
                )
            return OrderResult(group, tuple(rounds), (), clockwise_from(group, throwing[0]))
    return OrderResult(group, tuple(rounds), throwing, ())


def roll_order(players_by_seat: Sequence[Hashable], source: DieSource) -> OrderResult:
    """Throw the whole order roll from one die source (the site's dice or the simulator's)."""
    faces: list[int] = []
    for _ in range(MAX_ORDER_ROUNDS):
        result = order_of_play(players_by_seat, faces)
        if result.decided:
            return result
        faces += [source() for _ in result.needed]
    raise EngineBug(f"The order roll stayed tied for {MAX_ORDER_ROUNDS} rounds.")


def next_thrower(order: Sequence[Hashable], throws_so_far: int) -> Hashable:
    """Whose turn it is: the order goes round and round until someone wins."""
    if not order:
        raise RuleError("Roll for the order of play first.")
    return order[throws_so_far % len(order)]


def check_throw(dice: Sequence[int]) -> tuple[int, int, int]:
    """Three faces 1..6, or the throw is refused before anyone is credited with it."""
    if len(dice) != 3 or any(
        isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice
    ):
        raise RuleError("Enter three dice, each 1 to 6.")
    a, b, c = dice
    return (a, b, c)


def is_win(dice: Sequence[int]) -> bool:
    """A BUNKO at the final table is "three of any number"."""
    a, b, c = check_throw(dice)
    return a == b == c


def take_turn(order: Sequence[Hashable], throws_so_far: int, dice: Sequence[int]) -> FinalTurn:
    """The next throw: who threw it (from the order) and the dice, checked."""
    return FinalTurn(next_thrower(order, throws_so_far), check_throw(dice))


def play_final(players: Sequence[Hashable], rng: random.Random | DieSource) -> FinalResult:
    """Play the final table of the Rolling for Pink sheet, listing `players` by seat.

    With a scripted `rng` the faces are: first the order roll (one die per player in seat
    order, then one die per player tied on the lowest, in seat order), then three dice per
    turn.
    """
    group = seated(players)
    source = die_source(rng)
    order_roll = roll_order(group, source)
    turns: list[FinalTurn] = []
    for n in range(MAX_FINAL_TURNS):
        turn = take_turn(order_roll.order, n, three_dice(source))
        turns.append(turn)
        if turn.wins:
            return FinalResult(list(group), order_roll, list(order_roll.order), turns, turn.player)
    raise EngineBug(f"No three of a kind in {MAX_FINAL_TURNS} final-table turns.")
