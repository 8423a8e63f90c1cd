"""Play at one table of four, one throw at a time.

`TablePlay` is the only place that knows how turns pass, how the bell ends a round and who
gets credit for a bunco. Everything else (a standalone head table, a whole pod rolling at
once, a "turn around the table" tie-break, a staff screen entering real dice) drives it, so
the rules live in exactly one place.

Seats are 0-based: seats 0 and 2 are pair 0, seats 1 and 3 are pair 1, and the dice pass
0 -> 1 -> 2 -> 3 -> 0 (to the left).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import EngineBug, RuleError
from .roll import RollScore, check_target, score_roll
from .ruleset import RuleSet

Ghosts = tuple[bool, bool, bool, bool]
NO_GHOSTS: Ghosts = (False, False, False, False)
MAX_ROLLS = 100_000
_SCORING_KINDS = frozenset({"bunco", "mini", "points"})


def pair_of(seat: int) -> int:
    """Partners sit across, so the pair is the seat's parity."""
    return seat % 2


def partner_of(seat: int) -> int:
    """The player across the table, who rolls for a ghost. The one partner rule: every
    other place (seat finder, printouts, roster changes) asks this."""
    return (seat + 2) % 4


def leading_pair(points: tuple[int, int]) -> int | None:
    """The pair with more points wins the table's round; level points are a tie, left for the
    tie-break (`None`). The one reading of a score: the engine's rounds and a result staff
    enter both ask it."""
    first, second = points
    if first == second:
        return None
    return 0 if first > second else 1


def least_points(buncos: int, minis: int, snake_eyes: int, rules: RuleSet) -> int | None:
    """The fewest points a pair can end a round on with these rolls credited to it: every
    bunco and mini bunco scores. Snake eyes wipe the pair's points, so after one nothing
    bounds them (`None`). A staff entry below this has a misread score or count."""
    if snake_eyes:
        return None
    return buncos * rules.bunco_points + minis * rules.mini_bunco_points


def partner_number(seat_number: int) -> int:
    """`partner_of` for seats numbered 1-4, as people and stored seats count them."""
    return partner_of(seat_number - 1) + 1


def partner_pairs() -> tuple[tuple[int, int], ...]:
    """The two teams as seat numbers 1-4 (for printed "partners 1 & 3" marks)."""
    return tuple((n, partner_number(n)) for n in (1, 2, 3, 4) if n < partner_number(n))


def pair_seats(pair: int) -> str:
    """A pair (0 or 1, as `pair_of` and a result's winner count them) as people say it:
    "1 & 3" or "2 & 4"."""
    if pair not in (0, 1):
        raise RuleError(f"A table has pair 0 (seats 1 and 3) or pair 1, not {pair!r}.")
    first, second = partner_pairs()[pair]
    return f"{first} & {second}"


# The one wording of the two teams, for choices, messages, pages and printouts.
PAIR_LABELS: tuple[str, str] = (f"Seats {pair_seats(0)}", f"Seats {pair_seats(1)}")


def pair_label(pair: int) -> str:
    """ "Seats 1 & 3" or "Seats 2 & 4"."""
    pair_seats(pair)
    return PAIR_LABELS[pair]


def check_ghosts(ghosts: Sequence[bool] | None) -> Ghosts:
    """A team of two ghosts has nobody to roll for it, so such a table cannot be played."""
    if ghosts is None:
        return NO_GHOSTS
    flags = tuple(bool(g) for g in ghosts)
    if len(flags) != 4:
        raise RuleError("Ghost flags are given for exactly four seats.")
    for seat in (0, 1):
        if flags[seat] and flags[partner_of(seat)]:
            raise RuleError(
                f"Seats {seat + 1} and {partner_of(seat) + 1} are partners and both ghosts; "
                "nobody could roll for that team."
            )
    return flags  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Roll:
    """One throw as it happened; `after_bell` lets a reviewer see which points came late."""

    dice: tuple[int, int, int]
    score: RollScore
    after_bell: bool = False


@dataclass(frozen=True)
class Turn:
    """A seat's turn; `rolled_by` differs from `seat` when a partner rolls for a ghost."""

    seat: int
    rolled_by: int
    rolls: list[Roll]


@dataclass(frozen=True)
class TableRound:
    """The outcome of one round at one table, enough to fill the tally and the score cards.

    The per-seat counts credit the person who actually threw the dice (a ghost's partner for
    the ghost's turns), because only the roller marks a bunco on their card.
    """

    target: int
    pair_points: tuple[int, int]
    buncos: tuple[int, int, int, int]
    minis: tuple[int, int, int, int]
    snake_eyes: tuple[int, int, int, int]
    winner: int | None
    turns: list[Turn]
    bell_rung: bool


class TablePlay:
    """Stepwise state of a round at one table, fed one throw at a time.

    The table with `head_table=True` rings its own bell when a pair reaches
    `rules.bell_points` (or on a bunco if `rules.bell_on_bunco`); any other table plays on
    until the caller calls `ring_bell()` because the head table's bell rang. After the bell,
    the roller who is mid-turn keeps rolling while scoring only if
    `rules.finish_turn_after_bell` (otherwise the turn stops at once), and with
    `rules.everyone_rolls_once` each seat that has not had a turn yet takes one, in seat
    order. A turn taken after the bell follows the same switch, so without it the late turn
    is a single throw ("every player gets at least one roll"). With
    `rules.head_table_stops_at_bell` the switch is off at the head table alone: the table
    that rang the bell stops there while the others finish the roll in progress.

    `single_rotation=True` is the tie-break session of the classic sheet: no bell, every seat
    takes one full turn starting at `first_seat`, then the table is finished.
    """

    def __init__(
        self,
        target: int,
        rules: RuleSet,
        *,
        head_table: bool = True,
        ghosts: Sequence[bool] | None = None,
        first_seat: int = 0,
        single_rotation: bool = False,
    ) -> None:
        self.target = check_target(target, rules)
        self.rules = rules
        self.ghosts = check_ghosts(ghosts)
        if first_seat not in (0, 1, 2, 3):
            raise RuleError(f"Seats are numbered 0 to 3, not {first_seat!r}.")
        if single_rotation and head_table:
            raise EngineBug("A single-rotation session has no bell; it cannot be a head table.")
        self.head_table = head_table
        self.single_rotation = single_rotation
        self._seat = first_seat
        self._points = [0, 0]
        self._buncos = [0, 0, 0, 0]
        self._minis = [0, 0, 0, 0]
        self._snakes = [0, 0, 0, 0]
        self._had_turn = [False, False, False, False]
        self._turns: list[Turn] = []
        self._rolls: list[Roll] | None = None  # None between turns
        self._bell = False
        self._finished = False

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def bell_rung(self) -> bool:
        return self._bell

    @property
    def pair_points(self) -> tuple[int, int]:
        return (self._points[0], self._points[1])

    @property
    def seat(self) -> int:
        """The seat whose turn is in progress, or who rolls next."""
        return self._seat

    @property
    def mid_turn(self) -> bool:
        return self._rolls is not None

    def roller(self, seat: int) -> int:
        """Who physically throws for `seat`."""
        return partner_of(seat) if self.ghosts[seat] else seat

    def roll(self, dice: tuple[int, int, int]) -> RollScore:
        """Apply the next throw at this table and pass the dice on when the turn is over."""
        if self._finished:
            raise EngineBug("A throw was fed to a table whose round is already over.")
        score = score_roll(dice, self.target, self.rules)
        seat = self._seat
        if self._rolls is None:
            self._rolls = []
            self._had_turn[seat] = True
        credit = self.roller(seat)
        pair = pair_of(seat)
        kind = score.kind
        if kind == "snake_eyes":
            self._points[pair] = 0
            self._snakes[credit] += 1
        else:
            self._points[pair] += score.points
            if kind == "bunco":
                self._buncos[credit] += 1
            elif kind == "mini":
                self._minis[credit] += 1
        self._rolls.append(Roll((dice[0], dice[1], dice[2]), score, self._bell))
        if (
            self.head_table
            and not self._bell
            and (
                self._points[pair] >= self.rules.bell_points
                or (kind == "bunco" and self.rules.bell_on_bunco)
            )
        ):
            self._bell = True
        keeps_rolling = kind in _SCORING_KINDS and (not self._bell or self._plays_on_after_bell)
        if not keeps_rolling:
            self._end_turn()
        return score

    def ring_bell(self) -> None:
        """The head table's bell rang (or staff ended the round); idempotent."""
        if self.single_rotation:
            raise EngineBug("A tie-break session has no bell.")
        if self._bell:
            return
        self._bell = True
        if self._rolls is not None:
            if not self._plays_on_after_bell:
                self._end_turn()
        else:
            self._finished = not self._owes_turn(self._seat)

    def result(self) -> TableRound:
        """Freeze the finished round; ties stay `winner=None` for the tie-break to settle."""
        if not self._finished:
            raise EngineBug("The round at this table is not over yet.")
        p0, p1 = self._points
        return TableRound(
            target=self.target,
            pair_points=(p0, p1),
            buncos=tuple(self._buncos),  # type: ignore[arg-type]
            minis=tuple(self._minis),  # type: ignore[arg-type]
            snake_eyes=tuple(self._snakes),  # type: ignore[arg-type]
            winner=leading_pair((p0, p1)),
            turns=list(self._turns),
            bell_rung=self._bell,
        )

    @property
    def _plays_on_after_bell(self) -> bool:
        """Whether a turn goes on scoring once the bell has rung at this table."""
        if self.head_table and self.rules.head_table_stops_at_bell:
            return False
        return self.rules.finish_turn_after_bell

    def _owes_turn(self, seat: int) -> bool:
        return self.rules.everyone_rolls_once and not self._had_turn[seat]

    def _end_turn(self) -> None:
        seat = self._seat
        if self._rolls is None:
            raise EngineBug("Ending a turn that never started.")
        self._turns.append(Turn(seat=seat, rolled_by=self.roller(seat), rolls=self._rolls))
        self._rolls = None
        self._seat = (seat + 1) % 4
        if self.single_rotation:
            self._finished = all(self._had_turn)
        elif self._bell:
            self._finished = not self._owes_turn(self._seat)


def play_table_round(
    target: int,
    rules: RuleSet,
    dice: Iterable[tuple[int, int, int]],
    head_table: bool = True,
    *,
    ghosts: Sequence[bool] | None = None,
    bell_after: int | None = None,
    first_seat: int = 0,
) -> TableRound:
    """Play a whole round at one table from a stream of throws (scripted or random).

    A head table stops by its own bell. Any other table has no bell of its own, so the caller
    says when the head table's bell rang: after `bell_after` throws at this table (it may also
    be given for a head table, e.g. staff ending a round by hand). Running out of throws before
    the round is over is a `RuleError`: a scripted list was too short.
    """
    if not head_table and bell_after is None:
        raise RuleError("A table other than the head table needs to know when the bell rings.")
    if bell_after is not None and (not isinstance(bell_after, int) or bell_after < 0):
        raise RuleError("The bell rings after a number of throws of 0 or more.")
    play = TablePlay(target, rules, head_table=head_table, ghosts=ghosts, first_seat=first_seat)
    throws = iter(dice)
    count = 0
    while True:
        if count == bell_after:
            play.ring_bell()
        if play.finished:
            return play.result()
        if count >= MAX_ROLLS:
            raise EngineBug(f"No end to the round after {MAX_ROLLS} throws.")
        try:
            throw = next(throws)
        except StopIteration:
            raise RuleError(
                f"Ran out of dice after {count} throws; the round is not over."
            ) from None
        play.roll(throw)
        count += 1
