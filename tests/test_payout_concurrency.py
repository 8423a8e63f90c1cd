"""Two admins pressing Pay at the same moment, on two real PostgreSQL connections.

Each thread gets its own connection from Django; a barrier releases both just before `pay`,
so they really race. The award's row lock makes the second wait for the first and then see
its payment: exactly one Payout, and the other admin is told who paid. Different awards do
not wait for each other.
"""

from functools import partial

import pytest

from tests.factories import UserFactory, grant
from tests.helpers import at_once, checked_in
from tournaments.models import Payout, PrizeAward, PrizeCategory
from tournaments.services import prizes
from tournaments.services.errors import UserFacingError

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(attempts):
    """Each (award, actor) paid from its own connection, all at once."""
    return at_once(
        *(
            partial(prizes.pay, award, actor=actor, present=True, id_checked=True)
            for award, actor in attempts
        )
    )


@pytest.fixture
def setup(tournament):
    """Two awarded shares and two admins; awards made directly, as the service stores them."""
    ann, bea = UserFactory(username="ann-admin"), UserFactory(username="bea-admin")
    for user in (ann, bea):
        grant(tournament, user, "admin")
    category = PrizeCategory.objects.create(
        tournament=tournament,
        key="buncos",
        label="Most Buncos",
        measure="most_buncos",
        scope="overall",
        amounts_cents=[5000, 5000],
    )
    first, second = checked_in(tournament, 2)
    awards = [
        PrizeAward.objects.create(
            tournament=tournament,
            category=category,
            scope_group="overall",
            place=place,
            player=player,
            amount_cents=5000,
        )
        for place, player in ((1, first), (2, second))
    ]
    return awards, ann, bea


def test_two_admins_paying_the_same_award_at_once_pay_it_once(setup):
    awards, ann, bea = setup
    award = awards[0]
    for attempt in range(3):  # a few times: the interleaving differs run to run
        outcomes = race([(award, ann), (award, bea)])
        paid = [o for o in outcomes if isinstance(o, Payout)]
        refused = [o for o in outcomes if isinstance(o, Exception)]
        assert len(paid) == 1 and len(refused) == 1, outcomes
        assert isinstance(refused[0], UserFacingError), refused
        live = list(Payout.objects.filter(award=award, voided_at__isnull=True))
        assert [p.pk for p in live] == [paid[0].pk]
        assert Payout.objects.filter(award=award).count() == attempt + 1
        # The lock made the loser wait, then see the payment: it is told who paid.
        winner = paid[0].paid_by.username
        assert refused[0].message.startswith(f"Already paid: $50.00 to {award.player.name} by ")
        assert f" by {winner} at " in refused[0].message
        # Voided, the prize may be paid again: the next race starts from there.
        prizes.void(paid[0], actor=ann, reason="Race rehearsal")


def test_two_different_awards_paid_at_once_are_both_paid(setup):
    awards, ann, bea = setup
    outcomes = race([(awards[0], ann), (awards[1], bea)])
    assert all(isinstance(o, Payout) for o in outcomes), outcomes
    assert {o.award_id for o in outcomes} == {a.pk for a in awards}
    assert Payout.objects.filter(voided_at__isnull=True).count() == 2
