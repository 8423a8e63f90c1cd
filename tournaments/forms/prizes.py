"""Forms of the prize pages: the prize list, judges' picks, roll-off dice, paying and voiding.

They check what was typed; who wins is the engine's decision (through the service) and a
category is checked by the engine's own `PrizeCategory`, whose message the form shows.
Saving is the services' (`services/prize_categories.py`).
"""

from __future__ import annotations

import re

from django import forms
from django.utils.text import slugify

from scoring.rules import RuleError
from tournaments.rules.cashbook import AmountError, parse_amount

from ..foundation.text import amount, money, ordinal, whole_number
from ..models import PrizeCategory
from ..rules.prizes import MAX_PLACES, CategoryRule


def amounts_text(cents: list[int]) -> str:
    """What the amounts field shows for stored amounts: "100, 50" or "12.50"."""
    return ", ".join(f"{c // 100}" if c % 100 == 0 else amount(c) for c in cents)


def parse_amounts(text: str) -> list[int]:
    """ "100, 50" -> [10000, 5000]: dollars per place, 1st first, comma-separated.

    Each place is read as the cash book reads an amount (`parse_amount`), so "1e3" or "+5" is
    refused here too. Commas separate places, so "1,000" would be $1 and $0 and "12,50" $12
    and $50: a later place paying more than an earlier one, or a place written "000", is
    refused as a thousands separator or a decimal comma rather than guessed at.
    """
    parts = [p.strip() for p in re.split(r"[,;]", text)]
    if not any(parts):
        raise forms.ValidationError("Give at least one amount, e.g. 100 or 100, 50.")
    if not all(parts):
        raise forms.ValidationError("Separate the places' amounts by single commas: 100, 50.")
    cents = []
    for part in parts:
        if re.fullmatch(r"\$?\s*0[0-9]+(\.[0-9]*)?", part):
            raise forms.ValidationError(_SEPARATOR_HINT.format(part=part))
        try:
            cents.append(parse_amount(part, allow_zero=True))
        except AmountError as exc:
            raise forms.ValidationError(f"{part}: {exc}") from None
    if len(cents) > MAX_PLACES:
        raise forms.ValidationError(f"At most {MAX_PLACES} places.")
    for place, (before, after) in enumerate(zip(cents, cents[1:], strict=False), start=2):
        if after > before:
            raise forms.ValidationError(
                f"{ordinal(place)} place pays more than {ordinal(place - 1)} ({money(after)} "
                f"against {money(before)}). " + _SEPARATOR_HINT.format(part=parts[place - 1])
            )
    return cents


_SEPARATOR_HINT = (
    "Commas separate the places' amounts ({part!r} reads as a place of its own): write "
    "thousands without a comma (1000) and cents with a point (12.50)."
)


def _choices(name: str):
    return PrizeCategory._meta.get_field(name).choices


class CategoryForm(forms.Form):
    label = forms.CharField(max_length=80, help_text='As printed, e.g. "Most Buncos".')
    measure = forms.ChoiceField(label="Won by", choices=_choices("measure"))
    scope = forms.ChoiceField(
        choices=_choices("scope"),
        help_text="Per pod pays a winner in every pod; best pod shares the prize among the "
        "winning pod's players.",
    )
    stage_kind = forms.ChoiceField(label="Counted over", choices=_choices("stage_kind"))
    amounts = forms.CharField(
        label="Amount per place ($)",
        max_length=200,
        help_text="In dollars, 1st place first, separated by commas: 100, 50 pays two places.",
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    tie_policy = forms.ChoiceField(label="Ties", choices=_choices("tie_policy"))
    priority = forms.IntegerField(
        min_value=0,
        max_value=32767,
        initial=0,
        help_text="Lower is awarded first; matters when a player may win only one prize.",
    )

    def __init__(self, *args, tournament, instance: PrizeCategory | None = None, **kwargs):
        self.tournament = tournament
        self.instance = instance
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "label": instance.label,
                "measure": instance.measure,
                "scope": instance.scope,
                "stage_kind": instance.stage_kind,
                "amounts": amounts_text(instance.amounts_cents),
                "tie_policy": instance.tie_policy,
                "priority": instance.priority,
            }
        super().__init__(*args, **kwargs)

    def clean_label(self):
        label = " ".join(self.cleaned_data["label"].split())
        if not slugify(label):
            raise forms.ValidationError("Use some letters or digits in the name.")
        return label

    def clean_amounts(self):
        return parse_amounts(self.cleaned_data["amounts"])

    @property
    def key(self) -> str:
        """A new category's key, from its name; an existing one keeps its key (dice use it)."""
        if self.instance is not None:
            return self.instance.key
        base = slugify(self.cleaned_data["label"])[:34].strip("-") or "prize"
        taken = set(self.tournament.prize_categories.values_list("key", flat=True))
        key, n = base, 2
        while key in taken:
            key, n = f"{base}-{n}", n + 1
        return key

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if data["measure"] == "traveling_holder" and data["scope"] == "pod":
            raise forms.ValidationError(
                "The traveling item has one holder at the end of the event: choose Overall."
            )
        try:
            CategoryRule(
                key=self.key,
                label=data["label"],
                measure=data["measure"],
                scope=data["scope"],
                amounts_cents=tuple(data["amounts"]),
                tie_policy=data["tie_policy"],
                priority=data["priority"],
            )
        except RuleError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data

    def values(self) -> dict:
        """The category's fields as typed, for the service to save."""
        data = self.cleaned_data
        return {
            "label": data["label"],
            "measure": data["measure"],
            "scope": data["scope"],
            "stage_kind": data["stage_kind"],
            "amounts_cents": data["amounts"],
            "tie_policy": data["tie_policy"],
            "priority": data["priority"],
        }


class TemplateForm(forms.Form):
    name = forms.ChoiceField(label="Rule sheet")

    def __init__(self, *args, templates: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].choices = templates


class SwitchForm(forms.Form):
    value = forms.ChoiceField(choices=[("on", "on"), ("off", "off")])

    @property
    def on(self) -> bool:
        return self.cleaned_data["value"] == "on"


class NominationForm(forms.Form):
    """A judged prize's winners in one group, 1st place first; an empty pick clears it."""

    category = forms.IntegerField(widget=forms.HiddenInput)
    group = forms.CharField(max_length=20, widget=forms.HiddenInput)

    def __init__(self, data, *, allowed: set[int], places: int):
        super().__init__(data)
        self.allowed = allowed
        self.places = places
        self.picks = [str(v).strip() for v in data.getlist("winner")][:places]

    def clean(self):
        data = super().clean()
        winners: list[int] = []
        gap = False
        for pick in self.picks:
            if not pick:
                gap = True
                continue
            winner = whole_number(pick)
            if winner not in self.allowed:
                raise forms.ValidationError("Choose a winner from the list.")
            if gap:
                raise forms.ValidationError("Choose the places in order: 1st place first.")
            if winner in winners:
                raise forms.ValidationError("The same winner is chosen twice.")
            winners.append(winner)
        data["winners"] = winners
        return data


class TravelingForm(forms.Form):
    player = forms.TypedChoiceField(label="Passed to", coerce=int)
    round = forms.TypedChoiceField(label="In round", coerce=int, required=False, empty_value=None)

    def __init__(self, *args, players: list[tuple[int, str]], rounds: list[tuple[int, str]], **kw):
        super().__init__(*args, **kw)
        self.fields["player"].choices = [("", "Choose the player…"), *players]
        self.fields["round"].choices = [("", "—"), *rounds]


class PayForm(forms.Form):
    present = forms.BooleanField(
        label="The winner is here in person",
        error_messages={"required": "Tick this box: the winner must be here in person."},
    )
    id_checked = forms.BooleanField(
        label="I checked their photo ID",
        error_messages={"required": "Tick this box: check the winner's photo ID first."},
    )
    give_back = forms.CharField(
        label="Given back to the charity ($, optional)",
        required=False,
        max_length=20,
        help_text="If the winner donates the prize back, whole or part.",
    )
    q = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)

    def clean_give_back(self) -> int:
        text = self.cleaned_data["give_back"].strip()
        if not text:
            return 0
        try:
            return parse_amount(text)
        except AmountError as exc:
            raise forms.ValidationError(str(exc)) from None


class VoidForm(forms.Form):
    reason = forms.CharField(
        max_length=300,
        error_messages={"required": "Say why the payment is voided."},
    )
    q = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)

    def clean_reason(self):
        reason = " ".join(self.cleaned_data["reason"].split())
        if not reason:
            raise forms.ValidationError("Say why the payment is voided.")
        return reason


class LastBuncoForm(forms.Form):
    """Staff naming the night's last bunco: one of the buncos on the results, and why."""

    bunco = forms.ChoiceField(label="Last bunco")
    reason = forms.CharField(
        label="Reason",
        max_length=300,
        error_messages={"required": "Say why this bunco is the last one."},
    )

    def __init__(self, *args, buncos: list[tuple[str, str]], **kw):
        super().__init__(*args, **kw)
        self.fields["bunco"].choices = [("", "Choose the bunco…"), *buncos]

    def chosen(self) -> tuple[int, int]:
        """The result version and the player of the chosen bunco."""
        result_id, player_id = self.cleaned_data["bunco"].split(":")
        return int(result_id), int(player_id)
