"""The rehearsal's cash book: the desk takes fees as people arrive (a few comped, a few who
pay later), donations come in at both boxes, a winner gives part of a prize back, the
organiser records expenses, and both boxes are counted and closed at the end of the night.

Who pays how follows the players' order, not the dice, so the simulator's standings for a
seed are untouched and the same seed gives the same book.
"""

from __future__ import annotations

from typing import Any

from tournaments.rules import cashbook as book

from ..foundation.text import money
from ..models import Player, Tournament
from . import cash_boxes, cash_planner, cashbook, checkin

COMP_EVERY = 11  # the 4th, 15th, 26th, ... player is a volunteer who plays for free
LATE_EVERY = 7  # the 6th, 13th, ... player pays after the first round
METHOD_CYCLE = (book.CASH, book.CARD, book.CASH, book.ONLINE, book.CASH, book.CHEQUE)


def arrive(player: Player, index: int, actor) -> None:
    """Checks one player in at the desk, paying as the rehearsal's pattern says."""
    if index % COMP_EVERY == 3:
        cashbook.pay_fee(player, method=book.COMPED, reason="Volunteer", actor=actor)
    elif index % LATE_EVERY == 5:
        checkin.check_in(player, actor)
    else:
        cashbook.pay_fee(player, method=METHOD_CYCLE[index % len(METHOD_CYCLE)], actor=actor)


def settle_owing(tournament: Tournament, actor) -> int:
    """Those who arrived without paying pay at the desk later in the evening, in cash."""
    late = list(cashbook.owing(tournament).order_by("pk"))
    for player in late:
        cashbook.pay_fee(player, method=book.CASH, actor=actor)
    return len(late)


def give_back_cents(award_amount_cents: int) -> int:
    """The first winner gives half of their prize back to the charity."""
    return award_amount_cents // 2


def in_denominations(cents: int) -> dict[int, int]:
    """The fewest bills and coins that make `cents` (how the rehearsal counts a box)."""
    counts = {}
    for value in book.DENOMINATIONS:
        counts[value], cents = divmod(cents, value)
    return {v: n for v, n in counts.items() if n}


def end_of_night(tournament: Tournament, actor) -> dict[str, Any]:
    """The charity's floor, donations, expenses and the count of both boxes (the desk is a
    dollar short), then a card donation after the count."""
    cash_planner.save_settings(
        tournament, floor_kind=book.PERCENT, floor_value=25, board_shows_raised=False, actor=actor
    )
    cashbook.donate(
        tournament, amount_cents=50_00, method=book.CASH, box=book.DESK, actor=actor,
        donor="The Rivera family",
    )  # fmt: skip
    cashbook.donate(
        tournament, amount_cents=7_50, method=book.CASH, box=book.DESK, actor=actor,
        note="Round up",
    )  # fmt: skip
    cashbook.donate(
        tournament, amount_cents=25_00, method=book.CARD, box=book.PRIZE_TABLE, actor=actor
    )
    cashbook.expense(
        tournament, amount_cents=12_99, method=book.CASH, box=book.DESK, actor=actor,
        note="Dice and score pencils",
    )  # fmt: skip
    cashbook.expense(
        tournament, amount_cents=150_00, method=book.CARD, actor=actor, note="Venue hire"
    )
    paid = cashbook.totals(tournament).prizes_paid_cents
    cash_boxes.set_float(tournament, book.PRIZE_TABLE, -(-paid // 100_00) * 100_00, actor=actor)
    for key in book.BOXES:
        expected = cash_boxes.expected_cash(tournament, key)
        short = 1_00 if key == book.DESK and expected >= 1_00 else 0
        cash_boxes.close_box(
            tournament,
            key,
            in_denominations(expected - short),
            reason="A dollar short: change given for a $20" if short else "",
            actor=actor,
        )
    # A guest hands over a card donation at the door after the desk was counted: card money
    # is in no box's count, so it is recorded outside the boxes rather than refused.
    cashbook.donate(
        tournament, amount_cents=20_00, method=book.CARD, box=book.DESK, actor=actor,
        donor="A late guest",
    )  # fmt: skip
    totals = cashbook.totals(tournament)
    return {
        "money_in": money(totals.money_in_cents),
        "net_raised": money(totals.net_raised_cents),
        "comped": totals.comped_count,
    }
