"""Two desk phones taking the same player's fee at the same moment, on two PostgreSQL
connections: the player's row lock lets one record the fee; the other is told it was paid.
The same form sent twice at once (one idempotency key) also stores one payment."""

import uuid
from functools import partial

import pytest

from tests.support.events import charging
from tests.support.factories import PlayerFactory, UserFactory, grant
from tests.support.races import at_once
from tournaments.models import AuditEntry, LedgerEntry
from tournaments.rules import cashbook as book
from tournaments.services import cashbook

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def paying(tournament):
    return charging(tournament)


def test_two_desk_phones_paying_the_same_player_store_one_payment(paying, organiser):
    desk = UserFactory(username="desk-two")
    grant(paying, desk, "organiser")
    for player in PlayerFactory.create_batch(3, tournament=paying):
        outcomes = at_once(
            partial(cashbook.pay_fee, player, method=book.CASH, actor=organiser),
            partial(cashbook.pay_fee, player, method=book.CARD, actor=desk),
        )
        assert all(isinstance(o, cashbook.Outcome) for o in outcomes), outcomes
        assert sorted(o.changed for o in outcomes) == [False, True]
        told = next(o for o in outcomes if not o.changed)
        assert told.message.startswith(f"{player.name} already paid at ")
        assert LedgerEntry.objects.filter(player=player).count() == 1
        assert (
            AuditEntry.objects.filter(
                action="cashbook.fee",
                target_id__in=[
                    str(pk)
                    for pk in LedgerEntry.objects.filter(player=player).values_list("pk", flat=True)
                ],
            ).count()
            == 1
        )
    assert cashbook.totals(paying).fees_cents == 3 * 20_00


def test_one_form_sent_twice_at_once_records_one_donation(paying, organiser):
    key = uuid.uuid4()
    give = partial(
        cashbook.donate,
        paying,
        amount_cents=5_00,
        method=book.CASH,
        box=book.DESK,
        actor=organiser,
        key=key,
    )
    outcomes = at_once(give, give)
    recorded = [o for o in outcomes if isinstance(o, cashbook.Outcome)]
    refused = [o for o in outcomes if not isinstance(o, cashbook.Outcome)]
    assert all(isinstance(r, cashbook.UserFacingError) for r in refused), refused
    assert any(o.changed for o in recorded)
    assert LedgerEntry.objects.filter(idempotency_key=key).count() == 1
    assert cashbook.totals(paying).donations_cents == 5_00
