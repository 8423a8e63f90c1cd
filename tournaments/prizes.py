"""Who wins each prize category: players' verified totals in, awards and unawarded places out.

Pure Python with no Django, like `seating.py`, so a results page, a payout sheet and a replay
from stored dice all run the same rules. A service loads the totals, the organiser's
categories, the judges' choices and any entered dice, calls `award_prizes` and stores what
comes back.

Decisions that a person may ask about, kept here so they are explained in one place:

- Only eligible players win. A player whose card is not verified, or who is not present, is
  skipped and the next player moves up; the award does not say so (eligibility is shown
  beside the standings), but `Unawarded` says why a place stays empty.
- A count of zero wins nothing: "most buncos" with no bunco rolled is unawarded ("No eligible
  player rolled a bunco"), rather than an eleven-way tie at zero.
- `even_split` is for a player with as many wins as losses (at least one of each). Everyone
  with an even split is equally good, so they all share first place and the tie policy
  decides. `last_bunco` goes to the eligible player whose last bunco came latest in the
  order the service gives (see `PlayerTotals`); the order is not a count, so no value is shown.
- `traveling_holder` and `judged` are named by a person (`named`): the engine only checks
  that the person is in scope and eligible; an ineligible holder leaves the prize unawarded,
  because nobody else holds the item.
- A group prize (`pod_group`) goes to the pod whose eligible members have the highest sum,
  and is shared equally by those members. Only eligible members count, in the sum and in the
  share, so the pod's total shown on the award is exactly what the paid players rolled and no
  unverified card can decide a prize.
- Ties under "split" share the amounts of the places the tied players cover (two tied for 1st
  with two places share 1st + 2nd); the cents are divided by `split_cents`, so a category
  never pays more or less than its amounts. Ties under "roll_off" are settled by dice, every
  throw kept (see the two phases below).
- `one_prize_per_player`: categories are awarded in `priority` order (lowest first, list order
  among equals) and a player who already won a prize is skipped by later ones; the award that
  moved up says whom it passed in `moved_up_because`. Only prizes ranked from the totals
  (pod or overall scope) take part: a judged or traveling prize goes to the person named, and
  a group prize to a whole pod, so they neither block a player nor are blocked.

Roll-offs come in two phases, as in `scoring.rules.advancement`: at a venue the dice are
thrown after the cards are in. `pending_prize_roll_offs` names the ties that need dice now,
given the faces entered so far (a mapping from a tie's `key`, f"{category}:{group}:{place}", to
its faces). Staff roll, the faces are added and the call is repeated until nothing is
pending; `award_prizes` with the same mapping gives the result. With `one_prize_per_player`,
a tie that decides who is still free for a later category holds that category back until it
is thrown. Passing one seeded `random.Random` (or `DieSource`) instead rolls on screen: it
runs exactly those phases, throwing the pending ties in the order listed, so a replay from
the recorded faces gives the same result. Entered faces belong to the tie they were thrown
for; if a correction changes who is tied, the service should discard them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby, pairwise

from scoring.rules.dice import DieSource
from scoring.rules.errors import EngineBug, RuleError
from scoring.rules.tiebreak import RollOff, roll_off

PlayerId = int | str  # one type per call, so that players sort into a replayable order
PodId = int | str
ScopeGroup = int | str  # a pod id, or OVERALL
Dice = random.Random | DieSource | Sequence[int]
PrizeDice = random.Random | DieSource | Mapping[str, Dice]
Named = Mapping[str, Mapping[ScopeGroup, PlayerId | PodId | Sequence[PlayerId | PodId]]]

OVERALL = "overall"
COUNTED: dict[str, str] = {
    "most_buncos": "buncos",
    "most_minis": "minis",
    "most_wins": "wins",
    "most_losses": "losses",
}
NAMED_MEASURES = ("traveling_holder", "judged")
MEASURES = (*COUNTED, "even_split", "last_bunco", *NAMED_MEASURES)
SCOPES = ("pod", "overall", "pod_group")
TIE_POLICIES = ("split", "roll_off")
# A prize list's bounds: places per category, and an amount ($100,000) well inside an award's
# column (a 32-bit number of cents).
MAX_PLACES = 20
MAX_CENTS = 10_000_000
_GROUP_MEASURES = (*COUNTED, "judged")
_NOUNS = {
    "most_buncos": "buncos",
    "most_minis": "mini buncos",
    "most_wins": "wins",
    "most_losses": "losses",
}
_NOBODY_SCORED = {
    "most_buncos": "No eligible player rolled a bunco",
    "most_minis": "No eligible player rolled a mini bunco",
    "most_wins": "No eligible player won a round",
    "most_losses": "No eligible player lost a round",
    "even_split": "No eligible player has as many wins as losses",
    "last_bunco": "No eligible player rolled a bunco",
}


def _whole(value: object, minimum: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _is_id(value: object) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """One player's verified totals for the prizes, and whether they may be paid at all.

    `last_bunco` is where the player's last bunco stands in the order the stage's buncos were
    recorded: 1 for the first recorded, larger for later; players credited in the same save
    share a number. `None` when they rolled none. The service owns the order (and puts a bunco
    staff marked as the last one after all the others); the engine only compares the numbers.
    """

    player: PlayerId
    pod: PodId
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    minis: int = 0
    snake_eyes: int = 0  # carried with the card's counts; no sheet gives a prize for it
    last_bunco: int | None = None
    eligible: bool = True
    reason: str = ""  # why not eligible: "Card not verified", "Not present"

    def __post_init__(self) -> None:
        if not _is_id(self.player):
            raise RuleError(f"A player id is a number or text, not {self.player!r}.")
        if not _is_id(self.pod) or self.pod == OVERALL:
            raise RuleError(
                f"Player {self.player!r}: a pod id is a number or text other than "
                f"{OVERALL!r}, not {self.pod!r}."
            )
        for key in ("wins", "losses", "buncos", "minis", "snake_eyes"):
            value = getattr(self, key)
            if not _whole(value):
                raise RuleError(
                    f"{key.replace('_', ' ').capitalize()} of player {self.player!r} must be "
                    f"a whole number of 0 or more, not {value!r}."
                )
        if self.last_bunco is not None:
            if not _whole(self.last_bunco):
                raise RuleError(
                    f"The last bunco of player {self.player!r} is a place in the order the "
                    f"buncos were recorded (0 or more), not {self.last_bunco!r}."
                )
            if self.buncos == 0:
                raise RuleError(
                    f"Player {self.player!r} has a last bunco but no buncos; check the card."
                )


@dataclass(frozen=True, slots=True)
class PrizeCategory:
    """One prize as the organiser set it up; one amount per place, 1st place first."""

    key: str
    label: str
    measure: str
    scope: str
    amounts_cents: tuple[int, ...]
    tie_policy: str = "split"
    priority: int = 0  # lower is awarded first (matters under one_prize_per_player)

    def __post_init__(self) -> None:
        if not isinstance(self.amounts_cents, tuple | list):
            raise RuleError(
                f"{self.label}: the amounts are a list of whole cents, one per place, "
                f"not {type(self.amounts_cents).__name__}."
            )
        object.__setattr__(self, "amounts_cents", tuple(self.amounts_cents))
        if not isinstance(self.key, str) or not self.key or ":" in self.key:
            raise RuleError(f"A prize key is non-empty text without ':', not {self.key!r}.")
        if self.measure not in MEASURES:
            raise RuleError(
                f"{self.label}: choose a measure from {', '.join(MEASURES)}, not {self.measure!r}."
            )
        if self.scope not in SCOPES:
            raise RuleError(
                f"{self.label}: choose a scope from {', '.join(SCOPES)}, not {self.scope!r}."
            )
        if self.tie_policy not in TIE_POLICIES:
            raise RuleError(
                f"{self.label}: ties are settled by {' or '.join(TIE_POLICIES)}, "
                f"not {self.tie_policy!r}."
            )
        if not 1 <= len(self.amounts_cents) <= MAX_PLACES:
            raise RuleError(
                f"{self.label}: give one amount in cents per place, 1 to {MAX_PLACES} places."
            )
        for amount in self.amounts_cents:
            if not _whole(amount) or amount > MAX_CENTS:
                raise RuleError(
                    f"{self.label}: amount {amount!r:.40} is not an amount of money; give "
                    f"one amount in cents (0 to {MAX_CENTS:,}) per place."
                )
        if not isinstance(self.priority, int) or isinstance(self.priority, bool):
            raise RuleError(f"{self.label}: the priority is a whole number.")
        if self.scope == "pod_group" and self.measure not in _GROUP_MEASURES:
            raise RuleError(
                f"{self.label}: a pod_group prize sums {', '.join(COUNTED)} or is judged; "
                f"{self.measure!r} cannot be summed over a pod."
            )
        if self.measure == "traveling_holder" and (self.scope == "pod_group" or self.places > 1):
            raise RuleError(f"{self.label}: one player holds the traveling item at the end.")

    @property
    def places(self) -> int:
        return len(self.amounts_cents)

    @property
    def total_cents(self) -> int:
        return sum(self.amounts_cents)


@dataclass(frozen=True)
class Award:
    """One place paid: a player, tied players sharing it, or a pod's eligible members.

    `scope_group` is the pod for a pod prize, else "overall"; `pod` names the winning pod of
    a group prize. `amount_cents_each` lines up with `players`. `value` is the count the place
    was won on (the pod's sum for a group prize), `None` for a measure without one.
    """

    category_key: str
    label: str
    scope_group: ScopeGroup
    place: int
    players: tuple[PlayerId, ...]
    amount_cents_each: tuple[int, ...]
    via_roll_off: bool = False
    roll_off: RollOff | None = None
    note: str = ""
    value: int | None = None
    pod: PodId | None = None
    moved_up_because: str = ""

    @property
    def total_cents(self) -> int:
        return sum(self.amount_cents_each)


@dataclass(frozen=True, slots=True)
class Unawarded:
    """A place nobody is paid for, and why, so the payout sheet can say so."""

    category_key: str
    label: str
    scope_group: ScopeGroup
    place: int
    reason: str


@dataclass(frozen=True, slots=True)
class PrizeTie:
    """A roll-off still to throw: `players` (pods, for a group prize) for `places` places."""

    key: str  # f"{category_key}:{scope_group}:{first_place}", the key its dice go under
    category_key: str
    label: str
    scope_group: ScopeGroup
    first_place: int
    places: int
    players: tuple[PlayerId | PodId, ...]
    value: int | None


@dataclass(frozen=True)
class PrizeResult:
    """Every place of every category, paid or not, in priority, group and place order."""

    awards: tuple[Award, ...]
    unawarded: tuple[Unawarded, ...]


def split_cents(total_cents: int, shares: int) -> tuple[int, ...]:
    """Divide exactly: everyone gets the floor, the first `total % shares` one cent more.

    Callers list the sharers in id order, so the extra cents go in player (or pod) id order,
    a rule anyone can check on the payout sheet.
    """
    if not _whole(total_cents) or not _whole(shares, minimum=1):
        raise EngineBug(f"Cannot split {total_cents!r} cents {shares!r} ways.")
    base, extra = divmod(total_cents, shares)
    return tuple(base + 1 if n < extra else base for n in range(shares))


def check_categories(categories: Iterable[PrizeCategory]) -> tuple[PrizeCategory, ...]:
    """The categories in the order they are awarded; each key once, as dice are keyed by it."""
    ordered = sorted(categories, key=lambda c: c.priority)  # stable: list order among equals
    keys = [c.key for c in ordered]
    for key in keys:
        if keys.count(key) > 1:
            raise RuleError(f"The prize key {key!r} is used twice.")
    return tuple(ordered)


def faces_thrown(rolled: RollOff) -> tuple[int, ...]:
    """Every face of a roll-off in the order thrown: what a staff screen stores for a tie."""
    return tuple(face for faces in rolled.rounds for face in faces.values())


def settle_prize_tie(tie: PrizeTie, dice: Dice) -> RollOff:
    """Roll off only the places the tie covers; entered faces must all be used."""
    if isinstance(dice, random.Random) or callable(dice):
        return roll_off(tie.players, dice, places=tie.places)
    faces = list(dice)
    result = roll_off(tie.players, iter(faces).__next__, places=tie.places)
    used = len(faces_thrown(result))
    if used != len(faces):
        raise RuleError(
            f"{len(faces)} dice were entered for the {tie.label} roll-off ({tie.key}), but it "
            f"was decided after {used}; check the entry."
        )
    return result


def pending_prize_roll_offs(
    totals: Iterable[PlayerTotals],
    categories: Iterable[PrizeCategory],
    *,
    named: Named | None = None,
    dice: Mapping[str, Dice] | None = None,
    one_prize_per_player: bool = False,
) -> tuple[PrizeTie, ...]:
    """The roll-offs to throw next, given the dice entered so far; empty once all are in."""
    if dice is not None and not isinstance(dice, Mapping):
        raise TypeError("Entered dice are a mapping from a tie's key to its faces.")
    return _decide(totals, categories, named, dice or {}, one_prize_per_player)[1]


def award_prizes(
    totals: Iterable[PlayerTotals],
    categories: Iterable[PrizeCategory],
    *,
    named: Named | None = None,
    dice: PrizeDice | None = None,
    one_prize_per_player: bool = False,
) -> PrizeResult:
    """Award every category (see the module for the rules and the two phases of dice).

    `named` maps a judged or traveling category's key to its winners per scope group (a pod,
    or "overall"): one id, or a list or tuple of ids in place order (pods for a group prize).
    `dice` is the mapping of entered faces, or one `random.Random`/`DieSource` to roll every
    tie on screen.
    """
    totals = tuple(totals)
    categories = tuple(categories)
    if dice is None or isinstance(dice, Mapping):
        entered: Mapping[str, Dice] = dice or {}
    elif isinstance(dice, random.Random) or callable(dice):
        entered = _roll_pending(totals, categories, named, dice, one_prize_per_player)
    else:
        raise TypeError("Dice are a random.Random, a DieSource or a mapping of entered faces.")
    result, pending, used = _decide(totals, categories, named, entered, one_prize_per_player)
    if pending:
        tie = pending[0]
        raise RuleError(
            f"{tie.label} ({_where(tie.scope_group)}) needs a roll-off between "
            f"{', '.join(map(str, tie.players))} before prizes can be awarded."
        )
    unused = set(entered) - used
    if unused:
        raise RuleError(
            f"Dice were entered for {', '.join(sorted(unused))}, which needs no roll-off; "
            "remove them."
        )
    assert result is not None  # _decide builds a result whenever nothing is pending
    return result


def _roll_pending(
    totals: tuple[PlayerTotals, ...],
    categories: tuple[PrizeCategory, ...],
    named: Named | None,
    stream: random.Random | DieSource,
    one_prize_per_player: bool,
) -> dict[str, Dice]:
    """Throw the pending ties in the order listed, phase by phase, as staff would."""
    entered: dict[str, Dice] = {}
    while pending := _decide(totals, categories, named, entered, one_prize_per_player)[1]:
        for tie in pending:
            if tie.key in entered:
                raise EngineBug(f"The roll-off {tie.key} is pending after it was thrown.")
            entered[tie.key] = faces_thrown(settle_prize_tie(tie, stream))
    return entered


def _decide(
    totals: Iterable[PlayerTotals],
    categories: Iterable[PrizeCategory],
    named: Named | None,
    dice: Mapping[str, Dice],
    one_prize_per_player: bool,
) -> tuple[PrizeResult | None, tuple[PrizeTie, ...], set[str]]:
    """The one walk behind both phases, so asking first and settling later cannot differ."""
    walk = _Walk(_check_totals(totals), dice, one_prize_per_player)
    ordered = check_categories(categories)
    names = walk.check_named(named or {}, ordered)
    for category in ordered:
        for group in walk.pods if category.scope == "pod" else (OVERALL,):
            if category.measure in NAMED_MEASURES:
                walk.named(category, group, names.get((category.key, group), ()))
            elif category.scope == "pod_group":
                walk.pod_group(category)
            else:
                walk.ranked_players(category, group)
    if walk.pending:
        return None, tuple(walk.pending), walk.used
    return PrizeResult(tuple(walk.awards), tuple(walk.unawarded)), (), walk.used


def _check_totals(totals: Iterable[PlayerTotals]) -> tuple[PlayerTotals, ...]:
    """Sort by player so the result does not depend on the order the totals came in."""
    given = tuple(totals)
    if not given:
        raise RuleError("Prizes need the players' totals; none were given.")
    for kind, ids in (("Player", [t.player for t in given]), ("Pod", [t.pod for t in given])):
        if len({type(i) for i in ids}) > 1:
            raise RuleError(f"{kind} ids must be all numbers or all text in one call.")
    ordered = tuple(sorted(given, key=lambda t: t.player))
    for before, after in pairwise(ordered):
        if before.player == after.player:
            raise RuleError(f"Player {after.player!r} has two sets of totals.")
    return ordered


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _places_text(first: int, count: int) -> str:
    if count == 1:
        return f"{_ordinal(first)} place amount"
    joint = " and " if count == 2 else " to "
    return f"{_ordinal(first)}{joint}{_ordinal(first + count - 1)} place amounts"


def _where(group: ScopeGroup) -> str:
    return "the whole event" if group == OVERALL else f"pod {group}"


def _names(ids: Iterable[Hashable], show: Callable[[Hashable], str]) -> str:
    return ", ".join(show(i) for i in ids)


def _player_name(player: Hashable) -> str:
    return str(player)


def _pod_name(pod: Hashable) -> str:
    return f"pod {pod}"


@dataclass(frozen=True, slots=True)
class _Entry:
    """A player or pod in a ranking: `rank` orders (higher first), `value` is shown."""

    id: PlayerId | PodId
    rank: int
    value: int | None


@dataclass(frozen=True, slots=True)
class _Placing:
    """A place decided by the ranking: one winner, or tied winners sharing `cents`."""

    place: int
    ids: tuple[PlayerId | PodId, ...]
    cents: tuple[int, ...]
    rank: int
    value: int | None
    note: str
    roll_off: RollOff | None = None


@dataclass(frozen=True)
class _Outcome:
    placings: tuple[_Placing, ...]
    first_unfilled: int
    waiting: tuple[PrizeTie, ...]


class _Walk:
    """State of one pass over the categories: who already won, and what still needs dice."""

    def __init__(
        self, totals: tuple[PlayerTotals, ...], dice: Mapping[str, Dice], one_prize: bool
    ) -> None:
        self.totals = totals
        self.by_player = {t.player: t for t in totals}
        self.pods = tuple(sorted({t.pod for t in totals}))
        self.by_pod = {pod: tuple(t for t in totals if t.pod == pod) for pod in self.pods}
        self.dice = dice
        self.one_prize = one_prize
        self.won: dict[PlayerId, str] = {}  # player -> the prize that blocks them
        self.undecided: set[PlayerId] = set()  # may or may not win, pending a roll-off
        self.awards: list[Award] = []
        self.unawarded: list[Unawarded] = []
        self.pending: list[PrizeTie] = []
        self.used: set[str] = set()

    def check_named(
        self, named: Named, categories: tuple[PrizeCategory, ...]
    ) -> dict[tuple[str, ScopeGroup], tuple[PlayerId | PodId, ...]]:
        """Winners named by a person, checked against the categories and who is in scope."""
        by_key = {c.key: c for c in categories}
        checked: dict[tuple[str, ScopeGroup], tuple[PlayerId | PodId, ...]] = {}
        for key, groups in named.items():
            category = by_key.get(key)
            if category is None or category.measure not in NAMED_MEASURES:
                raise RuleError(
                    f"Winners are named only for judged and traveling prizes, not for {key!r}."
                )
            valid = self.pods if category.scope == "pod" else (OVERALL,)
            for group, winners in groups.items():
                if group not in valid:
                    raise RuleError(f"{category.label} has no group {group!r}.")
                ids = tuple(winners) if isinstance(winners, list | tuple) else (winners,)
                if len(ids) > category.places:
                    raise RuleError(
                        f"{category.label} ({_where(group)}) has {category.places} place(s), "
                        f"but {len(ids)} winners were named."
                    )
                if len(set(ids)) != len(ids):
                    raise RuleError(f"{category.label} names the same winner twice.")
                for winner in ids:
                    self._check_in_scope(category, group, winner)
                checked[key, group] = ids
        return checked

    def _check_in_scope(
        self, category: PrizeCategory, group: ScopeGroup, winner: PlayerId | PodId
    ) -> None:
        if category.scope == "pod_group":
            if winner not in self.by_pod:
                raise RuleError(f"{category.label}: there is no pod {winner!r}.")
            return
        totals = self.by_player.get(winner)
        if totals is None:
            raise RuleError(f"{category.label}: there is no player {winner!r}.")
        if group != OVERALL and totals.pod != group:
            raise RuleError(
                f"{category.label} (pod {group}): player {winner!r} plays in pod {totals.pod}."
            )

    def named(
        self,
        category: PrizeCategory,
        group: ScopeGroup,
        winners: tuple[PlayerId | PodId, ...],
    ) -> None:
        """Pay whom a person named, if they may be paid; a missing name leaves the place open."""
        for place in range(1, category.places + 1):
            if place > len(winners):
                reason = (
                    "Nobody was named as holding the traveling item"
                    if category.measure == "traveling_holder"
                    else "No winner has been chosen"
                )
                self._unfilled(category, group, place, reason)
                continue
            winner = winners[place - 1]
            amount = category.amounts_cents[place - 1]
            if category.scope == "pod_group":
                placing = _Placing(place, (winner,), (amount,), 0, None, "Chosen by the judges")
                self._pod_award(category, placing, winner, amount)
                continue
            totals = self.by_player[winner]
            if not totals.eligible:
                why = totals.reason or "no reason given"
                self._unfilled(category, group, place, f"{winner} is not eligible: {why}")
                continue
            note = (
                "Held the traveling item at the end"
                if category.measure == "traveling_holder"
                else "Chosen by the judges"
            )
            self.awards.append(
                Award(category.key, category.label, group, place, (winner,), (amount,), note=note)
            )

    def pod_group(self, category: PrizeCategory) -> None:
        """Rank pods by the sum of their eligible members; each winning pod's members share."""
        count = COUNTED[category.measure]
        entries = []
        for pod in self.pods:
            members = [t for t in self.by_pod[pod] if t.eligible]
            total = sum(getattr(t, count) for t in members)
            if members and total > 0:
                entries.append(_Entry(pod, total, total))
        outcome = self._place(category, OVERALL, entries, _pod_name)
        for placing in outcome.placings:
            for pod, cents in zip(placing.ids, placing.cents, strict=True):
                self._pod_award(category, placing, pod, cents)
        for place in range(outcome.first_unfilled, category.places + 1):
            if not any(t.eligible for t in self.totals):
                reason = "No pod has an eligible player"
            elif not entries:
                reason = _NOBODY_SCORED[category.measure]
            else:
                reason = f"Not enough pods for {_ordinal(place)} place"
            self._unfilled(category, OVERALL, place, reason)

    def _pod_award(
        self, category: PrizeCategory, placing: _Placing, pod: PodId, cents: int
    ) -> None:
        members = tuple(t.player for t in self.by_pod[pod] if t.eligible)
        if not members:
            self._unfilled(category, OVERALL, placing.place, f"Nobody in pod {pod} is eligible")
            return
        share = f"shared by the {len(members)} eligible members of pod {pod}"
        if placing.value is not None:
            share = f"{placing.value} {_NOUNS[category.measure]}, {share}"
        award = Award(
            category.key,
            category.label,
            OVERALL,
            placing.place,
            members,
            split_cents(cents, len(members)),
            via_roll_off=placing.roll_off is not None,
            roll_off=placing.roll_off,
            note=f"{placing.note}; {share}" if placing.note else share.capitalize(),
            value=placing.value,
            pod=pod,
        )
        self.awards.append(award)

    def ranked_players(self, category: PrizeCategory, group: ScopeGroup) -> None:
        """Rank eligible players by the measure, passing over earlier winners if asked to."""
        members = self.totals if group == OVERALL else self.by_pod[group]
        eligible = [t for t in members if t.eligible]
        scored = [e for t in eligible if (e := _entry(t, category.measure)) is not None]
        if self.one_prize and any(e.id in self.undecided for e in scored):
            self.undecided.update(e.id for e in scored)  # wait for the earlier roll-off
            return
        passed = [e for e in scored if e.id in self.won]  # `won` is kept only for one_prize
        free = [e for e in scored if e.id not in self.won]
        outcome = self._place(category, group, free, _player_name)
        for placing in outcome.placings:
            because = "; ".join(
                f"{e.id} already won {self.won[e.id]}" for e in passed if e.rank >= placing.rank
            )
            award = Award(
                category.key,
                category.label,
                group,
                placing.place,
                placing.ids,
                placing.cents,
                via_roll_off=placing.roll_off is not None,
                roll_off=placing.roll_off,
                note=placing.note,
                value=placing.value,
                moved_up_because=because,
            )
            self.awards.append(award)
        if self.one_prize:
            prize = f"{category.label} ({_where(group)})"
            winners = [p for placing in outcome.placings for p in placing.ids]
            for tie in outcome.waiting:
                if len(tie.players) > tie.places:
                    self.undecided.update(tie.players)
                else:
                    winners += tie.players  # all of them place; only the order is open
            self.won.update(dict.fromkeys(winners, prize))
        for place in range(outcome.first_unfilled, category.places + 1):
            if not eligible:
                reason = f"No eligible player in {_where(group)}"
            elif not scored:
                reason = _NOBODY_SCORED[category.measure]
            elif passed and place <= len(scored):
                reason = f"Everyone left for {_ordinal(place)} place already won a prize"
            else:
                reason = f"Not enough eligible players for {_ordinal(place)} place"
            self._unfilled(category, group, place, reason)

    def _place(
        self,
        category: PrizeCategory,
        group: ScopeGroup,
        entries: Sequence[_Entry],
        show: Callable[[Hashable], str],
    ) -> _Outcome:
        """Give places down the ranking; equal ranks share (split) or throw dice (roll_off)."""
        ranked = sorted(entries, key=lambda e: (-e.rank, e.id))
        amounts = category.amounts_cents
        placings: list[_Placing] = []
        waiting: list[PrizeTie] = []
        place = 1
        for rank, tier_entries in groupby(ranked, key=lambda e: e.rank):
            if place > category.places:
                break
            tier = tuple(tier_entries)
            ids = tuple(e.id for e in tier)
            value = tier[0].value
            if len(tier) == 1:
                placings.append(_Placing(place, ids, (amounts[place - 1],), rank, value, ""))
            elif category.tie_policy == "split":
                covered = amounts[place - 1 : place - 1 + len(tier)]
                shared = _places_text(place, len(covered))
                note = f"{len(tier)} tied for {_ordinal(place)} share the {shared}"
                cents = split_cents(sum(covered), len(tier))
                placings.append(_Placing(place, ids, cents, rank, value, note))
            else:
                tie = PrizeTie(
                    f"{category.key}:{group}:{place}",
                    category.key,
                    category.label,
                    group,
                    place,
                    min(len(tier), category.places - place + 1),
                    ids,
                    value,
                )
                chosen = self.dice.get(tie.key)
                if chosen is None:
                    waiting.append(tie)
                else:
                    self.used.add(tie.key)
                    rolled = settle_prize_tie(tie, chosen)
                    for n, winner in enumerate(rolled.order[: tie.places]):
                        others = _names((i for i in ids if i != winner), show)
                        note = f"Won {_ordinal(place + n)} place in a roll-off with {others}"
                        cents = (amounts[place - 1 + n],)
                        placings.append(
                            _Placing(place + n, (winner,), cents, rank, value, note, rolled)
                        )
            place += len(tier)
        self.pending += waiting
        return _Outcome(tuple(placings), min(place, category.places + 1), tuple(waiting))

    def _unfilled(
        self, category: PrizeCategory, group: ScopeGroup, place: int, reason: str
    ) -> None:
        self.unawarded.append(Unawarded(category.key, category.label, group, place, reason))


def _entry(totals: PlayerTotals, measure: str) -> _Entry | None:
    """Where a player ranks on a measure, or `None` when they have nothing to rank by."""
    if measure in COUNTED:
        count = getattr(totals, COUNTED[measure])
        return _Entry(totals.player, count, count) if count > 0 else None
    if measure == "even_split":
        # Everyone with an even split is equally good: one shared rank, no count to show.
        return _Entry(totals.player, 0, None) if totals.wins == totals.losses > 0 else None
    if measure == "last_bunco":
        order = totals.last_bunco
        return None if order is None else _Entry(totals.player, order, None)
    raise EngineBug(f"The measure {measure!r} is not ranked from totals.")


MESQUITE: tuple[PrizeCategory, ...] = (
    PrizeCategory("buncos", "Most Buncos", "most_buncos", "pod", (10_000,), "roll_off", 10),
    PrizeCategory("minis", "Most Minis", "most_minis", "pod", (5_000,), "roll_off", 20),
    PrizeCategory("wins", "Most Wins", "most_wins", "pod", (4_000,), "roll_off", 30),
    PrizeCategory("costume", "Best Costume", "judged", "pod", (2_500,), priority=40),
    PrizeCategory(
        "team_buncos",
        "Team with Overall Most Buncos",
        "most_buncos",
        "pod_group",
        (10_000,),
        "roll_off",
        50,
    ),
    PrizeCategory(
        "team_costume", "Team with Best Costume", "judged", "pod_group", (2_500,), priority=60
    ),
)
"""The Mesquite staff-verified sheet: each team (pod) pays four winners, then two team prizes.

The sheet settles every tie with dice, so ties for a counted prize are rolled off; the
costumes are judged, so no tie policy applies to them.
"""

CLASSIC: tuple[PrizeCategory, ...] = (
    PrizeCategory("buncos", "Most Buncos", "most_buncos", "overall", (2_000,), "split", 10),
    PrizeCategory("minis", "Most Mini Buncos", "most_minis", "overall", (1_000,), "split", 20),
    PrizeCategory("wins", "Most Wins", "most_wins", "overall", (1_500,), "split", 30),
    PrizeCategory(
        "even_split", "Half Wins and Half Losses", "even_split", "overall", (1_000,), "split", 40
    ),
    PrizeCategory("last_bunco", "Last Bunco", "last_bunco", "overall", (1_000,), "split", 50),
    PrizeCategory("losses", "Most Losses", "most_losses", "overall", (1_000,), "split", 60),
    PrizeCategory("traveling", "Traveling", "traveling_holder", "overall", (1_000,), priority=70),
)
"""The complete rules' "Optional rule: Prize categories", for the whole party.

The sheet suggests categories but no amounts or tie rule: the amounts are placeholders the
organiser edits, and ties are shared, which needs no dice at a home party.
"""

MINGLE: tuple[PrizeCategory, ...] = (
    PrizeCategory("wins", "Most Wins", "most_wins", "pod", (2_000,), "roll_off", 10),
    PrizeCategory("losses", "Most Losses", "most_losses", "pod", (2_000,), "roll_off", 20),
    PrizeCategory(
        "fuzzy_die", "Bunco Fuzzy Die holder", "traveling_holder", "overall", (2_000,), priority=30
    ),
)
"""The Mingle event sheet: most wins and most losses in each pod of 12, and whoever holds
the (one) Bunco Fuzzy Die at the end of the evening. Amounts are placeholders; ties are
settled as the sheet's TIES rule says, one die each, highest wins.
"""

ROLLING_FOR_PINK: tuple[PrizeCategory, ...] = ()
"""The Rolling for Pink sheet names no prize categories: its only prize is the grand prize,
won at the final table (see `scoring.rules.final`), so its template is empty.
"""

TEMPLATES: dict[str, tuple[PrizeCategory, ...]] = {
    "mesquite": MESQUITE,
    "classic": CLASSIC,
    "mingle": MINGLE,
    "rolling-for-pink": ROLLING_FOR_PINK,
}
"""Each rule sheet's prize list by preset name; tuples, so editing a copy leaves these intact."""
