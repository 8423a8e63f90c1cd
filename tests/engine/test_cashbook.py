"""The cash book's arithmetic, on plain entries: exact to the cent, reversals included."""

import pytest

from tournaments.rules import cashbook as book
from tournaments.rules.cashbook import AmountError, Entry, parse_amount
from tournaments.services.cash_planner import floor_words


def night() -> list[Entry]:
    return [
        Entry(1, book.FEE, book.CASH, 20_00, book.DESK, player=1),
        Entry(2, book.FEE, book.CARD, 20_00, book.DESK, player=2),
        Entry(3, book.FEE, book.COMPED, 0, book.DESK, player=3),
        Entry(4, book.DONATION, book.CASH, 7_55, book.DESK),
        Entry(5, book.PAYOUT, book.CASH, 100_00, book.PRIZE_TABLE, player=1),
        Entry(6, book.GIVE_BACK, book.CASH, 33_33, book.PRIZE_TABLE, player=1),
        Entry(7, book.EXPENSE, book.CASH, 12_99, book.DESK),
        Entry(8, book.FEE, book.CASH, 20_00, book.DESK, player=4),
        Entry(9, book.REVERSAL, book.CASH, 20_00, book.DESK, reverses=8, player=4),
        Entry(10, book.EXPENSE, book.ONLINE, 150_00),
    ]


def test_totals_are_exact_to_the_cent():
    t = book.totals(night())
    assert t.fees_cents == 40_00 and t.fees_count == 3 and t.comped_count == 1
    assert t.donations_cents == 7_55
    assert t.prizes_paid_cents == 100_00 and t.given_back_cents == 33_33
    assert t.prizes_net_cents == 66_67
    assert t.expenses_cents == 162_99
    assert t.money_in_by_method == {
        book.CASH: 20_00 + 7_55 + 33_33,
        book.CARD: 20_00,
        book.CHEQUE: 0,
        book.ONLINE: 0,
    }
    assert t.money_in_cents == 80_88
    assert t.net_raised_cents == 80_88 - 100_00 - 162_99 == -182_11


def test_the_totals_equal_the_plain_sum_of_every_entry():
    entries = night()
    assert book.balance(entries) == book.totals(entries).net_raised_cents
    assert (
        book.balance(entries[:8]) - 20_00 == book.balance(entries[:9]) == book.balance(entries[:7])
    )


def test_a_reversal_keeps_both_entries_and_cancels_one():
    entries = night()
    assert [e.id for e in book.standing(entries)] == [1, 2, 3, 4, 5, 6, 7, 10]
    assert book.may_reverse(entries[7], entries) == "This entry is already reversed."
    assert "cannot itself" in book.may_reverse(entries[8], entries)
    assert book.may_reverse(entries[0], entries) == ""


def test_expected_cash_per_box():
    entries = night()
    assert book.expected_cash(entries, book.DESK) == 20_00 + 7_55 - 12_99
    assert book.expected_cash(entries, book.DESK, float_cents=50_00) == 64_56
    assert book.expected_cash(entries, book.PRIZE_TABLE, 200_00) == 200_00 - 100_00 + 33_33


def test_counting_by_denomination():
    assert book.counted_cents({2000: 3, 500: 1, 25: 3, 1: 4}) == 65_79
    with pytest.raises(ValueError):
        book.counted_cents({300: 1})
    with pytest.raises(ValueError):
        book.counted_cents({100: -1})


def test_entries_are_checked():
    with pytest.raises(ValueError):
        Entry(1, book.FEE, book.CASH, -1)
    with pytest.raises(ValueError):
        Entry(1, book.REVERSAL, book.CASH, 1)
    with pytest.raises(ValueError):
        Entry(1, "bribe", book.CASH, 1)


@pytest.mark.parametrize(
    "text, cents",
    [
        ("20", 20_00),
        ("20.5", 20_50),
        ("$1,020.05", 1020_05),
        (" 0.01 ", 1),
        ("7.", 7_00),
        ("12,345", 12345_00),
        ("$ 99,999.99", 99999_99),
    ],
)
def test_amounts_typed(text, cents):
    assert parse_amount(text) == cents


@pytest.mark.parametrize(
    "text, message",
    [
        ("-5", "minus"),
        ("1.234", "two decimals"),
        ("abc", "in numbers"),
        ("12a", "in numbers"),
        ("1e5", "in numbers"),
        ("100001", "more than"),
        ("99999999999999999999", "more than"),
        ("", "Enter an amount"),
        ("0", "above zero"),
        ("٣", "in numbers"),
        # A decimal comma (a European phone keyboard) must not become a hundred times more.
        ("12,50", "point for cents"),
        ("20,00", "point for cents"),
        ("1,5", "point for cents"),
        ("1,00,000", "point for cents"),
        (",50", "point for cents"),
        ("1,000,5", "point for cents"),
    ],
)
def test_bad_amounts_are_refused(text, message):
    with pytest.raises(AmountError, match=message):
        parse_amount(text)


def test_the_planner_warns_below_the_floor():
    t = book.totals(night())
    floor = book.Floor(book.PERCENT, 25)
    p = book.project(t, owing_cents=40_00, prizes_cents=50_00, floor=floor)
    assert p.money_in_cents == 120_88
    assert p.prizes_cents == 100_00  # already paid more than planned
    assert p.floor_cents == 30_22
    assert p.charity_cents == 120_88 - 100_00 - 162_99
    assert p.breaks_floor
    ok = book.project(
        book.totals([Entry(1, book.FEE, book.CASH, 1000_00)]),
        owing_cents=0,
        prizes_cents=600_00,
        floor=book.Floor(book.AMOUNT, 400_00),
    )
    assert ok.charity_cents == 400_00 and not ok.breaks_floor and ok.room_cents == 0
    assert floor_words(book.Floor(book.AMOUNT, 400_00)) == "$400.00"
    assert floor_words(book.Floor(book.PERCENT, 30)) == "30% of money in"


def test_the_largest_amount_is_said_as_money_would_say_it():
    from tournaments.foundation.text import money
    from tournaments.rules import cashbook as book

    assert money(book.MAX_CENTS) in book.TOO_MUCH


def test_prizes_are_paid_from_the_prize_box_then_the_desks_then_none():
    assert book.payout_box([]) == book.PRIZE_TABLE
    assert book.payout_box([book.DESK]) == book.PRIZE_TABLE
    assert book.payout_box([book.PRIZE_TABLE]) == book.DESK
    assert book.payout_box([book.PRIZE_TABLE, book.DESK]) == ""
