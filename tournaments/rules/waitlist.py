"""Who gets a place: the waitlist's and the parties' rules, in plain Python (no database).

The services lock the tournament, read who is registered and who waits, ask these functions
what to do, and save the answer; so the rules can be tested on their own, and two freed
places at once are decided one after the other on the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

ALL_OR_NONE = "all_or_none"
AS_MANY = "as_many"


@dataclass(frozen=True)
class Waiting:
    """One waitlisted registration: its id and its party (None when alone)."""

    player_id: int
    party_id: int | None = None


def admit(free: int, size: int, party_fit: str) -> int:
    """How many of a party of `size` get a place now; the others go on the waitlist.

    All or none: the whole party or nobody, so friends never come half in. As many as fit:
    the first members (in the form's order) take what is free.
    """
    free = max(free, 0)
    if size <= free:
        return size
    return 0 if party_fit == ALL_OR_NONE else free


def promotions(free: int, queue: Sequence[Waiting], party_fit: str) -> list[int]:
    """The waitlisted players who take `free` places, in waitlist order.

    A party waiting under "all or none" moves up together when all of it fits; when it
    does not, the place goes to the next one who fits rather than staying empty all night
    (the party keeps its turn for the next freed places). Under "as many as fit" each member
    is taken one by one like anyone else.
    """
    chosen: list[int] = []
    seen_parties: set[int] = set()
    for waiting in queue:
        if free <= 0:
            break
        party = waiting.party_id
        if party is None or party_fit != ALL_OR_NONE:
            chosen.append(waiting.player_id)
            free -= 1
            continue
        if party in seen_parties:
            continue
        seen_parties.add(party)
        members = [w.player_id for w in queue if w.party_id == party]
        if len(members) <= free:
            chosen.extend(members)
            free -= len(members)
    return chosen


def positions(queue: Sequence[int], moved: int, to: int) -> list[int]:
    """The queue with `moved` taken out and put back at 1-based place `to` (clamped)."""
    rest = [pid for pid in queue if pid != moved]
    if len(rest) == len(queue):
        raise ValueError(f"{moved} is not on the waitlist")
    at = min(max(to, 1), len(rest) + 1) - 1
    return [*rest[:at], moved, *rest[at:]]


def reminder_due(expires_at: datetime, now: datetime, offer_hours: int) -> bool:
    """Whether an offered place is close enough to lapsing for one reminder: the last quarter
    of its time (6 hours of a day's offer, 30 minutes of two hours'), and not yet lapsed. One
    e-mail among many is easily missed, and a missed offer costs the player the place."""
    left = expires_at - now
    return timedelta(0) < left <= timedelta(hours=offer_hours) / 4
