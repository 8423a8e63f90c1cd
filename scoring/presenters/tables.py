"""A pod's tables as its page shows them: seats, partners, results, roll credits and where
each player goes next round."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import QuerySet, TextField
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


# Each result's credits in one text column: "player:buncos:minis:snake_eyes" items.
CREDIT_FIELDS = ("player_id", "buncos", "minis", "snake_eyes")
JOIN_TEXT = {"postgresql": "string_agg({}, ',')", "sqlite": "group_concat({}, ',')"}


def _credits_text() -> RawSQL:
    """A result's roll credits as text beside its row (NULL when it has none), so the form
    and the pod page, which staff reload all evening, read results and credits in one
    statement. Written out because Django has no portable string aggregate, and building an
    `Exists` to decide whether to ask again doubled the results query's CPU. It names the
    results' table, which is the alias Django gives a queryset's own model; the two
    databases the site runs on differ only in the aggregate's name."""
    q = connection.ops.quote_name
    item = " || ':' || ".join(f"rc.{q(name)}" for name in CREDIT_FIELDS)
    return RawSQL(
        f"(SELECT {JOIN_TEXT[connection.vendor].format(item)} "
        f"FROM {q(RollCredit._meta.db_table)} rc "
        f"WHERE rc.{q('result_id')} = {q(TableResult._meta.db_table)}.{q('id')})",
        (),
        output_field=TextField(),
    )


def _credits_of(result: TableResult, text: str | None) -> list[RollCredit]:
    credits = []
    for item in (text or "").split(","):
        if item:
            values = dict(zip(CREDIT_FIELDS, map(int, item.split(":")), strict=True))
            credits.append(RollCredit(result=result, **values))
    return sorted(credits, key=lambda c: c.player_id)


def with_credits(results: QuerySet) -> list[TableResult]:
    """The results, with who entered them and their roll credits (`roll_credits()`), in one
    query."""
    rows = list(results.select_related("entered_by").annotate(credits_text=_credits_text()))
    for row in rows:
        row.read_credits = _credits_of(row, row.credits_text)
    return rows
