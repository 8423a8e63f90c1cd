"""Forms of the advancement and final table pages: they only read dice.

No form takes a seed: what the site rolls or draws comes from the tournament's draw secret.

Whether the dice entered settle a roll-off (too few, a spare one) is the service's and the
engine's decision, and their message says what is wrong; these forms only check that every
die is a face from 1 to 6.
"""

from __future__ import annotations

import re

from django import forms

from ..models import Stage

FACE_ERROR = "Each die is a number from 1 to 6."
FACE = re.compile(r"[1-6]")


def parse_faces(text: str) -> list[int]:
    """ "4 2, 6" -> [4, 2, 6]; anything but faces 1..6 is refused."""
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    # ASCII faces only: "²" passes str.isdigit() but not int().
    if any(not FACE.fullmatch(p) for p in parts):
        raise forms.ValidationError(FACE_ERROR)
    return [int(p) for p in parts]


class DiceInput(forms.TextInput):
    """Several inputs with one name (one per player, in throw order): the values as a list."""

    def value_from_datadict(self, data, files, name):
        getlist = getattr(data, "getlist", None)
        return getlist(name) if getlist else data.get(name, [])


class FirstThrowField(forms.Field):
    """The first throw, one input per player: [] when nothing was typed."""

    widget = DiceInput

    def to_python(self, value):
        values = [str(v).strip() for v in (value or [])]
        if not any(values):
            return []
        if not all(values):
            raise forms.ValidationError("Enter every player's die of the first throw.")
        return parse_faces(" ".join(values))


class DiceForm(forms.Form):
    """One die per player in the order listed, then any re-throws among those still tied.

    With `roll` set the site rolls instead, and the dice fields are ignored.
    """

    DICE_FIELDS = ("first", "rethrows")
    first = FirstThrowField(required=False)
    rethrows = forms.CharField(required=False, max_length=200)
    roll = forms.BooleanField(required=False)

    def clean_rethrows(self):
        return parse_faces(self.cleaned_data["rethrows"])

    def clean(self):
        data = super().clean()
        if data.get("roll"):  # the site rolls: whatever was typed is not used
            for name in self.DICE_FIELDS:
                self.errors.pop(name, None)
            return data
        for name in self.DICE_FIELDS:  # the message says which dice: no field name before it
            if name in self.errors:
                raise forms.ValidationError(self.errors.pop(name))
        if not self.errors and not any(data.get(name) for name in self.DICE_FIELDS):
            raise forms.ValidationError("Enter the dice, or roll on screen.")
        return data

    @property
    def faces(self) -> list[int] | None:
        """The dice in throw order, or None when the site is to roll."""
        if self.cleaned_data.get("roll"):
            return None
        return [face for name in self.DICE_FIELDS for face in self.cleaned_data[name]]


class OrderForm(DiceForm):
    """The order roll's next dice: one input per player throwing now, or `roll` for the site.

    How many dice the roll needs (every finalist, then only those tied on the lowest) is the
    engine's decision; the page shows one box per player it asks for.
    """

    DICE_FIELDS = ("dice",)
    dice = FirstThrowField(required=False)
    first = None
    rethrows = None


class RollOffForm(DiceForm):
    """Any roll-off's dice, a cut's or a prize's: one die per player in throw order, then any
    re-throws, or `roll` for the site. Which tie it settles comes from hidden fields: a cut's
    stage, group and category, or a prize tie's key; `tie` says which the kind needs, so the
    one view behind both pages refuses a form that names no tie of its kind."""

    stage = forms.ChoiceField(
        required=False,
        choices=[(Stage.Kind.QUALIFYING, "qualifying"), (Stage.Kind.SEMI_FINAL, "semi-final")],
    )
    group = forms.CharField(required=False, max_length=30)
    category = forms.CharField(required=False, max_length=20)
    key = forms.CharField(required=False, max_length=80, widget=forms.HiddenInput)

    NAMED_BY = {"cut": ("stage", "group", "category"), "prize": ("key",)}

    def __init__(self, *args, kind: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        for name in self.NAMED_BY[kind]:
            self.fields[name].required = True

    def tie(self) -> dict[str, str]:
        """The hidden fields that name the tie, for the service."""
        return {name: self.cleaned_data[name] for name in self.NAMED_BY[self.kind]}


class StageChoiceForm(forms.Form):
    stage = forms.ChoiceField(
        choices=[(Stage.Kind.QUALIFYING, "qualifying"), (Stage.Kind.SEMI_FINAL, "semi-final")]
    )


class ThrowForm(forms.Form):
    """The next finalist's three dice, or `roll` for the site; `number` guards double taps."""

    number = forms.IntegerField(min_value=1)
    die1 = forms.IntegerField(label="Die 1", required=False, min_value=1, max_value=6)
    die2 = forms.IntegerField(label="Die 2", required=False, min_value=1, max_value=6)
    die3 = forms.IntegerField(label="Die 3", required=False, min_value=1, max_value=6)
    roll = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        if data.get("roll"):
            return data
        dice = [data.get(f"die{n}") for n in (1, 2, 3)]
        if any(d is None for d in dice) and not any(f"die{n}" in self.errors for n in (1, 2, 3)):
            raise forms.ValidationError("Enter all three dice, each 1 to 6.")
        return data

    @property
    def dice(self) -> tuple[int, int, int] | None:
        data = self.cleaned_data
        if data.get("roll"):
            return None
        return (data["die1"], data["die2"], data["die3"])


class VoidThrowForm(forms.Form):
    """The throw the organiser saw as the last one, and why it is taken back."""

    number = forms.IntegerField(min_value=1)
    reason = forms.CharField(
        max_length=200,
        error_messages={"required": "Say why the throw is voided (for example: die 2 was a 5)."},
    )
