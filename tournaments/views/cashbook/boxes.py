"""Counting a cash box at the end of the night: the cash the book expects, the count by
denomination, the difference with its reason, and the close (which is final)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.rules import cashbook as book

from ...forms.cashbook import CountForm, FloatForm
from ...foundation.text import amount, money
from ...mixins.cashbook import RECORD, CashBookMixin
from ...models import CashBox
from ...services import cash_boxes, cashbook


class BoxMixin(CashBookMixin):
    permission = RECORD

    def dispatch(self, request, *args, **kwargs):
        if kwargs["box"] not in book.BOXES:
            raise Http404("There is no such cash box.")
        return super().dispatch(request, *args, **kwargs)

    def url(self) -> str:
        return reverse("cash-box", args=[self.tournament.slug, self.kwargs["box"]])

    def page(self, status: int = 200, *, count_form=None, float_form=None):
        key = self.kwargs["box"]
        box = CashBox.objects.filter(tournament=self.tournament, key=key).first()
        expected = cash_boxes.expected_cash(self.tournament, key)
        float_cents = box.float_cents if box else 0
        return self.render(
            "box.html",
            status,
            key=key,
            label=book.BOX_LABELS[key],
            box=box,
            expected=money(expected),
            float=money(float_cents),
            movements=money(expected - float_cents),
            counted=money(box.counted_cents) if box and box.closed else "",
            difference=money(box.difference_cents) if box and box.closed else "",
            unpaid=self.unpaid_warning(key, box),
            count_form=count_form or CountForm(),
            float_form=float_form
            or FloatForm(initial={"amount": amount(float_cents)}, auto_id="float_%s"),
        )

    def unpaid_warning(self, key: str, box: CashBox | None) -> str:
        """Before a count closes the box prizes are paid from, say what is still to pay."""
        if box is not None and box.closed:
            return ""
        closed = cashbook.closed_boxes(self.tournament)
        if book.payout_box(closed) != key:
            return ""
        count, cents = cash_boxes.unpaid_prizes(self.tournament)
        if not count:
            return ""
        after = book.payout_box(closed | {key})
        then = (
            "they are then paid from the desk's box"
            if after
            else "no box is left to pay them from tonight, and the treasurer pays them later"
        )
        return (
            f"{count} prize{'' if count == 1 else 's'} ({money(cents)}) "
            f"{'is' if count == 1 else 'are'} still to pay from this box. Once it is closed, "
            f"{then}."
        )


class BoxView(BoxMixin, View):
    http_method_names = ["get", "post"]

    def get(self, request, slug, box):
        return self.page()

    def post(self, request, slug, box):
        form = CountForm(request.POST)
        if form.is_valid():
            try:
                closed = cash_boxes.close_box(
                    self.tournament,
                    box,
                    form.cleaned_data["counts"],
                    reason=form.cleaned_data["reason"],
                    actor=request.user,
                )
            except UserFacingError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                messages.success(
                    request,
                    f"{closed} is closed: counted {money(closed.counted_cents)}, "
                    f"difference {money(closed.difference_cents)}.",
                )
                return redirect(self.url())
        return self.page(400, count_form=form)


class FloatView(BoxMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug, box):
        form = FloatForm(request.POST, auto_id="float_%s")
        if form.is_valid():
            try:
                cash_boxes.set_float(
                    self.tournament, box, form.cleaned_data["amount"], actor=request.user
                )
            except UserFacingError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, "Opening float saved.")
                return redirect(self.url())
        return self.page(400, float_form=form)
