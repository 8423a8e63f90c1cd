"""What goes into the prize engine: the organiser's categories and the players' totals.

Both are checked here, when they are made, so the ranking never meets a count that is not a
whole number or a category it cannot award.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scoring.rules.errors import RuleError

PlayerId = int | str  # one type per call, so that players sort into a replayable order
PodId = int | str
ScopeGroup = int | str  # a pod id, or OVERALL
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


def whole(value: object, minimum: int = 0) -> bool:
    """A count or an amount: an int that is not a bool, at least `minimum`."""
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
            if not whole(value):
                raise RuleError(
                    f"{key.replace('_', ' ').capitalize()} of player {self.player!r} must be "
                    f"a whole number of 0 or more, not {value!r}."
                )
        if self.last_bunco is not None:
            if not whole(self.last_bunco):
                raise RuleError(
                    f"The last bunco of player {self.player!r} is a place in the order the "
                    f"buncos were recorded (0 or more), not {self.last_bunco!r}."
                )
            if self.buncos == 0:
                raise RuleError(
                    f"Player {self.player!r} has a last bunco but no buncos; check the card."
                )


@dataclass(frozen=True, slots=True)
class CategoryRule:
    """One prize as the organiser set it up; one amount per place, 1st place first.

    Named for what it is to the engine, a rule to award by, so it never has to be imported
    under another name beside the `PrizeCategory` model it is made from.
    """

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
            if not whole(amount) or amount > MAX_CENTS:
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


def check_categories(categories: Iterable[CategoryRule]) -> tuple[CategoryRule, ...]:
    """The categories in the order they are awarded; each key once, as dice are keyed by it."""
    ordered = sorted(categories, key=lambda c: c.priority)  # stable: list order among equals
    keys = [c.key for c in ordered]
    for key in keys:
        if keys.count(key) > 1:
            raise RuleError(f"The prize key {key!r} is used twice.")
    return tuple(ordered)


def where(group: ScopeGroup) -> str:
    """A scope group in an error message: "the whole event" or "pod 3"."""
    return "the whole event" if group == OVERALL else f"pod {group}"
