"""A rule preset as one immutable value, so a round can never be played by half-edited rules.

The Django model `RulePreset` mirrors these fields one to one; `to_dict`/`from_dict` are the
only bridge, which is why they must round-trip exactly and validate everything.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, NamedTuple

from .errors import RuleError


class Movement(NamedTuple):
    """How a movement style is put to people: its name, a summary that fits a form's choice
    and a full sentence for the printed movement guide."""

    name: str
    summary: str
    guide: str

    @property
    def label(self) -> str:
        return f"{self.name} ({self.summary})"


# The one list of movement styles; the preset model's choices, forms and printouts read it.
MOVEMENTS: dict[str, Movement] = {
    "progressive": Movement(
        "Progressive",
        "winners move up, losers move down",
        "Winners move up a table and losers move down one; the head table's winners stay "
        "and the bottom table's losers stay.",
    ),
    "losers_walk": Movement(
        "Losers walk",
        "winners stay, losers move on A→B→C→A",
        "Winners stay at their table; losers walk on to the next table (A to B to C, and "
        "from the last table back to A).",
    ),
    "winners_up": Movement(
        "Winners up",
        "winners climb, head-table losers go to the bottom",
        "Winners climb a table; losers stay, except the head table's losers, who go to the "
        "bottom table.",
    ),
}
MOVEMENT_STYLES: tuple[str, ...] = tuple(MOVEMENTS)
MOVEMENT_LABELS: dict[str, str] = {style: m.label for style, m in MOVEMENTS.items()}

# How a tied table is settled after a round (see `scoring.rules.tiebreak.break_table_tie`).
TIE_BREAK_LABELS: dict[str, str] = {
    "high_die_pair": "One player of each team rolls one die, highest wins",
    "high_die_player": "Each player rolls one die, highest wins",
    "roll_to_target": "Keep rolling until someone rolls the target number",
    "turn_around_table": "One more turn around the table",
}
TIE_BREAK_METHODS: tuple[str, ...] = tuple(TIE_BREAK_LABELS)

# How a score card becomes verified (see `scoring.rules.cards.state`): one staff member's check
# against the table results, or a second person confirming someone else's entry.
ONE_STAFF = "one_staff"
SECOND_PERSON = "second_person"
VERIFICATION_LABELS: dict[str, str] = {
    ONE_STAFF: "One staff member checks each card against the table results",
    SECOND_PERSON: "A second person confirms each card",
}
VERIFICATION_MODES: tuple[str, ...] = tuple(VERIFICATION_LABELS)

_INT_FIELDS = ("bunco_points", "mini_bunco_points", "bell_points")
_BOOL_FIELDS = (
    "snake_eyes",
    "bell_on_bunco",
    "finish_turn_after_bell",
    "head_table_stops_at_bell",
    "everyone_rolls_once",
)
# The most qualifying sets any event may play (the tournament form's own limit).
MAX_QUALIFYING_SETS = 10


def round_in_sets(targets: tuple[int, ...] | list[int], number: int) -> tuple[int, int]:
    """Round `number` (from 1) of a stage as (its set, its target): a set plays every target
    once, in order, and the next set starts again from the first. Rounds store both when a
    stage is drawn; pages that lay out rounds not stored yet ask here too."""
    if number < 1:
        raise RuleError("Rounds are numbered from 1.")
    index, place = divmod(number - 1, len(targets))
    return index + 1, targets[place]


def _is_int(value: object) -> bool:
    # bool is an int subclass; True as "points" is almost certainly a form bug.
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    """Everything that differs between the rule sheets an event can play by."""

    name: str
    label: str
    targets: tuple[int, ...]
    bunco_points: int = 21
    mini_bunco_points: int = 5
    snake_eyes: bool
    bell_points: int = 21
    bell_on_bunco: bool
    finish_turn_after_bell: bool
    # Defaults keep rules stored by a stage drawn before these fields existed playable.
    head_table_stops_at_bell: bool = False
    everyone_rolls_once: bool
    movement: str
    table_tie_break: str
    min_qualifying_sets: int = 1
    max_qualifying_sets: int = MAX_QUALIFYING_SETS
    verification: str = SECOND_PERSON

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise RuleError("A rule preset needs a name.")
        if not isinstance(self.label, str) or not self.label.strip():
            raise RuleError("A rule preset needs a label.")
        targets = self.targets
        if isinstance(targets, list):
            # Forms and JSON hand us lists; accept them but store the immutable form.
            targets = tuple(targets)
            object.__setattr__(self, "targets", targets)
        if not isinstance(targets, tuple) or not targets:
            raise RuleError("A set needs at least one target number.")
        for target in targets:
            if not _is_int(target) or not 1 <= target <= 6:
                raise RuleError(f"Target numbers must be whole numbers 1 to 6, not {target!r}.")
        if len(set(targets)) != len(targets):
            raise RuleError("Each target number may appear only once in a set.")
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if not _is_int(value) or value < 0:
                raise RuleError(f"{name.replace('_', ' ')} must be a whole number of 0 or more.")
        if self.bell_points < 1:
            raise RuleError("The bell needs at least 1 point to ring.")
        for name in _BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise RuleError(f"{name.replace('_', ' ')} must be yes or no.")
        low, high = self.min_qualifying_sets, self.max_qualifying_sets
        if not (_is_int(low) and _is_int(high) and 1 <= low <= high <= MAX_QUALIFYING_SETS):
            raise RuleError(
                "The fewest and most qualifying sets must be whole numbers from 1 to "
                f"{MAX_QUALIFYING_SETS}, the fewest no more than the most."
            )
        if self.movement not in MOVEMENT_STYLES:
            raise RuleError(
                f"Unknown movement {self.movement!r}; choose one of {', '.join(MOVEMENT_STYLES)}."
            )
        if self.table_tie_break not in TIE_BREAK_METHODS:
            raise RuleError(
                f"Unknown tie-break {self.table_tie_break!r}; "
                f"choose one of {', '.join(TIE_BREAK_METHODS)}."
            )
        if self.verification not in VERIFICATION_MODES:
            raise RuleError(
                f"Unknown card verification {self.verification!r}; "
                f"choose one of {', '.join(VERIFICATION_MODES)}."
            )

    @property
    def qualifying_sets_text(self) -> str:
        """Says "3 qualifying sets" or "2 to 4 qualifying sets", as the sheet would."""
        low, high = self.min_qualifying_sets, self.max_qualifying_sets
        count = str(low) if low == high else f"{low} to {high}"
        return f"{count} qualifying set{'' if high == 1 else 's'}"

    def check_qualifying_sets(self, sets: int) -> None:
        """An event plays as many sets as its sheet says; a copied preset may allow others."""
        if not _is_int(sets) or not self.min_qualifying_sets <= sets <= self.max_qualifying_sets:
            raise RuleError(
                f"{self.label} plays {self.qualifying_sets_text}, not {sets}. "
                "To play a different number, copy the preset and change it there."
            )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, so stored seeds plus this dict replay a round exactly."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["targets"] = list(self.targets)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Strict inverse of `to_dict`: unknown keys are refused so typos don't pass silently."""
        if not isinstance(data, dict):
            raise RuleError("Rules must be given as a mapping of field names to values.")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RuleError(f"Unknown rule fields: {', '.join(unknown)}.")
        optional = {f.name for f in fields(cls) if f.default is not MISSING}
        missing = sorted(known - set(data) - optional)
        if missing:
            raise RuleError(f"Missing rule fields: {', '.join(missing)}.")
        values = dict(data)
        if isinstance(values["targets"], list | tuple):
            values["targets"] = tuple(values["targets"])
        return cls(**values)
