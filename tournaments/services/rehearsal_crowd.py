"""How a rehearsal's players register: online, like a real crowd, through the same services."""

from __future__ import annotations

from ..models import Tournament
from . import player_self, registration

PARTY_SIZE = 3


def register_crowd(tournament: Tournament, people: list[registration.Registrant]) -> None:
    """The first friends register as one party, the event fills, one person cancels from
    their own page and the first on the waitlist takes the place, and one more stays
    waiting. Those who end up registered are `people` in order (the promoted one is the
    last), so a rehearsal's standings still match the simulator's for the same seed.
    """
    if len(people) < 2:
        for person in people:
            registration.register_party(tournament, [person])
        return
    party = PARTY_SIZE if len(people) >= 2 * PARTY_SIZE else 1
    registration.register_party(tournament, people[:party])
    for person in people[party:-1]:
        registration.register_party(tournament, [person])
    leaver = registration.register_party(
        tournament, [registration.Registrant("Les Leaver", "les.leaver@rehearsal.invalid")]
    )[0]
    registration.register_party(tournament, [people[-1]], waitlist_ok=True)
    registration.register_party(
        tournament,
        [registration.Registrant("Wanda Waiting", "wanda.waiting@rehearsal.invalid")],
        waitlist_ok=True,
    )
    player_self.cancel_own_place(leaver)
