"""What the printouts are made from: plain frozen values, filled by a Django service.

Keeping the PDF code on these (and never on models) lets a Celery task, the bench and the
tests render the same documents without a database, and means a printout can only show what
the service chose to hand over. Lists given for tuple fields are stored as tuples so a value
cannot change after it was checked.

The row types are NamedTuples, so a service may pass plain tuples in the documented order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from scoring.rules.ruleset import MOVEMENT_STYLES


def _freeze(obj: object, *names: str) -> None:
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, list):
            object.__setattr__(obj, name, tuple(value))


@dataclass(frozen=True)
class EventInfo:
    """The event as every printout names it, and the rules the paper has to follow."""

    name: str
    charity: str
    date_text: str
    venue: str
    preset_label: str
    targets: tuple[int, ...]
    sets: int
    movement: str
    movement_text: str
    snake_eyes: bool

    def __post_init__(self) -> None:
        _freeze(self, "targets")
        if not self.targets:
            raise ValueError("A set needs at least one round (target number).")
        if isinstance(self.sets, bool) or not isinstance(self.sets, int) or self.sets < 1:
            raise ValueError(f"The number of sets must be 1 or more, not {self.sets!r}.")
        if self.movement not in MOVEMENT_STYLES:
            raise ValueError(
                f"Unknown movement {self.movement!r}; choose one of {', '.join(MOVEMENT_STYLES)}."
            )


@dataclass(frozen=True)
class CardInfo:
    """One player's score card; `url` is the signed link the card's QR code opens."""

    player_name: str
    code: str
    pod: int
    table: int
    seat: int
    url: str


@dataclass(frozen=True)
class TableInfo:
    """A table's starting seats in order 1-4 (partners as `scoring.rules.table.partner_pairs`)."""

    pod: int
    table: int
    head: bool
    seats: tuple[str, str, str, str]

    def __post_init__(self) -> None:
        _freeze(self, "seats")
        if len(self.seats) != 4:
            raise ValueError(f"Pod {self.pod} table {self.table} needs exactly four seats.")


class PodSeating(NamedTuple):
    """One pod for the seating charts."""

    pod: int
    hostess: str
    staff: tuple[str, ...]
    tables: tuple[TableInfo, ...]


class ResultRow(NamedTuple):
    name: str
    wins: int
    losses: int
    buncos: int
    minis: int
    snake_eyes: int
    status: str


class PodResults(NamedTuple):
    pod: int
    rows: tuple[ResultRow, ...]


class QualifierRow(NamedTuple):
    name: str
    pod: int
    reason: str


class FinalistRow(NamedTuple):
    seat: int
    name: str
    reason: str
    path: str


@dataclass(frozen=True)
class ResultsInfo:
    """A stage's standings per pod and who goes on; `winner` once the final table is over."""

    stage_label: str
    pods: tuple[PodResults, ...]
    qualifiers: tuple[QualifierRow, ...] = ()
    roll_offs: tuple[str, ...] = ()
    finalists: tuple[FinalistRow, ...] = ()
    winner: str | None = None

    def __post_init__(self) -> None:
        _freeze(self, "pods", "qualifiers", "roll_offs", "finalists")


@dataclass(frozen=True)
class PayoutLine:
    """One prize to hand out; `paid_by`/`paid_at` are filled once paid, `voided` says why not."""

    category: str
    scope: str
    place: str  # worded by the service: "1st"
    winner: str
    code: str
    amount_text: str
    paid_by: str = ""
    paid_at: str = ""
    voided: str = ""
    given_back: str = ""  # worded by the service: "$25.00", the part the winner gave back
