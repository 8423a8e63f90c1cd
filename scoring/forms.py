"""The table result form: what staff type on a phone, turned into a `ResultEntry`.

The form only checks that each box holds a sensible number; whether the numbers agree with
each other (points against the winner, a tie with level points, credits on a ghost seat) is
the service's job, so the rule lives in one place and the page shows the service's message.
"""

from __future__ import annotations

from django import forms

from scoring.rules.table import PAIR_LABELS
from scoring.services.results import MAX_COUNT, MAX_POINTS, ResultEntry, Tally

SEATS = (1, 2, 3, 4)
# A hidden version missing or garbled: a crafted post, or a page from before a deploy. Its own
# error would sit on a hidden field nobody sees, so the form says this instead.
STALE_PAGE = "This page is out of date: reload it."
PAIR_CHOICES = list(enumerate(PAIR_LABELS))


def count_field(label: str, maximum: int = MAX_COUNT) -> forms.IntegerField:
    """A small count box that opens the number pad on a phone."""
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=0,
        max_value=maximum,
        widget=forms.NumberInput(
            attrs={
                "inputmode": "numeric",
                "class": "form-control count",
                "autocomplete": "off",
            }
        ),
    )


def _points_field(label: str) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=0,
        max_value=MAX_POINTS,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "form-control"}),
    )


class ResultForm(forms.Form):
    """One table's result. Count boxes exist for all four seats; the page shows real players'.

    Keeping the ghost seats' boxes in the form means a crafted or stale post that credits a
    ghost reaches the service and gets its clear refusal instead of being silently dropped.
    """

    winner = forms.TypedChoiceField(
        choices=PAIR_CHOICES,
        coerce=int,
        error_messages={
            "required": "Tap the winning pair.",
            "invalid_choice": f"Tap the winning pair: {' or '.join(PAIR_LABELS).lower()}.",
        },
    )
    base_version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    points_13 = _points_field(PAIR_LABELS[0])
    points_24 = _points_field(PAIR_LABELS[1])
    tie = forms.BooleanField(
        required=False,
        label="Tie — decided by roll-off",
        widget=forms.CheckboxInput(attrs={"class": "form-check-input"}),
    )
    tie_note = forms.CharField(
        required=False,
        max_length=200,
        label="Roll-off dice (optional)",
        widget=forms.TextInput(
            attrs={"class": "form-control", "autocomplete": "off", "placeholder": "e.g. 5 vs 3"}
        ),
    )
    reason = forms.CharField(
        required=False,
        max_length=300,
        label="Reason for the correction",
        widget=forms.TextInput(attrs={"class": "form-control", "autocomplete": "off"}),
    )

    def __init__(self, *args, snake_eyes: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.kinds = ["buncos", "minis"] + (["snake_eyes"] if snake_eyes else [])
        labels = {"buncos": "Buncos", "minis": "Minis", "snake_eyes": "Snake eyes"}
        for seat in SEATS:
            for kind in self.kinds:
                self.fields[f"{kind}_{seat}"] = count_field(labels[kind])

    def clean_tie_note(self):
        return " ".join(self.cleaned_data["tie_note"].split())

    def clean(self):
        data = super().clean()
        if "base_version" in self.errors:
            self.add_error(None, STALE_PAGE)
        if data.get("tie_note") and not data.get("tie"):
            self.add_error(
                "tie_note", "Tick “tie” to record a roll-off, or clear the roll-off note."
            )
        # The service accepts a tie without points; a tie is only a tie with level points.
        if data.get("tie") and (data.get("points_13") is None or data.get("points_24") is None):
            self.add_error(None, "A tie needs both teams' points, and they must be level.")
        return data

    def count_fields(self, seat: int) -> list[forms.BoundField]:
        return [self[f"{kind}_{seat}"] for kind in self.kinds]

    def player_rows(self, seat_rows) -> list[dict]:
        """Each real player's count boxes; a ghost's rolls are its partner's."""
        return [
            {"row": row, "fields": self.count_fields(row.number)}
            for row in seat_rows
            if not row.is_ghost
        ]

    def has_details(self) -> bool:
        """Anything besides the winner filled in: the details section starts open."""
        names = ["points_13", "points_24", "tie", "tie_note"]
        names += [f"{kind}_{seat}" for seat in SEATS for kind in self.kinds]
        source = self.data if self.is_bound else self.initial
        return any(source.get(name) not in (None, "", 0, "0", False) for name in names)

    def entry(self) -> ResultEntry:
        data = self.cleaned_data
        tallies = {}
        for seat in SEATS:
            counts = {kind: data.get(f"{kind}_{seat}") for kind in self.kinds}
            if any(value is not None for value in counts.values()):
                tallies[seat] = Tally(**{k: v or 0 for k, v in counts.items()})
        tie = bool(data.get("tie"))
        note = data.get("tie_note", "")
        return ResultEntry(
            winner=data["winner"],
            points=(data.get("points_13"), data.get("points_24")),
            tie=tie,
            tie_break={"note": note} if tie and note else {},
            tallies=tallies,
            reason=data.get("reason", ""),
        )

    @staticmethod
    def initial_from(result, seat_of_player: dict[int, int]) -> dict:
        """The form's starting values: the current result, so a correction changes only what
        is wrong. `seat_of_player` maps player ids to their seat at this table."""
        if result is None:
            return {"base_version": 0}
        initial = {
            "base_version": result.version,
            "points_13": result.points_13,
            "points_24": result.points_24,
            "tie": result.tie,
            "tie_note": (result.tie_break or {}).get("note", ""),
        }
        for credit in result.roll_credits():
            seat = seat_of_player.get(credit.player_id)
            if seat is None:
                continue
            for kind in ("buncos", "minis", "snake_eyes"):
                if getattr(credit, kind):
                    initial[f"{kind}_{seat}"] = getattr(credit, kind)
        return initial


def add_pod_page_forms(tables, stage, round_) -> None:
    """Each table's form on the pod page (once its round has started), where a phone that
    lost the network can still tap the winner of every table and the queue sends them later.
    Three tables share the page, so the boxes' ids carry the table's number. `tables` are the
    pod page's TableViews."""
    if round_.status == "pending":
        return
    for table in tables:
        seats = {row.seat.player_id: row.number for row in table.seats if not row.is_ghost}
        form = ResultForm(
            initial=ResultForm.initial_from(table.result, seats),
            snake_eyes=bool(stage.rules.get("snake_eyes")),
            auto_id=f"t{table.number}-%s",
        )
        form.id_prefix = f"t{table.number}-"
        form.rows = form.player_rows(table.seats)
        form.needs_reason = round_.status == "closed" and table.result is not None
        table.form = form
