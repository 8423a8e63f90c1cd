"""What the final table page, the board and the results page show of the final table."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.rules import next_thrower

from ..models import FinalSeat, FinalTable, FinalThrow, Player
from ..services import final_table as service
from .advancement import Throw


@dataclass(frozen=True)
class SeatShown:
    seat: FinalSeat

    @property
    def name(self) -> str:
        return self.seat.player.name

    @property
    def drawn(self) -> bool:
        return bool(self.seat.pool)

    @property
    def reason(self) -> str:
        pool = len(self.seat.pool)
        if pool:
            return f"{self.seat.reason} (1 of {pool})"
        return self.seat.reason


@dataclass
class FinalShown:
    final: FinalTable
    seats: list[SeatShown]
    throws: list[FinalThrow]
    order: list[SeatShown] = field(default_factory=list)
    order_throws: list[Throw] = field(default_factory=list)
    needed: list[SeatShown] = field(default_factory=list)  # who throws for the order next
    order_faces: list[int] = field(default_factory=list)  # the order roll's dice so far

    @property
    def winner(self) -> SeatShown | None:
        return next((s for s in self.seats if s.seat.player_id == self.final.winner_id), None)

    @property
    def counted(self) -> list[FinalThrow]:
        """The throws that stand: a voided one is thrown again by the same finalist."""
        return [t for t in self.throws if t.voided_at is None]

    @property
    def next_number(self) -> int:
        return len(self.throws) + 1

    @property
    def voidable(self) -> FinalThrow | None:
        """The latest throw, while nothing has been thrown after it."""
        latest = self.throws[-1] if self.throws else None
        return latest if latest is not None and latest.voided_at is None else None

    @property
    def next_seat(self) -> SeatShown | None:
        if not self.order or self.final.winner_id is not None:
            return None
        player = next_thrower(self.final.order, len(self.counted))
        return next((s for s in self.seats if s.seat.player_id == player), None)

    @property
    def order_started(self) -> bool:
        """Typed dice of a tie for the lowest are in: the rest must be typed too."""
        return bool(self.order_faces) and not self.final.order

    @property
    def last_throw(self) -> FinalThrow | None:
        counted = self.counted
        return counted[-1] if counted else None

    @property
    def recent_throws(self) -> list[FinalThrow]:
        """The latest throws first, for the board."""
        return list(reversed(self.throws[-10:]))

    @property
    def places(self) -> list[tuple[SeatShown, int | None, FinalThrow | None]]:
        """Each seat with its place in the throwing order and its latest throw."""
        position = {s.seat.pk: n for n, s in enumerate(self.order, 1)}
        last = {t.player_id: t for t in self.counted}
        return [(s, position.get(s.seat.pk), last.get(s.seat.player_id)) for s in self.seats]


def final_shown(final: FinalTable) -> FinalShown:
    """The table, the order roll and every throw: three queries whatever happened."""
    seats = [SeatShown(s) for s in final.seats.select_related("player").order_by("seat")]
    throws = list(final.throws.select_related("player").order_by("number"))
    by_player = {s.seat.player_id: s for s in seats}
    shown = FinalShown(final, seats, throws)
    shown.order = [by_player[p] for p in final.order if p in by_player]
    shown.order_faces = service.order_faces(final)
    state = service.order_state(final, [s.seat.player_id for s in seats], shown.order_faces)
    if state is not None:
        shown.order_throws = [
            Throw([(by_player[p].name, face) for p, face in throw.items()])
            for throw in state.rounds
        ]
        shown.needed = [by_player[p] for p in state.needed]
    return shown


def drawn_pools(shown: FinalShown) -> list[tuple[int, list[str]]]:
    """Each drawn seat's pool by name, (seat number, names in the stored order), read in one
    query: the page says the seats were drawn from these lists, so it lists them."""
    drawn = [s.seat for s in shown.seats if s.drawn]
    ids = {pk for seat in drawn for pk in seat.pool}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}
    return [(seat.seat, [names.get(pk, str(pk)) for pk in seat.pool]) for seat in drawn]


def final_of(tournament) -> FinalTable | None:
    return (
        FinalTable.objects.filter(tournament=tournament)
        .select_related("winner", "semi_stage", "seated_by")
        .first()
    )
