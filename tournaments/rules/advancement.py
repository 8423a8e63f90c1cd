"""Who advances from a pod (or the semi-final) and who sits at the final table.

The rule sheet's cut is split into named steps so every decision can be shown and replayed:
`rank` orders a group by one count, `eligibility` sets aside players who may not advance,
`cut` finds who is clearly in and who is tied for the last places, `settle` rolls off a tie,
and `advance_group` runs them per category. `final_seats` fills the final table.

Roll-offs are settled in two phases, because at a venue the dice are thrown by people after
the cards are in. `pending_roll_offs` names the ties that need dice now, given the dice entered
so far (a mapping from a tie's `category_key` to its faces, a seeded `random.Random` or a
`DieSource`). Staff roll, the faces are added to the mapping and the call is repeated until
nothing is pending; `advance_group` with the same mapping then gives the result. Under
"next_in_line" a later category's tie depends on who won an earlier one, so ties come one
category at a time; under "empty_seat" every category counts everyone, so all ties are known
at once. Entered faces are a plain sequence, so repeating a call with them is harmless; a
`random.Random` or `DieSource` is consumed by each call.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from scoring.rules.dice import DieSource
from scoring.rules.errors import RuleError
from scoring.rules.tiebreak import RollOff, roll_off

PlayerId = int | str  # one type per call, so that players sort into a replayable order
GroupId = int | str
Dice = random.Random | DieSource | Sequence[int]
GroupDice = random.Random | DieSource | Mapping[str, Dice]  # one stream, or dice per category

STANDING_KEYS = ("wins", "losses", "buncos", "minis")
TOP_BOTH = ("next_in_line", "empty_seat")


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's verified totals in a group, and whether they may advance at all."""

    player: PlayerId
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    minis: int = 0
    eligible: bool = True
    reason: str = ""  # why not eligible: "Card not verified", "Withdrawn", "Not present"

    def __post_init__(self) -> None:
        for key in STANDING_KEYS:
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RuleError(
                    f"{key.capitalize()} of player {self.player!r} must be a whole number "
                    f"of 0 or more, not {value!r}."
                )


@dataclass(frozen=True, slots=True)
class Category:
    """A list players advance from, e.g. the `places` players with the most wins in a pod."""

    key: str
    label: str
    places: int = 1

    def __post_init__(self) -> None:
        if self.key not in STANDING_KEYS:
            raise RuleError(
                f"A category ranks by one of {', '.join(STANDING_KEYS)}, not {self.key!r}."
            )
        if isinstance(self.places, bool) or not isinstance(self.places, int) or self.places < 1:
            raise RuleError(f"{self.label} must advance at least one player per group.")


# The sheet's two lists, in the order seats are given: most wins, then most buncos.
CUT_LABELS = {"wins": "Most wins", "buncos": "Most buncos"}


def pod_cut(wins: int = 1, buncos: int = 1) -> tuple[Category, ...]:
    """The sheet's categories, `wins` and `buncos` places a group; a list with none is left out."""
    places = {"wins": wins, "buncos": buncos}
    return tuple(
        Category(key, label, places[key]) for key, label in CUT_LABELS.items() if places[key]
    )


@dataclass(frozen=True)
class AdvancementRules:
    """The organiser's cut; the default is the Rolling for Pink sheet's.

    `top_both` says what happens when one player would take a seat in two categories:
    "next_in_line" gives the later category's seat to the next player on that list (the
    list is made without anyone already advancing); "empty_seat" makes each list from
    everyone, so the player keeps the earlier seat and the later one stays empty (a tie
    that includes them is still rolled off, and if they win it the seat is empty).
    """

    categories: tuple[Category, ...] = pod_cut()
    top_both: str = "next_in_line"

    def __post_init__(self) -> None:
        object.__setattr__(self, "categories", tuple(self.categories))
        if not self.categories:
            raise RuleError("Advancement needs at least one category.")
        keys = [c.key for c in self.categories]
        for key in keys:
            if keys.count(key) > 1:
                raise RuleError(f"The category {key!r} is listed twice.")
        if self.top_both not in TOP_BOTH:
            raise RuleError(
                f"When one player tops two lists, choose one of {', '.join(TOP_BOTH)}, "
                f"not {self.top_both!r}."
            )


@dataclass(frozen=True, slots=True)
class Ranked:
    """A standing's place in one list; tied players share `rank` (1, 1, 3)."""

    rank: int
    value: int
    standing: Standing

    @property
    def player(self) -> PlayerId:
        return self.standing.player


@dataclass(frozen=True)
class Eligibility:
    eligible: tuple[Standing, ...]
    ineligible: tuple[Standing, ...]


@dataclass(frozen=True)
class Cut:
    """Who is clearly in, and the tied players who roll off for the `open_places` left."""

    clear: tuple[Ranked, ...]
    tie: tuple[Ranked, ...]
    open_places: int


@dataclass(frozen=True)
class Tie:
    """A roll-off still to throw: `players` for places `first_place` onwards (`places` many)."""

    group: GroupId
    category_key: str  # the key its dice are entered under
    category_label: str
    value: int
    players: tuple[PlayerId, ...]
    first_place: int
    places: int


@dataclass(frozen=True)
class SettledRollOff:
    """A tie and the roll-off that settled it, every throw kept in `roll_off.rounds`."""

    tie: Tie
    roll_off: RollOff

    @property
    def winners(self) -> tuple[PlayerId, ...]:
        return tuple(self.roll_off.order[: self.tie.places])  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Qualifier:
    player: PlayerId
    group: GroupId
    category_key: str
    category_label: str
    place: int
    value: int
    via_roll_off: bool


@dataclass(frozen=True, slots=True)
class EmptySeat:
    """A place nobody takes: its winner already advances (`player`), or nobody was left."""

    group: GroupId
    category_key: str
    category_label: str
    place: int
    player: PlayerId | None
    reason: str


@dataclass(frozen=True, slots=True)
class Placed:
    """A place taken so far while the group waits for a roll-off; `already` names the
    category the player already advances for (their seat here then stays empty)."""

    place: int
    player: PlayerId
    value: int
    via_roll_off: bool
    already: str = ""


@dataclass(frozen=True)
class GroupCut:
    """One walk of a group's cut: the result once no roll-off is pending, else the ties to
    throw now and, category by category up to the first of them, who is placed so far."""

    result: GroupAdvancement | None
    pending: tuple[Tie, ...]
    placed: tuple[tuple[str, tuple[Placed, ...]], ...] = ()

    @property
    def so_far(self) -> dict[str, tuple[Placed, ...]]:
        return dict(self.placed)


@dataclass(frozen=True)
class GroupAdvancement:
    """Everything a results page says about one group's cut, in category and place order."""

    group: GroupId
    qualifiers: tuple[Qualifier, ...]
    roll_offs: tuple[SettledRollOff, ...]
    empty_seats: tuple[EmptySeat, ...]
    ineligible: tuple[Standing, ...]


def rank(standings: Iterable[Standing], key: str) -> tuple[Ranked, ...]:
    """Order by one count, highest first; ties share a rank and list players by id."""
    if key not in STANDING_KEYS:
        raise RuleError(f"Players are ranked by one of {', '.join(STANDING_KEYS)}, not {key!r}.")
    ranked: list[Ranked] = []
    for n, standing in enumerate(sorted(standings, key=lambda s: (-getattr(s, key), s.player))):
        value = getattr(standing, key)
        shared = ranked and ranked[-1].value == value
        ranked.append(Ranked(ranked[-1].rank if shared else n + 1, value, standing))
    return tuple(ranked)


def eligibility(standings: Iterable[Standing]) -> Eligibility:
    """Set aside players who may not advance, so they are reported rather than skipped silently."""
    ordered = sorted(standings, key=lambda s: s.player)
    for before, after in pairwise(ordered):
        if before.player == after.player:
            raise RuleError(f"Player {after.player!r} has two standings in one group.")
    return Eligibility(
        tuple(s for s in ordered if s.eligible), tuple(s for s in ordered if not s.eligible)
    )


def cut(ranked: Sequence[Ranked], places: int, taken: Collection[PlayerId] = ()) -> Cut:
    """Split a ranking (from `rank`) at `places`, leaving out players in `taken`.

    Only a tie across the last place needs dice: players above it are in, whoever shares it
    rolls off for what is left.
    """
    if places < 1:
        raise RuleError("A cut keeps at least one place.")
    candidates = tuple(r for r in ranked if r.player not in taken)
    if len(candidates) <= places:
        return Cut(candidates, (), 0)
    last = candidates[places - 1].value
    above = tuple(r for r in candidates if r.value > last)
    at = tuple(r for r in candidates if r.value == last)
    if len(above) + len(at) == places:
        return Cut(above + at, (), 0)
    return Cut(above, at, places - len(above))


def settle(tie: Tie, dice: Dice) -> SettledRollOff:
    """Roll off only for the open places, so nobody throws for a place already decided.

    Entered faces (a sequence) must all be used: a spare die means the entry is wrong.
    """
    if isinstance(dice, random.Random) or callable(dice):
        return SettledRollOff(tie, roll_off(tie.players, dice, places=tie.places))
    faces = list(dice)
    result = roll_off(tie.players, iter(faces).__next__, places=tie.places)
    used = sum(len(faces_of_round) for faces_of_round in result.rounds)
    if used != len(faces):
        raise RuleError(
            f"{len(faces)} dice were entered for the {tie.category_label} roll-off, but it was "
            f"decided after {used}; check the entry."
        )
    return SettledRollOff(tie, result)


def pending_roll_offs(
    group_id: GroupId,
    standings: Iterable[Standing],
    rules: AdvancementRules,
    dice: GroupDice | None = None,
) -> tuple[Tie, ...]:
    """The roll-offs to throw next, given the dice entered so far; empty once all are in."""
    return cut_group(group_id, standings, rules, dice).pending


def cut_group(
    group_id: GroupId,
    standings: Iterable[Standing],
    rules: AdvancementRules,
    dice: GroupDice | None = None,
) -> GroupCut:
    """Where the cut stands with the dice entered so far: decided, or waiting for roll-offs
    with the places already clear (the page shows them while the dice are thrown)."""
    return _decide(group_id, standings, rules, dice)


def advance_group(
    group_id: GroupId,
    standings: Iterable[Standing],
    rules: AdvancementRules,
    dice: GroupDice | None,
) -> GroupAdvancement:
    """Run the cut for one group with every roll-off's dice (see the module's two phases).

    `dice` is one `random.Random` or `DieSource` shared by the roll-offs in category order
    (the site rolling on screen, the simulator), or a mapping from category key to that
    roll-off's dice (staff entering physical dice).
    """
    walk = _decide(group_id, standings, rules, dice)
    result = walk.result
    if walk.pending:
        tie = walk.pending[0]
        raise RuleError(
            f"{tie.category_label} in group {group_id} needs a roll-off between players "
            f"{', '.join(map(str, tie.players))} before the cut can be made."
        )
    assert result is not None  # _decide builds a result whenever nothing is pending
    if isinstance(dice, Mapping):
        unused = set(dice) - {r.tie.category_key for r in result.roll_offs}
        if unused:
            raise RuleError(
                f"Dice were entered for {', '.join(sorted(unused))} in group {group_id}, "
                "which needs no roll-off; remove them."
            )
    return result


def _decide(
    group: GroupId,
    standings: Iterable[Standing],
    rules: AdvancementRules,
    dice: GroupDice | None,
) -> GroupCut:
    """The one walk behind both phases, so asking first and settling later cannot differ.

    While a tie is pending, its category's clear players still count as seated for the
    lists after it: they advance whoever wins the roll-off.
    """
    if not (dice is None or isinstance(dice, random.Random | Mapping) or callable(dice)):
        raise TypeError("A group's dice are a random.Random, a DieSource or a mapping of them.")
    split = eligibility(standings)
    next_in_line = rules.top_both == "next_in_line"
    seated: dict[PlayerId, str] = {}  # player -> label of the category they advance for
    qualifiers: list[Qualifier] = []
    settled: list[SettledRollOff] = []
    empty: list[EmptySeat] = []
    pending: list[Tie] = []
    so_far: list[tuple[str, tuple[Placed, ...]]] = []
    for category in rules.categories:
        if pending and next_in_line:
            break  # who is left for this list depends on the roll-off still to throw
        ranked = rank(split.eligible, category.key)
        found = cut(ranked, category.places, seated if next_in_line else ())
        placed = [(r.player, r.value, False) for r in found.clear]
        if found.tie:
            tie = Tie(
                group,
                category.key,
                category.label,
                found.tie[0].value,
                tuple(r.player for r in found.tie),
                len(found.clear) + 1,
                found.open_places,
            )
            chosen = dice.get(category.key) if isinstance(dice, Mapping) else dice
            if chosen is None:
                pending.append(tie)
                so_far.append((category.key, _placed(placed, seated)))
                for player, _, _ in placed:
                    seated.setdefault(player, category.label)
                continue
            settled.append(settle(tie, chosen))
            placed += [(player, tie.value, True) for player in settled[-1].winners]
        so_far.append((category.key, _placed(placed, seated)))
        for place, (player, value, via_roll_off) in enumerate(placed, 1):
            if player in seated:
                reason = f"Already advances for {seated[player]}"
                empty.append(EmptySeat(group, category.key, category.label, place, player, reason))
                continue
            seated[player] = category.label
            qualifiers.append(
                Qualifier(player, group, category.key, category.label, place, value, via_roll_off)
            )
        empty += [
            EmptySeat(group, category.key, category.label, place, None, "No eligible player left")
            for place in range(len(placed) + 1, category.places + 1)
        ]
    if pending:
        return GroupCut(None, tuple(pending), tuple(so_far))
    result = GroupAdvancement(
        group, tuple(qualifiers), tuple(settled), tuple(empty), split.ineligible
    )
    return GroupCut(result, (), tuple(so_far))


def _placed(placed: list[tuple[PlayerId, int, bool]], seated: Mapping) -> tuple[Placed, ...]:
    return tuple(
        Placed(place, player, value, via, seated.get(player, ""))
        for place, (player, value, via) in enumerate(placed, 1)
    )


@dataclass(frozen=True, slots=True)
class FinalSeat:
    """A seat at the final table; `pool` is who it was drawn from (empty when earned)."""

    seat: int
    player: PlayerId
    reason: str
    pool: tuple[PlayerId, ...] = ()

    @property
    def pool_size(self) -> int:
        return len(self.pool)


@dataclass(frozen=True)
class FinalTable:
    seats: tuple[FinalSeat, ...]
    semi_final: GroupAdvancement

    @property
    def players(self) -> list[PlayerId]:
        """In seat order, ready for `play_final`."""
        return [s.player for s in self.seats]


def final_table_rules(rules: AdvancementRules) -> AdvancementRules:
    """The semi-final's cut, which always fills its seats with the next player in line.

    The sheet (rolling-for-pink-tournament.txt, line 102) says "There are four spots at the
    final table": one for the most wins, one for the most BUNKOs, one drawn from the other
    semi-finalists, one wild card. A player who tops both lists takes the wins seat and the
    BUNKO seat goes to the semi-finalist with the next most BUNKOs, whatever `top_both` the
    organiser chose for the pods: the seat stays one earned by BUNKOs, as the sheet names it,
    rather than becoming a second draw, and the table is never short of a player.
    """
    return replace(rules, top_both="next_in_line")


def final_seats(
    semi_standings: Iterable[Standing],
    rules: AdvancementRules,
    all_participants_present: Iterable[PlayerId],
    rng: random.Random,
    *,
    semi_group_id: GroupId = "semi-final",
    dice: GroupDice | None = None,
) -> FinalTable:
    """Seat the final table: the semi-final's category leaders, a draw, then a wild card.

    The semi-final is cut by `final_table_rules(rules)` like any group (roll-offs with
    `dice`, or with `rng` when none were entered), so a player topping both lists never
    leaves a seat empty. Then `rng` draws one seat from the other eligible
    semi-finalists and the wild card from everyone present who is not yet seated (so pass
    only participants entitled to it). Pools are sorted before drawing, so the same seed and
    inputs give the same table in any order.
    """
    semi_standings = list(semi_standings)
    semi = advance_group(
        semi_group_id, semi_standings, final_table_rules(rules), rng if dice is None else dice
    )
    seats = [
        FinalSeat(n, q.player, f"{q.category_label} in the semi-final")
        for n, q in enumerate(semi.qualifiers, 1)
    ]
    seated = {s.player for s in seats}
    others = sorted(s.player for s in semi_standings if s.eligible and s.player not in seated)
    if not others:
        raise RuleError("No other eligible semi-finalist is left to draw a final seat from.")
    seats.append(_draw(len(seats) + 1, others, "Drawn from the other semi-finalists", rng))
    seated.add(seats[-1].player)
    present = sorted(set(all_participants_present) - seated)
    if not present:
        raise RuleError(
            "Everyone present already has a final seat: nobody is left for the wild card."
        )
    seats.append(_draw(len(seats) + 1, present, "Wild card drawn from all participants", rng))
    return FinalTable(tuple(seats), semi)


def _draw(seat: int, pool: list[PlayerId], reason: str, rng: random.Random) -> FinalSeat:
    """Uniform over a sorted pool, which is kept so the draw can be shown and replayed."""
    return FinalSeat(seat, rng.choice(pool), reason, tuple(pool))
