"""Forms of the cash book: amounts typed as dollars, read by the engine's `parse_amount`.

Forms that record money carry an idempotency key, a UUID made when the form is shown: a
phone that sends the same form twice records it once (see services/cashbook.py).
"""

from __future__ import annotations

import uuid

from django import forms

from tournaments.rules import cashbook as book

from ..foundation.text import amount, whole_number
from ..models.cashbook import CashBookSettings

PAID_METHODS = [(m, book.METHOD_LABELS[m]) for m in book.METHODS if m != book.COMPED]
BOX_CHOICES = list(book.BOX_LABELS.items())
STALE = "This form is out of date; it was refreshed, so send it again."


class AmountField(forms.CharField):
    """Dollars and cents as typed; cleans to whole cents or says what is wrong."""

    def __init__(self, *, allow_zero: bool = False, **kwargs):
        self.allow_zero = allow_zero
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("label", "Amount ($)")
        kwargs.setdefault("error_messages", {"required": "Enter an amount."})
        super().__init__(**kwargs)
        self.widget.attrs.update(
            inputmode="decimal", autocomplete="off", **{"class": "money-input"}
        )

    def clean(self, value):
        text = super().clean(value)
        if not text and not self.required:
            return None
        try:
            return book.parse_amount(text, allow_zero=self.allow_zero)
        except book.AmountError as exc:
            raise forms.ValidationError(str(exc)) from None


class KeyedForm(forms.Form):
    """Carries the idempotency key; a fresh one each time the form is shown empty."""

    key = forms.UUIDField(
        widget=forms.HiddenInput, error_messages={"required": STALE, "invalid": STALE}
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("key", uuid.uuid4())


def _text(label: str, max_length: int, *, required: bool = False, **kw) -> forms.CharField:
    return forms.CharField(label=label, max_length=max_length, required=required, **kw)


NO_BOX_IN = ("", "No box (paid by card, cheque or online)")
NO_BOX_OUT = ("", "No box (paid another way)")


def box_choices(closed: frozenset[str]) -> list[tuple[str, str]]:
    """The boxes, each counted one said so: cash can no longer go through it."""
    return [
        (key, f"{label} (counted and closed)" if key in closed else label)
        for key, label in BOX_CHOICES
    ]


class DonationForm(KeyedForm):
    """`closed`: the boxes already counted. They are named so in the choices, and a new form
    starts on a box still open, so a donation late in the night is not sent to the desk's
    counted box by default (the service refuses cash there and says which box is open)."""

    amount = AmountField()
    method = forms.ChoiceField(label="Paid by", choices=PAID_METHODS, initial=book.CASH)
    box = forms.ChoiceField(
        label="Where",
        choices=[*BOX_CHOICES, NO_BOX_IN],
        initial=book.DESK,
        required=False,
    )
    donor = _text("Donor (optional)", 100)
    note = _text("Note (optional)", 300, help_text="e.g. round up")

    def __init__(self, *args, closed: frozenset[str] = frozenset(), **kwargs):
        kwargs.setdefault("auto_id", "donation_%s")
        super().__init__(*args, **kwargs)
        self.fields["box"].choices = [*box_choices(closed), NO_BOX_IN]
        if not self.is_bound:
            self.initial.setdefault("box", (book.open_boxes(closed) or [book.DESK])[0])


class ExpenseForm(KeyedForm):
    """`closed`: the boxes already counted, named so in the choices."""

    amount = AmountField()
    method = forms.ChoiceField(label="Paid by", choices=PAID_METHODS, initial=book.CASH)
    box = forms.ChoiceField(
        label="Cash taken from",
        choices=[NO_BOX_OUT, *BOX_CHOICES],
        required=False,
    )
    note = _text("What it was for", 300, required=True)
    receipt = forms.FileField(
        label="Receipt (optional)",
        required=False,
        help_text="A photo (JPEG or PNG) or a PDF, up to 5 MB.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/jpeg,image/png,application/pdf"}),
    )

    def __init__(self, *args, closed: frozenset[str] = frozenset(), **kwargs):
        kwargs.setdefault("auto_id", "expense_%s")
        super().__init__(*args, **kwargs)
        self.fields["box"].choices = [NO_BOX_OUT, *box_choices(closed)]


class FeeForm(KeyedForm):
    """One tap at the desk: the method is the button pressed; comped needs a reason."""

    method = forms.ChoiceField(choices=[(m, m) for m in book.METHODS])
    reason = _text("Why comped", 300)
    q = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        if data.get("method") == book.COMPED and not " ".join(data.get("reason", "").split()):
            self.add_error("reason", "Say why the fee is comped.")
        return data


class ReverseForm(forms.Form):
    reason = _text("Why reverse it", 300, required=True)

    def clean_reason(self):
        reason = " ".join(self.cleaned_data["reason"].split())
        if not reason:
            raise forms.ValidationError("Say why the entry is reversed.")
        return reason


class FloatForm(forms.Form):
    amount = AmountField(allow_zero=True, label="Opening float ($)")


class CountForm(forms.Form):
    """How many of each bill and coin were counted, and why the count differs if it does."""

    reason = _text("Why the count differs (if it does)", 300)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for value in book.DENOMINATIONS:
            field = forms.CharField(
                label=denomination_label(value), required=False, max_length=6, initial=""
            )
            field.widget.attrs.update(inputmode="numeric", autocomplete="off")
            field.widget.attrs["class"] = "denomination"
            self.fields[f"d{value}"] = field

    def denominations(self):
        return [self[f"d{value}"] for value in book.DENOMINATIONS]

    def clean(self):
        data = super().clean()
        counts = {}
        for value in book.DENOMINATIONS:
            text = (data.get(f"d{value}") or "").strip()
            if not text:
                continue
            n = whole_number(text)
            if n is None:
                self.add_error(f"d{value}", "Type how many, as a whole number.")
            elif n > 100_000:
                self.add_error(
                    f"d{value}", "That is more than 100,000 of one kind; check the count."
                )
            elif n:
                counts[value] = n
        data["counts"] = counts
        return data


def denomination_label(cents: int) -> str:
    return f"${cents // 100} bills" if cents >= 100 else f"{cents}¢ coins"


class PlannerForm(forms.ModelForm):
    """The charity's floor and the board's switch; the floor's value is typed as % or $."""

    value = forms.CharField(label="Floor", max_length=20, required=False)

    class Meta:
        model = CashBookSettings
        fields = ["floor_kind", "board_shows_raised"]
        labels = {
            "floor_kind": "The charity keeps at least",
            "board_shows_raised": "Show the running total raised on the board",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        s = self.instance
        if not self.is_bound:
            self.initial["value"] = (
                str(s.floor_value) if s.floor_kind == book.PERCENT else amount(s.floor_value)
            )
        self.fields["value"].widget.attrs.update(inputmode="decimal", autocomplete="off")

    def clean(self):
        data = super().clean()
        text = (data.get("value") or "").strip() or "0"
        if data.get("floor_kind") == book.PERCENT:
            n = whole_number(text.removesuffix("%").strip())
            if n is None or n > 100:
                self.add_error("value", "Type a whole percentage from 0 to 100.")
            else:
                data["floor_value"] = n
        else:
            try:
                data["floor_value"] = book.parse_amount(text, allow_zero=True)
            except book.AmountError as exc:
                self.add_error("value", str(exc))
        return data
