"""Settling ties: a tied table after a round, and tied players at a cut or a prize.

Both kinds keep every die they used, because a tie settled by dice must be explainable
afterwards ("Ann rolled a 5, Bea a 3") and replayable from the stored seed.

Dice come from `rng`, which is either a seeded `random.Random` or a `DieSource` callable
that returns the next physical die a person entered (see `scoring.rules.dice`). The order in
which faces are drawn is documented per method so a staff screen can ask for them in order.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from .dice import DieSource, die_source, three_dice
from .errors import EngineBug, RuleError
from .roll import check_target
from .ruleset import TIE_BREAK_LABELS, TIE_BREAK_METHODS, RuleSet
from .table import TablePlay, check_ghosts, pair_of, partner_of

MAX_PASSES = 10_000
# How `roll_off` settles players tied for a place or a prize, in the words put to people.
ROLL_OFF_RULE = "each tied player rolls one die, highest first; players still tied roll again"


def tie_rules(table_tie_break: str) -> str:
    """Both tie rules an event plays by, in one sentence for people choosing its rules."""
    if table_tie_break not in TIE_BREAK_LABELS:
        raise RuleError(f"Unknown tie-break {table_tie_break!r}.")
    table = TIE_BREAK_LABELS[table_tie_break].lower()
    return (
        f"Tied tables: {table}. Ties for advancing or a prize are settled by roll-offs: "
        f"{ROLL_OFF_RULE}."
    )


@dataclass(frozen=True, slots=True)
class TieRoll:
    """One throw in a tie-break: one die for the die methods, three for the turn methods."""

    pass_no: int
    seat: int
    rolled_by: int
    dice: tuple[int, ...]
    points: int = 0


@dataclass(frozen=True)
class TieBreak:
    """How a tied table was settled; `session_points` only for `turn_around_table`."""

    method: str
    target: int
    rolls: list[TieRoll]
    winner: int
    passes: int
    session_points: list[tuple[int, int]] = field(default_factory=list)


def break_table_tie(
    method: str,
    target: int,
    rules: RuleSet,
    rng: random.Random | DieSource,
    *,
    ghosts: Sequence[bool] | None = None,
    first_seat: int = 0,
) -> TieBreak:
    """Settle a tied table by a sheet method, keeping every throw so staff can explain it.

    Draw order for a scripted `rng`:
    - high_die_pair: per pass, the die of pair 0's roller (seat 0, or seat 2 if seat 0 is a
      ghost), then pair 1's (seat 1, or seat 3); equal dice start another pass.
    - high_die_player: per pass, one die per seat still in contention in seat order (a
      ghost's die is thrown by the partner); the highest die wins for its team, and if the
      top face is shared across both teams only those top seats throw again.
    - roll_to_target: three dice per throw, seats in turn from `first_seat` (the pod passes
      the seat after the round's last turn, "continuing to roll"); the first throw showing
      the target on any die wins.
    - turn_around_table: each pass is a full scoring turn per seat from seat 0 ("the
      scorekeeper begins"), three dice per throw, scored by `rules` (snake eyes included);
      the pair with more points in the pass wins, otherwise another pass.
    Tie-break throws never count on score cards: the round's tally is already closed.
    """
    if method not in TIE_BREAK_METHODS:
        raise RuleError(
            f"Unknown tie-break {method!r}; choose one of {', '.join(TIE_BREAK_METHODS)}."
        )
    check_target(target, rules)
    flags = check_ghosts(ghosts)
    source = die_source(rng)
    if method == "high_die_pair":
        return _high_die_pair(target, flags, source)
    if method == "high_die_player":
        return _high_die_player(target, flags, source)
    if method == "roll_to_target":
        return _roll_to_target(target, flags, source, first_seat)
    return _turn_around_table(target, rules, flags, source)


def _thrower(seat: int, ghosts: Sequence[bool]) -> int:
    return partner_of(seat) if ghosts[seat] else seat


def _high_die_pair(target: int, ghosts: Sequence[bool], source: DieSource) -> TieBreak:
    seats = (2 if ghosts[0] else 0, 3 if ghosts[1] else 1)
    rolls: list[TieRoll] = []
    for pass_no in range(1, MAX_PASSES + 1):
        faces = [source() for _ in seats]
        rolls.extend(TieRoll(pass_no, s, s, (f,)) for s, f in zip(seats, faces, strict=True))
        if faces[0] != faces[1]:
            winner = 0 if faces[0] > faces[1] else 1
            return TieBreak("high_die_pair", target, rolls, winner, pass_no)
    raise EngineBug(f"high_die_pair undecided after {MAX_PASSES} passes.")


def _high_die_player(target: int, ghosts: Sequence[bool], source: DieSource) -> TieBreak:
    contenders = [0, 1, 2, 3]
    rolls: list[TieRoll] = []
    for pass_no in range(1, MAX_PASSES + 1):
        faces = {seat: source() for seat in contenders}
        rolls.extend(TieRoll(pass_no, s, _thrower(s, ghosts), (f,)) for s, f in faces.items())
        top = max(faces.values())
        top_seats = [s for s in contenders if faces[s] == top]
        pairs = {pair_of(s) for s in top_seats}
        if len(pairs) == 1:
            return TieBreak("high_die_player", target, rolls, pairs.pop(), pass_no)
        contenders = top_seats
    raise EngineBug(f"high_die_player undecided after {MAX_PASSES} passes.")


def _roll_to_target(
    target: int, ghosts: Sequence[bool], source: DieSource, first_seat: int
) -> TieBreak:
    if first_seat not in (0, 1, 2, 3):
        raise RuleError(f"Seats are numbered 0 to 3, not {first_seat!r}.")
    rolls: list[TieRoll] = []
    seat = first_seat
    for n in range(MAX_PASSES * 4):
        dice = three_dice(source)
        pass_no = n // 4 + 1
        hit = target in dice
        rolls.append(TieRoll(pass_no, seat, _thrower(seat, ghosts), dice, 1 if hit else 0))
        if hit:
            return TieBreak("roll_to_target", target, rolls, pair_of(seat), pass_no)
        seat = (seat + 1) % 4
    raise EngineBug(f"roll_to_target undecided after {MAX_PASSES} passes.")


def _turn_around_table(
    target: int, rules: RuleSet, ghosts: Sequence[bool], source: DieSource
) -> TieBreak:
    rolls: list[TieRoll] = []
    sessions: list[tuple[int, int]] = []
    for pass_no in range(1, MAX_PASSES + 1):
        session = TablePlay(target, rules, head_table=False, ghosts=ghosts, single_rotation=True)
        while not session.finished:
            session.roll(three_dice(source))
        outcome = session.result()
        for turn in outcome.turns:
            rolls.extend(
                TieRoll(pass_no, turn.seat, turn.rolled_by, r.dice, r.score.points)
                for r in turn.rolls
            )
        sessions.append(outcome.pair_points)
        if outcome.winner is not None:
            return TieBreak("turn_around_table", target, rolls, outcome.winner, pass_no, sessions)
    raise EngineBug(f"turn_around_table undecided after {MAX_PASSES} passes.")


@dataclass(frozen=True)
class RollOff:
    """A roll-off between tied people, e.g. for the most-wins seat at the semi-final.

    `rounds` lists every simultaneous throw in the order thrown, each a dict player -> die.
    `order` ranks every player; its first `settled` places were decided by dice, later ones
    (only when fewer places were asked for) keep the input order within unsettled ties.
    """

    players: list[Hashable]
    rounds: list[dict[Hashable, int]]
    winner: Hashable
    order: list[Hashable]
    settled: int


def roll_off(
    players: Sequence[Hashable],
    rng: random.Random | DieSource,
    *,
    places: int | None = None,
) -> RollOff:
    """Everyone tied throws one die; ties among the best re-throw until places are decided.

    By default every place is settled, since a cut may need more than one name; pass
    `places=1` when only the winner matters so nobody throws needlessly. (Who throws first at
    the final table is another rule, lowest die first: `scoring.rules.final.order_of_play`.)
    With a scripted `rng`, faces are drawn for each round in the order players are listed in
    that round (input order at first, then the order of the sub-group that tied).
    """
    group = list(players)
    if not group:
        raise RuleError("A roll-off needs at least one player.")
    if len(set(group)) != len(group):
        raise RuleError("Each player takes part in a roll-off once.")
    if places is not None and (not isinstance(places, int) or places < 1):
        raise RuleError("A roll-off settles at least one place.")
    need = len(group) if places is None else min(places, len(group))
    source = die_source(rng)
    rounds: list[dict[Hashable, int]] = []
    order, settled = _rank(group, need, source, rounds)
    if sorted(map(repr, order)) != sorted(map(repr, group)) or settled < need:
        raise EngineBug("A roll-off lost or duplicated a player.")
    return RollOff(group, rounds, order[0], order, settled)


def _rank(
    group: list[Hashable],
    need: int,
    source: DieSource,
    rounds: list[dict[Hashable, int]],
) -> tuple[list[Hashable], int]:
    """Order `group`, deciding at least its first `need` places; returns (order, settled)."""
    if len(group) == 1:
        return list(group), 1
    if need <= 0:
        return list(group), 0
    for _ in range(MAX_PASSES):
        faces = {player: source() for player in group}
        rounds.append(faces)
        values = sorted(set(faces.values()), reverse=True)
        if len(values) > 1:
            break  # all equal: everyone throws again, without recursing
    else:
        raise EngineBug(f"A roll-off stayed tied for {MAX_PASSES} rounds.")
    order: list[Hashable] = []
    settled = 0
    contiguous = True  # `settled` counts only the leading run of decided places
    for value in values:
        tier = [p for p in group if faces[p] == value]
        if len(tier) == 1:
            part, part_settled = tier, 1
        elif len(order) >= need:
            part, part_settled = tier, 0  # below the places asked for: left tied
        else:
            part, part_settled = _rank(tier, need - len(order), source, rounds)
        order.extend(part)
        if contiguous:
            settled += part_settled
            contiguous = part_settled == len(part)
    return order, settled
