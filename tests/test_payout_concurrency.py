"""Two admins pressing Pay at the same moment, on two real PostgreSQL connections.

Each thread gets its own connection from Django; a barrier releases both just before `pay`,
so they really race. The award's row lock makes the second wait for the first and then see
its payment: exactly one Payout, and the other admin is told who paid. Different awards are
both paid. Paying while the awards are recomputed: one goes through, never a deadlock.
"""

from functools import partial

import pytest

from tests.support.events import (
    award_everything,
    awarded_directly,
    played_without_prizes,
    rehearsal_organiser,
)
from tests.support.factories import UserFactory, checked_in, grant
from tests.support.races import at_once
from tournaments.foundation.errors import UserFacingError
from tournaments.models import LedgerEntry, Payout, PrizeAward
from tournaments.services import payouts, prizes

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(attempts):
    """Each (award, actor) paid from its own connection, all at once."""
    return at_once(
        *(
            partial(payouts.pay, award, actor=actor, present=True, id_checked=True)
            for award, actor in attempts
        )
    )


@pytest.fixture
def setup(tournament):
    """Two awarded shares and two admins; awards made directly, as the service stores them."""
    ann, bea = UserFactory(username="ann-admin"), UserFactory(username="bea-admin")
    for user in (ann, bea):
        grant(tournament, user, "admin")
    awards = awarded_directly(tournament, checked_in(tournament, 2))
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
        payouts.void(paid[0], actor=ann, reason="Race rehearsal")


def test_two_different_awards_paid_at_once_are_both_paid(setup):
    awards, ann, bea = setup
    outcomes = race([(awards[0], ann), (awards[1], bea)])
    assert all(isinstance(o, Payout) for o in outcomes), outcomes
    assert {o.award_id for o in outcomes} == {a.pk for a in awards}
    assert Payout.objects.filter(voided_at__isnull=True).count() == 2


RECOMPUTE_RACES = 20


def test_paying_while_the_awards_are_recomputed_pays_or_recomputes_never_both(monkeypatch):
    """Pay and Award (recompute) pressed at once: whichever takes the tournament's lock first
    (locks.py) goes through, the other is told why in plain words; never a deadlock, never
    a payment of an award the recompute replaced."""
    tournament = played_without_prizes(monkeypatch)
    organiser = rehearsal_organiser()
    cashier = UserFactory(username="cashier")
    award_everything(tournament, organiser)
    paid_first = recomputed_first = 0
    for attempt in range(RECOMPUTE_RACES):
        award = tournament.awards.current().order_by("pk").first()
        paid, recomputed = at_once(
            partial(payouts.pay, award, actor=cashier, present=True, id_checked=True),
            partial(prizes.award, tournament, actor=organiser),
        )
        refused = [o for o in (paid, recomputed) if isinstance(o, Exception)]
        assert len(refused) == 1, (attempt, paid, recomputed)
        assert isinstance(refused[0], UserFacingError), refused  # not a deadlock
        if isinstance(paid, Payout):
            paid_first += 1
            assert recomputed.message.startswith("Prizes are being paid")
            assert list(Payout.objects.values_list("award_id", flat=True)) == [award.pk]
            assert PrizeAward.objects.filter(pk=award.pk).exists()
            assert LedgerEntry.objects.filter(award=award, kind="payout").count() == 1
            # Only so that the next race can recompute again: a payment is never deleted.
            LedgerEntry.objects.filter(award__isnull=False).delete()
            Payout.objects.all().delete()
        else:
            recomputed_first += 1
            assert paid.message == payouts.RECOMPUTED
            assert (
                not Payout.objects.exists()
                and not LedgerEntry.objects.filter(kind="payout").exists()
            )
            # The award paid for was superseded (kept, never deleted) by the recompute.
            assert not PrizeAward.objects.current().filter(pk=award.pk).exists()
            assert PrizeAward.objects.filter(pk=award.pk, superseded_at__isnull=False).exists()
            assert len(recomputed) == tournament.awards.current().count()
    assert paid_first + recomputed_first == RECOMPUTE_RACES
