"""The prize ledger: per category awarded, paid and voided, beside the cash book's totals.

Fees are what the desk recorded (`services/cashbook.py`), never checked-in players times the
fee, so the ledger and the charity's summary add up the same entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Sum

from tournaments.rules import cashbook as cash

from ..models import Payout, PrizeCategory, Tournament
from . import cashbook


@dataclass(frozen=True)
class LedgerLine:
    category: PrizeCategory
    awarded_cents: int
    paid_cents: int
    voided_cents: int

    @property
    def unpaid_cents(self) -> int:
        return self.awarded_cents - self.paid_cents


@dataclass(frozen=True)
class Ledger:
    """The prize lines beside the cash book's totals: fees are what the desk recorded."""

    lines: list[LedgerLine]
    book: cash.Totals
    entry_fee_cents: int

    @property
    def fees_cents(self) -> int:
        return self.book.fees_cents

    @property
    def players_paid_entry(self) -> int:
        """Fees recorded, comped ones included."""
        return self.book.fees_count

    @property
    def awarded_cents(self) -> int:
        return sum(line.awarded_cents for line in self.lines)

    @property
    def paid_cents(self) -> int:
        return sum(line.paid_cents for line in self.lines)

    @property
    def unpaid_cents(self) -> int:
        return self.awarded_cents - self.paid_cents

    @property
    def voided_cents(self) -> int:
        return sum(line.voided_cents for line in self.lines)

    @property
    def charity_cents(self) -> int:
        """What is left for the charity once every awarded prize is paid: money in (fees,
        donations, prizes given back) less the prizes and the expenses."""
        return self.book.money_in_cents - self.awarded_cents - self.book.expenses_cents


def ledger(tournament: Tournament) -> Ledger:
    """Totals per category in three queries, and the cash book's totals in one."""
    awarded = dict(
        tournament.awards.current()
        .values("category_id")
        .annotate(n=Sum("amount_cents"))
        .values_list("category_id", "n")
    )
    payouts = Payout.objects.filter(award__tournament=tournament)
    paid = dict(
        payouts.filter(voided_at__isnull=True)
        .values("award__category_id")
        .annotate(n=Sum("amount_cents"))
        .values_list("award__category_id", "n")
    )
    voided = dict(
        payouts.filter(voided_at__isnull=False)
        .values("award__category_id")
        .annotate(n=Sum("amount_cents"))
        .values_list("award__category_id", "n")
    )
    lines = [
        LedgerLine(c, awarded.get(c.pk, 0), paid.get(c.pk, 0), voided.get(c.pk, 0))
        for c in tournament.prize_categories.all()
    ]
    return Ledger(lines, cashbook.totals(tournament), cashbook.fee_cents(tournament))
