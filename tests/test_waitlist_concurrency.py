"""Two cancellations at the same moment, on real PostgreSQL connections: each freed place
goes to one waitlisted player, in order, and nobody is promoted twice.

Both cancellations lock the tournament row first (locks.py), so the second waits for the
first and then sees its promotion.
"""

from functools import partial

import pytest

from tests.support.events import full_with_waitlist
from tests.support.races import at_once
from tournaments.models import AuditEntry, Player
from tournaments.services.player_self import cancel_own_place
from tournaments.services.players import withdraw

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def statuses(players):
    return [Player.objects.get(pk=p.pk).status for p in players]


@pytest.mark.parametrize("race", range(5))
def test_two_cancellations_at_once_promote_the_first_two_once_each(tournament, organiser, race):
    playing, queue = full_with_waitlist(tournament, "W1", "W2", "W3")
    outcomes = at_once(
        partial(cancel_own_place, playing[0]),
        partial(withdraw, playing[1], actor=organiser),
    )
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    assert statuses(queue) == ["registered", "registered", "waitlisted"]
    promoted = AuditEntry.objects.filter(action="player.promoted")
    assert sorted(int(e.target_id) for e in promoted) == sorted([queue[0].pk, queue[1].pk])
    assert Player.objects.filter(tournament=tournament, status="registered").count() == 4


@pytest.mark.parametrize("race", range(5))
def test_the_same_cancellation_twice_frees_one_place(tournament, race):
    playing, queue = full_with_waitlist(tournament, "W1", "W2")
    outcomes = at_once(partial(cancel_own_place, playing[0]), partial(cancel_own_place, playing[0]))
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(refused) == 1 and "already cancelled" in str(refused[0]), outcomes
    assert statuses(queue) == ["registered", "waitlisted"]
    assert AuditEntry.objects.filter(action="player.promoted").count() == 1
