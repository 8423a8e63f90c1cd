"""The ledger: per category awarded, paid, unpaid and voided; entry fees and what goes to the
charity; every payment and void; and the same as CSV, neutralised for spreadsheets.
"""

from dataclasses import dataclass

from django.utils import timezone
from django.views.generic import View

from ...foundation.csv_files import csv_response, neutralise, to_csv
from ...foundation.text import amount, money
from ...mixins.prizes import AWARD, PAY, PrizePageMixin
from ...models import Payout, PrizeCategory
from ...permissions import PUBLIC, has_permission
from ...services import cashbook
from ...services import ledger as ledger_service


class LedgerAccessMixin:
    """Admins and organisers who pay or award prizes: either code opens the ledger."""

    def dispatch(self, request, *args, **kwargs):
        if not any(has_permission(request.user, self.tournament, c) for c in (PAY, AWARD)):
            return self.deny()
        return super().dispatch(request, *args, **kwargs)


@dataclass(frozen=True)
class LedgerRow:
    label: str
    awarded: str
    paid: str
    unpaid: str
    voided: str
    category: PrizeCategory | None = None


@dataclass(frozen=True)
class Event:
    """A payment or a void, as one line of the ledger's history."""

    kind: str
    at: object
    by: str
    payout: Payout

    @property
    def amount(self) -> str:
        return money(self.payout.amount_cents)

    @property
    def where(self) -> str:
        return self.payout.award.where_won


def ledger_payouts(tournament):
    return list(
        Payout.objects.filter(award__tournament=tournament)
        .select_related("award__player", "award__category", "paid_by", "voided_by")
        .order_by("paid_at", "id")
    )


class LedgerView(PrizePageMixin, LedgerAccessMixin, View):
    permission = PUBLIC  # checked in LedgerAccessMixin: payouts.pay or prizes.award
    http_method_names = ["get"]
    tab = "ledger"

    def get(self, request, slug):
        books = ledger_service.ledger(self.tournament)
        payouts = ledger_payouts(self.tournament)
        events = [Event("Paid", p.paid_at, p.paid_by.get_username(), p) for p in payouts]
        events += [
            Event("Voided", p.voided_at, p.voided_by.get_username() if p.voided_by else "", p)
            for p in payouts
            if p.voided_at is not None
        ]
        events.sort(key=lambda e: (e.at, e.payout.pk, e.kind != "Paid"))
        return self.render(
            "ledger.html",
            books=books,
            rows=[
                LedgerRow(
                    line.category.label,
                    money(line.awarded_cents),
                    money(line.paid_cents),
                    money(line.unpaid_cents),
                    money(line.voided_cents),
                    line.category,
                )
                for line in books.lines
            ],
            total=LedgerRow(
                "All prizes",
                money(books.awarded_cents),
                money(books.paid_cents),
                money(books.unpaid_cents),
                money(books.voided_cents),
            ),
            fees=money(books.fees_cents),
            # The prize pages' projection counts fees still owed; the ledger counts only money
            # recorded, and says what is left out so the two figures are not read as one.
            owed=money(owed) if (owed := cashbook.owed_cents(self.tournament)) else "",
            money_in=money(books.book.money_in_cents),
            donations=money(books.book.donations_cents),
            given_back=money(books.book.given_back_cents),
            expenses=money(books.book.expenses_cents),
            charity=money(books.charity_cents),
            short=books.charity_cents < 0,
            events=events,
        )


def ledger_csv_rows(tournament) -> list[list]:
    """Every payment (voided ones marked), then the totals per category and for the event."""
    books = ledger_service.ledger(tournament)
    rows: list[list] = [
        [
            "section",
            "category",
            "where",
            "place",
            "player",
            "code",
            "amount",
            "status",
            "paid_by",
            "paid_at",
            "present_confirmed",
            "id_checked",
            "voided_by",
            "voided_at",
            "void_reason",
        ]
    ]

    def when(moment) -> str:
        return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else ""

    for p in ledger_payouts(tournament):
        award = p.award
        rows.append(
            [
                "payment",
                neutralise(award.category.label),
                award.where_won,
                award.place,
                neutralise(award.player.name),
                neutralise(award.player.code),
                amount(p.amount_cents),
                "voided" if p.voided_at else "paid",
                neutralise(p.paid_by.get_username()),
                when(p.paid_at),
                "yes" if p.present_confirmed else "no",
                "yes" if p.id_checked else "no",
                neutralise(p.voided_by.get_username()) if p.voided_by else "",
                when(p.voided_at),
                neutralise(p.void_reason),
            ]
        )
    rows.append([])
    rows.append(["section", "category", "awarded", "paid", "unpaid", "voided"])
    for line in books.lines:
        rows.append(
            [
                "category total",
                neutralise(line.category.label),
                amount(line.awarded_cents),
                amount(line.paid_cents),
                amount(line.unpaid_cents),
                amount(line.voided_cents),
            ]
        )
    rows.append(
        [
            "all prizes",
            "",
            amount(books.awarded_cents),
            amount(books.paid_cents),
            amount(books.unpaid_cents),
            amount(books.voided_cents),
        ]
    )
    book = books.book
    rows.append(
        [
            "entry fees",
            f"{books.players_paid_entry} recorded, {book.comped_count} comped",
            amount(books.fees_cents),
        ]
    )
    rows.append(["donations", "", amount(book.donations_cents)])
    rows.append(["given back", "", amount(book.given_back_cents)])
    rows.append(["expenses", "", amount(book.expenses_cents)])
    rows.append(["to the charity", neutralise(tournament.charity), amount(books.charity_cents)])
    return rows


class LedgerCsvView(PrizePageMixin, LedgerAccessMixin, View):
    permission = PUBLIC  # checked in LedgerAccessMixin: payouts.pay or prizes.award
    http_method_names = ["get"]

    def get(self, request, slug):
        return csv_response(to_csv(ledger_csv_rows(self.tournament)), f"{slug}-ledger.csv")
