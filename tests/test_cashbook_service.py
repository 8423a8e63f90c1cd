"""The cash book's services: every amount exact to the cent, nothing edited, boxes closing."""

import uuid

import pytest

from tests.support.events import awarded_directly, charging
from tests.support.factories import PlayerFactory
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, CashBox, LedgerEntry
from tournaments.models.cashbook import Immutable
from tournaments.rules import cashbook as book
from tournaments.services import cash_boxes, cashbook, payouts
from tournaments.services import ledger as ledger_service

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(tournament):
    return charging(tournament)


@pytest.fixture
def players(event):
    return PlayerFactory.create_batch(4, tournament=event)


def test_fees_donations_prizes_give_backs_reversals_and_expenses_add_up(event, players, organiser):
    cashbook.pay_fee(players[0], method=book.CASH, actor=organiser)
    cashbook.pay_fee(players[1], method=book.CARD, actor=organiser)
    cashbook.pay_fee(players[2], method=book.COMPED, reason="Volunteer", actor=organiser)
    mistake = cashbook.pay_fee(players[3], method=book.CASH, actor=organiser).entry
    cashbook.reverse(mistake, actor=organiser, reason="Paid online the day before")
    cashbook.pay_fee(players[3], method=book.ONLINE, actor=organiser)
    cashbook.donate(
        event, amount_cents=12_34, method=book.CASH, box=book.DESK, donor="Ann", actor=organiser
    )
    (award,) = awarded_directly(event, players[:1], cents=75_01)
    payouts.pay(award, actor=organiser, present=True, id_checked=True, give_back_cents=25_00)
    cashbook.expense(
        event, amount_cents=9_99, method=book.CASH, box=book.DESK, note="Dice", actor=organiser
    )
    t = cashbook.totals(event)
    assert t.fees_cents == 60_00 and t.fees_count == 4 and t.comped_count == 1
    assert t.donations_cents == 12_34
    assert t.prizes_paid_cents == 75_01 and t.given_back_cents == 25_00
    assert t.expenses_cents == 9_99
    assert t.money_in_cents == 60_00 + 12_34 + 25_00
    assert t.net_raised_cents == 97_34 - 75_01 - 9_99 == 12_34
    assert book.balance(cashbook.entries(event)) == t.net_raised_cents
    # Reversing keeps both entries.
    assert LedgerEntry.objects.filter(pk=mistake.pk).exists()
    assert LedgerEntry.objects.get(reverses=mistake).amount_cents == 20_00
    assert cash_boxes.expected_cash(event, book.DESK) == 20_00 + 12_34 - 9_99
    assert cash_boxes.expected_cash(event, book.PRIZE_TABLE) == -75_01 + 25_00
    assert ledger_service.ledger(event).fees_cents == 60_00
    assert ledger_service.ledger(event).charity_cents == 97_34 - 75_01 - 9_99
    # Every entry is audited once: the prize payment under its own code (prizes.paid), the
    # other nine under the cash book's.
    assert AuditEntry.objects.filter(action__startswith="cashbook.").count() == 9
    assert AuditEntry.objects.filter(action="prizes.paid").count() == 1


def test_entries_are_never_edited_or_deleted(event, players, organiser):
    entry = cashbook.pay_fee(players[0], method=book.CASH, actor=organiser).entry
    entry.amount_cents = 1
    with pytest.raises(Immutable):
        entry.save()
    with pytest.raises(Immutable):
        entry.delete()
    with pytest.raises(UserFacingError, match="Say why"):
        cashbook.reverse(entry, actor=organiser, reason=" ")
    reversal = cashbook.reverse(entry, actor=organiser, reason="Wrong person").entry
    with pytest.raises(UserFacingError, match="already reversed"):
        cashbook.reverse(entry, actor=organiser, reason="again")
    with pytest.raises(UserFacingError, match="cannot itself"):
        cashbook.reverse(reversal, actor=organiser, reason="again")


def test_one_fee_per_player_and_the_same_key_returns_the_first_outcome(event, players, organiser):
    key = uuid.uuid4()
    first = cashbook.pay_fee(players[0], method=book.CASH, actor=organiser, key=key)
    again = cashbook.pay_fee(players[0], method=book.CARD, actor=organiser, key=key)
    assert first.changed and not again.changed and again.entry == first.entry
    other = cashbook.pay_fee(players[0], method=book.CARD, actor=organiser)
    assert not other.changed and "already paid" in other.message
    assert LedgerEntry.objects.filter(player=players[0]).count() == 1
    players[0].refresh_from_db()
    assert players[0].checked_in  # one tap checks in and pays


def test_checked_in_unpaid_owes_then_pays(event, players, organiser):
    from tournaments.services import checkin

    checkin.check_in(players[0], organiser)
    assert list(cashbook.owing(event)) == [players[0]]
    event.check_in_open = False
    event.save()
    paid = cashbook.pay_fee(players[0], method=book.CASH, actor=organiser)  # later, desk closed
    assert list(cashbook.owing(event)) == []
    cashbook.reverse(paid.entry, actor=organiser, reason="The note was a fake")
    assert list(cashbook.owing(event)) == [players[0]]  # owes again


def test_comped_needs_a_reason(event, players, organiser):
    with pytest.raises(UserFacingError, match="comped"):
        cashbook.pay_fee(players[0], method=book.COMPED, actor=organiser)
    assert not LedgerEntry.objects.exists()


def test_a_closed_box_refuses_entries(event, players, organiser):
    cash_boxes.set_float(event, book.DESK, 50_00, actor=organiser)
    cashbook.pay_fee(players[0], method=book.CASH, actor=organiser)
    with pytest.raises(UserFacingError, match="say why"):
        cash_boxes.close_box(event, book.DESK, {2000: 3}, reason="", actor=organiser)
    box = cash_boxes.close_box(
        event, book.DESK, {2000: 3, 500: 1}, reason="Kept $5 float aside", actor=organiser
    )
    assert box.counted_cents == 65_00 and box.expected_cents == 70_00
    assert box.difference_cents == -5_00 and box.closed_by == organiser
    # A late fee in cash goes into the box still open (a walk found it refused at the desk
    # with no advice); it is reversed at once so the counts below stay the desk's.
    late_cash = cashbook.pay_fee(players[1], method=book.CASH, actor=organiser)
    assert late_cash.entry.box == book.PRIZE_TABLE
    assert late_cash.message == (
        f"{players[1].name}: fee $20.00 (Cash) for {players[1].name} recorded into the "
        "prize table's box, as the desk's was counted."
    )
    cashbook.reverse(late_cash.entry, actor=organiser, reason="Test of the late fee")
    # A late fee paid by card or comped moves no cash: it is recorded outside the box.
    late = cashbook.pay_fee(players[2], method=book.CARD, actor=organiser).entry
    comped = cashbook.pay_fee(players[3], method=book.COMPED, reason="Volunteer", actor=organiser)
    assert (late.box, comped.entry.box) == ("", "")
    assert cash_boxes.expected_cash(event, book.DESK) == 70_00
    with pytest.raises(UserFacingError, match="closed"):
        cashbook.donate(event, amount_cents=1, method=book.CASH, box=book.DESK, actor=organiser)
    with pytest.raises(UserFacingError, match="closed"):
        cash_boxes.close_box(event, book.DESK, {}, reason="again", actor=organiser)
    assert LedgerEntry.objects.count() == 5  # with the late cash fee and its reversal
    assert AuditEntry.objects.filter(action="cashbook.box_closed").count() == 1
    # A mistake found after the count is still put right, outside the counted box.
    fee = LedgerEntry.objects.get(box=book.DESK, kind=book.FEE)
    made = cashbook.reverse(fee, actor=organiser, reason="Paid twice").entry
    assert made.box == "" and "after the desk was counted" in made.note
    assert cashbook.totals(event).fees_cents == late.amount_cents
    assert cash_boxes.expected_cash(event, book.DESK) == 70_00  # the count stands
    # The prize table's box is still open.
    cashbook.donate(event, amount_cents=1, method=book.CASH, box=book.PRIZE_TABLE, actor=organiser)
    assert CashBox.objects.get(tournament=event, key=book.PRIZE_TABLE).closed_at is None
    # With both boxes counted a late cash fee is refused, saying what to do with the cash.
    cash_boxes.close_box(event, book.PRIZE_TABLE, {1: 1}, reason="", actor=organiser)
    with pytest.raises(UserFacingError, match="keep this fee apart for the treasurer, with the pl"):
        cashbook.pay_fee(players[1], method=book.CASH, actor=organiser)


def test_a_card_donation_after_the_desk_is_counted_is_recorded_outside_the_boxes(
    event, players, organiser
):
    """A reviewer could not record a card donation once the desk's box was closed: the form
    only offered the boxes. Card money is in no box's count, so it goes outside them; cash
    still needs an open box."""
    cash_boxes.close_box(event, book.DESK, {}, reason="", actor=organiser)
    with pytest.raises(UserFacingError, match="Say which box the cash went into."):
        cashbook.donate(event, amount_cents=5_00, method=book.CASH, box="", actor=organiser)
    outcome = cashbook.donate(
        event, amount_cents=20_00, method=book.CARD, box="", donor="Ann", actor=organiser
    )
    assert outcome.entry.box == "" and cashbook.totals(event).donations_cents == 20_00
    assert cash_boxes.expected_cash(event, book.DESK) == 0
    said = AuditEntry.objects.get(action="cashbook.donation").summary
    assert said == "Donation outside the boxes: donation $20.00 (Card) from Ann"


def test_a_late_donation_for_the_counted_desk_is_recorded_or_told_where_to_go(
    event, players, organiser
):
    """Money handed over at a table after the desk's box was counted: the reviewer's donation
    was refused with only "it takes no more entries". Paid by card it moves no cash through
    the box, so it is recorded outside the boxes (as a late fee by card is); in cash it is
    refused, and the refusal names the box still open, where it is then recorded."""
    cash_boxes.close_box(event, book.DESK, {}, reason="", actor=organiser)
    card = cashbook.donate(
        event, amount_cents=20_00, method=book.CARD, box=book.DESK, donor="Bo", actor=organiser
    )
    assert card.entry.box == ""
    assert card.message == (
        "donation $20.00 (Card) from Bo recorded outside the boxes: the desk was already counted."
    )
    with pytest.raises(UserFacingError) as refused:
        cashbook.donate(event, amount_cents=5_00, method=book.CASH, box=book.DESK, actor=organiser)
    assert refused.value.field == "box"
    assert refused.value.message.endswith(
        "it takes no more entries. Choose the prize table instead: that box is still open, "
        "so the cash can go into it."
    )
    with pytest.raises(UserFacingError, match="the prize table instead: .* come out of it."):
        cashbook.expense(
            event, amount_cents=3_00, method=book.CASH, box=book.DESK, note="Ice", actor=organiser
        )
    cash = cashbook.donate(
        event, amount_cents=5_00, method=book.CASH, box=book.PRIZE_TABLE, actor=organiser
    )
    assert cash.entry.box == book.PRIZE_TABLE
    assert cash_boxes.expected_cash(event, book.PRIZE_TABLE) == 5_00
    assert cashbook.totals(event).donations_cents == 25_00
    # With every box counted, no box can hold cash; the message says what to do with it.
    cash_boxes.close_box(event, book.PRIZE_TABLE, {500: 1}, reason="", actor=organiser)
    with pytest.raises(UserFacingError, match="keep this cash apart for the treasurer, with"):
        cashbook.donate(event, amount_cents=1_00, method=book.CASH, box=book.DESK, actor=organiser)
    assert cashbook.totals(event).donations_cents == 25_00


def test_a_voided_prize_reverses_its_entries(event, players, organiser):
    (award,) = awarded_directly(event, players[:1], cents=40_00)
    payout = payouts.pay(
        award, actor=organiser, present=True, id_checked=True, give_back_cents=40_00
    )
    payouts.void(payout, actor=organiser, reason="Wrong winner")
    t = cashbook.totals(event)
    assert t.prizes_paid_cents == 0 and t.given_back_cents == 0
    assert LedgerEntry.objects.filter(kind=book.REVERSAL).count() == 2
    with pytest.raises(UserFacingError, match="at most"):
        payouts.pay(award, actor=organiser, present=True, id_checked=True, give_back_cents=40_01)
    assert award.payouts.filter(voided_at__isnull=True).count() == 0


def test_once_the_prize_box_is_counted_prizes_are_paid_from_the_desks_box(
    event, players, organiser
):
    """A walk found a dead end: with the prize table's box counted, every unpaid or voided
    prize was refused for good ("it takes no more entries"). The count stands; the cash
    comes out of the desk's box while that is open, and with both counted the refusal says
    the treasurer pays later."""
    first, second = awarded_directly(event, players[:2], cents=40_00)
    assert cash_boxes.unpaid_prizes(event) == (2, 80_00)
    assert cash_boxes.payout_note(event) == ""
    cash_boxes.close_box(event, book.PRIZE_TABLE, {}, reason="", actor=organiser)
    assert "paid from the desk's box" in cash_boxes.payout_note(event)
    cashbook.donate(event, amount_cents=50_00, method=book.CASH, box=book.DESK, actor=organiser)
    payouts.pay(first, actor=organiser, present=True, id_checked=True, give_back_cents=5_00)
    assert {(e.kind, e.box) for e in LedgerEntry.objects.filter(award=first)} == {
        (book.PAYOUT, book.DESK),
        (book.GIVE_BACK, book.DESK),
    }
    assert cash_boxes.expected_cash(event, book.DESK) == 50_00 - 40_00 + 5_00
    assert cash_boxes.unpaid_prizes(event) == (1, 40_00)
    # The desk holds fees, not prize money: it pays no more than the book says is in it (a
    # walk paid $280 from a box holding $254.51, and the count then showed money "over").
    with pytest.raises(UserFacingError, match=r"holds \$15.00 by the cash book, less than"):
        payouts.pay(second, actor=organiser, present=True, id_checked=True)
    cash_boxes.close_box(event, book.DESK, {}, reason="Short: prize paid", actor=organiser)
    with pytest.raises(UserFacingError, match="the treasurer pays it later"):
        payouts.pay(second, actor=organiser, present=True, id_checked=True)
    assert not second.payouts.exists()
    assert cash_boxes.payout_note(event) == book.NO_BOX_TO_PAY_FROM


def test_a_comp_is_undone_by_a_free_reversal_and_the_player_owes_again(event, players, organiser):
    """A comp found to be a mistake is reversed like any fee (it raised a 500 when the
    reversal's method broke the "comped is a free fee" rule); the player then owes the fee."""
    comp = cashbook.pay_fee(players[0], method=book.COMPED, reason="Volunteer", actor=organiser)
    assert players[0] not in cashbook.owing(event)
    made = cashbook.reverse(comp.entry, actor=organiser, reason="Not a volunteer after all")
    assert made.entry.kind == book.REVERSAL and made.entry.amount_cents == 0
    assert made.entry.method == book.COMPED and made.entry.reverses_id == comp.entry.pk
    assert players[0] in cashbook.owing(event)
    assert cashbook.totals(event).fees_cents == 0
