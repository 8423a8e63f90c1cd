"""What comes out of the prize engine: awards, unawarded places and roll-offs to throw.

Results are ids, numbers and codes, never sentences: a page words them with the players'
names (`tournaments.presenters.prizes`), so nothing has to turn a sentence back into ids.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from enum import StrEnum
from typing import Any

from scoring.rules.errors import EngineBug
from scoring.rules.tiebreak import RollOff

from .categories import PlayerId, PodId, ScopeGroup, whole


class Decided(StrEnum):
    """How a paid place was decided, beyond its rank."""

    RANK = "rank"  # alone at its rank: nothing to add
    SPLIT = "split"  # `tied` players share the amounts of `shared_places` places
    ROLL_OFF = "roll_off"  # won in a roll-off with `rolled_with`
    JUDGED = "judged"  # chosen by the judges
    HELD = "held"  # held the traveling item at the end


@dataclass(frozen=True, slots=True)
class AwardNote:
    """Why a place went where it did, in ids and numbers.

    `place` is the place the note is about (a split tie's first place). A group prize adds
    `pod`, its count of eligible `members` who share, and the pod's `value` (its sum), so the
    note can be stored with each member's share and worded later from the row alone.
    """

    decided: Decided = Decided.RANK
    place: int = 1
    tied: int = 1
    shared_places: int = 1
    rolled_with: tuple[PlayerId | PodId, ...] = ()
    pod: PodId | None = None
    members: int = 0
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Passed:
    """A player an award moved up past under one prize per player, and the prize they won."""

    player: PlayerId
    category_key: str
    label: str
    scope_group: ScopeGroup


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
    note: AwardNote = AwardNote()
    value: int | None = None
    pod: PodId | None = None
    moved_up_because: tuple[Passed, ...] = ()

    @property
    def total_cents(self) -> int:
        return sum(self.amount_cents_each)


class Unfilled(StrEnum):
    """Why a place stays empty; the fields of `Unawarded` a reason uses are beside it."""

    NOBODY_HOLDS = "nobody_holds"  # nobody was named as holding the traveling item
    NOT_CHOSEN = "not_chosen"  # no winner chosen yet
    NOT_ELIGIBLE = "not_eligible"  # the `player` named may not be paid (`why`)
    NO_POD_ELIGIBLE = "no_pod_eligible"  # a group prize, and nobody at all is eligible
    NOBODY_SCORED = "nobody_scored"  # no eligible player (or pod) counts above zero
    NOT_ENOUGH_PODS = "not_enough_pods"
    POD_NOBODY_ELIGIBLE = "pod_nobody_eligible"  # the winning `pod` has no eligible member
    NOBODY_ELIGIBLE = "nobody_eligible"  # no eligible player in the scope group
    ALL_LEFT_WON = "all_left_won"  # everyone left already won a prize (one per player)
    NOT_ENOUGH_PLAYERS = "not_enough_players"


@dataclass(frozen=True, slots=True)
class Unawarded:
    """A place nobody is paid for, and why, so the payout sheet can say so."""

    category_key: str
    label: str
    scope_group: ScopeGroup
    place: int
    reason: Unfilled
    measure: str
    player: PlayerId | None = None
    why: str = ""  # the player's reason for not being eligible, as the service gave it
    pod: PodId | None = None


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
    if not whole(total_cents) or not whole(shares, minimum=1):
        raise EngineBug(f"Cannot split {total_cents!r} cents {shares!r} ways.")
    base, extra = divmod(total_cents, shares)
    return tuple(base + 1 if n < extra else base for n in range(shares))


def note_data(note: AwardNote, passed: tuple[Passed, ...]) -> dict[str, Any]:
    """An award's note and whom it moved up past as JSON-ready data, for an award's row."""
    fields = dict(zip(AwardNote.__slots__, astuple(note), strict=True))
    return {
        "note": {**fields, "decided": str(note.decided), "rolled_with": list(note.rolled_with)},
        "passed": [list(astuple(p)) for p in passed],
    }


def note_from_data(data: dict[str, Any]) -> tuple[AwardNote, tuple[Passed, ...]]:
    """The note and the players passed back from `note_data`'s form."""
    fields = data["note"]
    note = AwardNote(
        **{
            **fields,
            "decided": Decided(fields["decided"]),
            "rolled_with": tuple(fields["rolled_with"]),
        }
    )
    return note, tuple(Passed(*p) for p in data["passed"])
