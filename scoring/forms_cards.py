"""Forms of the score card pages: a paper card typed in, a confirmation, a resolution.

The card form only checks that each box holds something sensible; whether the marks agree
with the totals, whether these rules have snake eyes and how many rounds a player can play are
the service's checks (`scoring.services.cards.enter_card`), so the rule lives in one place and
the page shows the service's message. Nothing is pre-filled from the table record: staff type
what the paper says, or the check would be no check.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms

from scoring.rules.cards import Card
from scoring.rules.ruleset import round_in_sets

from .forms import STALE_PAGE, count_field
from .services.card_writes import MAX_COUNT
from .services.cards import RESOLVE_CHOICES

MARKS = [("W", "W"), ("L", "L"), ("", "–")]
LAYOUTS = [("rounds", "Round by round"), ("totals", "Totals only")]
COUNT_LABELS = {
    "wins": "Wins",
    "losses": "Losses",
    "buncos": "Buncos",
    "minis": "Minis",
    "snake_eyes": "Snake eyes",
}


@dataclass(frozen=True)
class RoundBox:
    number: int
    target: int
    field: forms.BoundField


@dataclass(frozen=True)
class SetBoxes:
    number: int
    rounds: list[RoundBox]


class CardForm(forms.Form):
    """What one paper card says: W / L / blank per round, or the totals only."""

    base_version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    layout = forms.ChoiceField(
        choices=LAYOUTS,
        initial="rounds",
        widget=forms.RadioSelect,
        error_messages={"required": "Choose round by round or totals only."},
    )

    def __init__(self, *args, stage, **kwargs):
        super().__init__(*args, **kwargs)
        self.targets = list(stage.targets)
        self.round_count = stage.round_count
        self.snake_eyes = bool(stage.rules.get("snake_eyes"))
        for number in range(1, self.round_count + 1):
            self.fields[f"r{number}"] = forms.ChoiceField(
                choices=MARKS,
                required=False,
                widget=forms.RadioSelect,
                error_messages={"invalid_choice": "W, L or blank."},
            )
        self.counts = ["wins", "losses", "buncos", "minis"] + (
            ["snake_eyes"] if self.snake_eyes else []
        )
        for name in self.counts:
            self.fields[name] = count_field(COUNT_LABELS[name], MAX_COUNT)

    # --- for the template ---------------------------------------------------------------------

    def sets(self) -> list[SetBoxes]:
        sets: list[SetBoxes] = []
        for number in range(1, self.round_count + 1):
            set_number, target = round_in_sets(self.targets, number)
            if not sets or sets[-1].number != set_number:
                sets.append(SetBoxes(set_number, []))
            sets[-1].rounds.append(RoundBox(number, target, self[f"r{number}"]))
        return sets

    def count_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.counts]

    def round_errors(self) -> list[str]:
        return [
            f"Round {n}: {e}" for n in range(1, self.round_count + 1) for e in self[f"r{n}"].errors
        ]

    @property
    def chosen_layout(self) -> str:
        value = self["layout"].value()
        return value if value in dict(LAYOUTS) else "rounds"

    # --- checking -----------------------------------------------------------------------------

    def clean(self):
        data = super().clean()
        if data.get("layout") == "rounds":
            marks = [data.get(f"r{n}") or None for n in range(1, self.round_count + 1)]
            if not any(marks) and not self.errors:
                self.add_error(
                    None,
                    "Mark W or L for every round the player played, or choose “totals only”.",
                )
        elif data.get("layout") == "totals":
            for name in ("wins", "losses"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, "Type what the card says (0 if none).")
        return data

    def card(self) -> Card:
        data = self.cleaned_data
        counts = {name: data.get(name) for name in ("buncos", "minis", "snake_eyes")}
        counts = {name: value or 0 for name, value in counts.items()}
        if data["layout"] == "totals":
            return Card((), data["wins"], data["losses"], **counts)
        marks = tuple(data.get(f"r{n}") or None for n in range(1, self.round_count + 1))
        # Totals left empty are counted from the marks; typed ones are checked against them
        # by the service, which is the point of typing them.
        wins = data["wins"] if data.get("wins") is not None else marks.count("W")
        losses = data["losses"] if data.get("losses") is not None else marks.count("L")
        return Card(marks, wins, losses, **counts)


class ConfirmForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class ResolveForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    choice = forms.ChoiceField(
        choices=list(RESOLVE_CHOICES.items()),
        widget=forms.RadioSelect,
        error_messages={"required": "Say which one is right."},
    )
    reason = forms.CharField(
        max_length=300,
        label="Why is it right?",
        widget=forms.TextInput(
            attrs={
                "class": "form-control",
                "autocomplete": "off",
                "placeholder": "e.g. checked the tally sheet with the table",
            }
        ),
        error_messages={"required": "Say why this version is the right one."},
    )

    def clean_reason(self):
        return " ".join(self.cleaned_data["reason"].split())

    def clean(self):
        data = super().clean()
        if "version" in self.errors:
            self.add_error(None, STALE_PAGE)
        return data
