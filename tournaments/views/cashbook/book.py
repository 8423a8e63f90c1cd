"""The cash book page: the night's totals, who still owes a fee, the entries (newest first,
a page at a time) with their reversals, and the forms for donations and expenses; plus a
receipt's download and the planner's settings.

A form that fails shows its message with what was typed and the same idempotency key, so
sending it again still records it once; a form that worked redirects, and the page shows a
fresh form with a new key.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.rules import cashbook as book

from ...forms.cashbook import DonationForm, ExpenseForm, PlannerForm, ReverseForm
from ...foundation.text import first_error, money
from ...mixins.cashbook import RECORD, VIEW, CashBookMixin
from ...models import LedgerEntry
from ...presenters.cashbook import rows
from ...services import cash_planner, cashbook, receipts


def book_url(slug: str) -> str:
    return reverse("cashbook", args=[slug])


def shown(t: book.Totals) -> dict[str, str]:
    """The totals as the page prints them."""
    return {
        "money_in": money(t.money_in_cents),
        "fees": money(t.fees_cents),
        "donations": money(t.donations_cents),
        "prizes_paid": money(t.prizes_paid_cents),
        "given_back": money(t.given_back_cents),
        "expenses": money(t.expenses_cents),
        "net": money(t.net_raised_cents),
    }


# Entries a page shows, newest first: a big night's door takes a fee from every player, and
# the page (reloaded after each donation or expense) must not grow with the room.
ENTRIES_PER_PAGE = 50


class BookPage(CashBookMixin):
    """Renders the whole page, with any bound form in place of its empty one."""

    def page(self, status: int = 200, **forms):
        t = self.tournament
        every = cashbook.entries(t)
        totals = book.totals(every)
        planner = cash_planner.page_context(t, totals=totals)
        closed = cashbook.closed_boxes(t)
        newest_first = [e.id for e in reversed(every)]
        page = Paginator(newest_first, ENTRIES_PER_PAGE).get_page(self.request.GET.get("page"))
        return self.render(
            "book.html",
            status,
            totals=totals,
            by_method=[
                (book.METHOD_LABELS[m], money(c)) for m, c in totals.money_in_by_method.items()
            ],
            shown=shown(totals),
            entries=page,
            entry_rows=rows(t, every, page.object_list),
            owing=list(cashbook.owing(t).order_by("name", "pk")),
            fee=money(cashbook.fee_cents(t)),
            **planner,
            donation_form=forms.get("donation_form") or DonationForm(closed=closed),
            expense_form=forms.get("expense_form") or ExpenseForm(closed=closed),
            planner_form=forms.get("planner_form") or PlannerForm(instance=planner["settings"]),
            reverse_form=ReverseForm(auto_id=False),
            failed_reverse=forms.get("failed_reverse"),
        )


class CashBookView(BookPage, View):
    permission = VIEW
    http_method_names = ["get"]

    def get(self, request, slug):
        return self.page()


def _fail(form, exc: UserFacingError) -> None:
    form.add_error(exc.field if exc.field in form.fields else None, exc.message)


class RecordView(BookPage, View):
    """A form that records one entry: the service's message, or the form with its error."""

    permission = RECORD
    http_method_names = ["post"]
    form_class: type = DonationForm
    form_name = ""

    def record(self, data: dict) -> cashbook.Outcome:
        raise NotImplementedError

    def post(self, request, slug):
        closed = cashbook.closed_boxes(self.tournament)
        form = self.form_class(request.POST, request.FILES, closed=closed)
        if form.is_valid():
            try:
                outcome = self.record(form.cleaned_data)
            except UserFacingError as exc:
                _fail(form, exc)
            else:
                messages.success(request, outcome.message)
                return redirect(book_url(slug))
        # Said at the top too: on a phone the form is a long scroll below the entries, and
        # the page comes back at its top.
        messages.error(request, f"Nothing was recorded. {first_error(form)}")
        return self.page(400, **{self.form_name: form})


class DonationView(RecordView):
    form_class, form_name = DonationForm, "donation_form"

    def record(self, d: dict) -> cashbook.Outcome:
        return cashbook.donate(
            self.tournament,
            amount_cents=d["amount"],
            method=d["method"],
            box=d["box"],
            donor=d["donor"],
            note=d["note"],
            actor=self.request.user,
            key=d["key"],
        )


class ExpenseView(RecordView):
    form_class, form_name = ExpenseForm, "expense_form"

    def record(self, d: dict) -> cashbook.Outcome:
        return cashbook.expense(
            self.tournament,
            amount_cents=d["amount"],
            method=d["method"],
            box=d["box"],
            note=d["note"],
            receipt=receipts.read(d["receipt"]) if d["receipt"] else None,
            actor=self.request.user,
            key=d["key"],
        )


class ReverseView(BookPage, View):
    permission = RECORD
    http_method_names = ["post"]

    def post(self, request, slug, entry_pk):
        entry = get_object_or_404(
            LedgerEntry.objects.filter(tournament=self.tournament).select_related(
                "player", "tournament"
            ),
            pk=entry_pk,
        )
        form = ReverseForm(request.POST)
        if form.is_valid():
            try:
                outcome = cashbook.reverse(
                    entry, actor=request.user, reason=form.cleaned_data["reason"]
                )
            except UserFacingError as exc:
                messages.error(request, f"Not reversed: {exc.message}")
            else:
                messages.success(request, outcome.message)
            return redirect(book_url(slug))
        messages.error(request, f"Not reversed: {form.errors['reason'][0]}")
        return redirect(book_url(slug))


class ReceiptView(CashBookMixin, View):
    """The receipt as a download: never shown inline, so a crafted file cannot run here."""

    permission = VIEW
    http_method_names = ["get"]

    def get(self, request, slug, entry_pk):
        entry = get_object_or_404(
            LedgerEntry.objects.filter(tournament=self.tournament), pk=entry_pk
        )
        if not entry.receipt or not entry.receipt.storage.exists(entry.receipt.name):
            raise Http404("This entry has no receipt.")
        extension = entry.receipt.name.rsplit(".", 1)[-1]
        return FileResponse(
            entry.receipt.open("rb"),
            as_attachment=True,
            filename=f"{slug}-receipt-{entry.pk}.{extension}",
            content_type=entry.receipt_type or "application/octet-stream",
        )


class PlannerView(BookPage, View):
    permission = RECORD
    http_method_names = ["post"]

    def post(self, request, slug):
        form = PlannerForm(request.POST, instance=cash_planner.settings_for(self.tournament))
        if form.is_valid():
            d = form.cleaned_data
            cash_planner.save_settings(
                self.tournament,
                floor_kind=d["floor_kind"],
                floor_value=d["floor_value"],
                board_shows_raised=d["board_shows_raised"],
                actor=request.user,
            )
            messages.success(request, "The charity's floor and the board's switch are saved.")
            return redirect(book_url(slug))
        messages.error(request, f"Nothing was saved. {first_error(form)}")
        return self.page(400, planner_form=form)
