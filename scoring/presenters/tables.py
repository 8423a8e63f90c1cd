"""A pod's tables as its page shows them: seats, partners, results, roll credits and where
each player goes next round."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import BooleanField, Prefetch, QuerySet, prefetch_related_objects
from django.db.models.expressions import RawSQL

from scoring.forms import ResultForm
from scoring.models import RollCredit, TableResult
from tournaments.models import Pod, Seat


def seat_name(seat: Seat) -> str:
    return seat.player.name if seat.player_id is not None else "ghost"


def token(seat: Seat) -> tuple[str, int]:
    return ("p", seat.player_id) if seat.player_id is not None else ("g", seat.ghost)


@dataclass
class SeatRow:
    seat: Seat
    hostess: bool = False
    next_seat: Seat | None = None

    @property
    def number(self) -> int:
        return self.seat.seat

    @property
    def name(self) -> str:
        return seat_name(self.seat)

    @property
    def is_ghost(self) -> bool:
        return self.seat.player_id is None

    @property
    def pair(self) -> int:
        return 0 if self.seat.seat in (1, 3) else 1


@dataclass
class CreditRow:
    name: str
    seat: int | None
    credit: RollCredit


@dataclass
class TableView:
    number: int
    seats: list[SeatRow]
    result: TableResult | None = None
    credits: list[CreditRow] = field(default_factory=list)
    form: ResultForm | None = None  # the pod page's own form for this table

    @property
    def head(self) -> bool:
        return self.number == 1

    def pair_names(self, pair: int) -> str:
        first, second = (1, 3) if pair == 0 else (2, 4)
        by_number = {row.number: row for row in self.seats}
        return " & ".join(by_number[n].name for n in (first, second) if n in by_number)

    @property
    def names_13(self) -> str:
        return self.pair_names(0)

    @property
    def names_24(self) -> str:
        return self.pair_names(1)

    @property
    def winner_names(self) -> str:
        return self.pair_names(self.result.winner) if self.result else ""


def credit_rows(result: TableResult, seats: list[Seat]) -> list[CreditRow]:
    seat_of = {s.player_id: s for s in seats if s.player_id is not None}
    rows = []
    for credit in result.roll_credits():
        seat = seat_of.get(credit.player_id)
        name = seat.player.name if seat else f"Player #{credit.player_id}"
        rows.append(CreditRow(name, seat.seat if seat else None, credit))
    return sorted(rows, key=lambda row: row.seat or 9)


def build_tables(
    pod: Pod, seats: list[Seat], results: dict[int, TableResult], next_seats: list[Seat]
) -> list[TableView]:
    going_to = {token(s): s for s in next_seats}
    by_table: dict[int, list[Seat]] = {}
    for seat in seats:
        by_table.setdefault(seat.table, []).append(seat)
    tables = []
    for number in range(1, pod.tables + 1):
        table_seats = sorted(by_table.get(number, []), key=lambda s: s.seat)
        rows = [
            SeatRow(
                seat=s,
                hostess=s.player_id is not None and s.player_id == pod.hostess_id,
                next_seat=going_to.get(token(s)),
            )
            for s in table_seats
        ]
        result = results.get(number)
        view = TableView(number, rows, result)
        if result is not None:
            view.credits = credit_rows(result, table_seats)
        tables.append(view)
    return tables


def _credited() -> RawSQL:
    """Whether a result has roll credits, as SQL beside its row. Written out because building
    the same `Exists(...)` doubled the CPU of the results' query, on the two pages staff
    reload all evening. It names the results' table, which is the alias Django gives a
    queryset's own model."""
    q = connection.ops.quote_name
    return RawSQL(
        f"EXISTS (SELECT 1 FROM {q(RollCredit._meta.db_table)} rc WHERE rc.{q('result_id')}"
        f" = {q(TableResult._meta.db_table)}.{q('id')})",
        (),
        output_field=BooleanField(),
    )


def with_credits(results: QuerySet) -> list[TableResult]:
    """The results, with who entered them and their roll credits; the credits are read (one
    more query) only when one of the results has any."""
    rows = list(results.select_related("entered_by").annotate(credited=_credited()))
    prefetch_related_objects(
        [r for r in rows if r.credited],
        Prefetch("credits", queryset=RollCredit.objects.order_by("player_id")),
    )
    return rows
