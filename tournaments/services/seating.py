"""Stored seats in, engine out: each round's seats from the last one's results.

Seats are tokens: a player's id (> 0) or a ghost's number as a negative int. The engine only
knows players and `None`; `plan_moves` says where each new seat's occupant came from, so a
ghost keeps its number as it moves, and a late arrival who took ghost 2's place stays in that
place whichever way a corrected result reshuffles the room.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from scoring.models import TableResult

from ..models import Pod, RosterChange, Round, Seat
from ..seating import plan_moves

Token = int
TableTokens = tuple[Token, Token, Token, Token]


def token_of(seat: Seat) -> Token:
    return seat.player_id if seat.player_id is not None else -seat.ghost


def seat_rows(round_: Round, pod: Pod, tables: Sequence[Sequence[Token]]) -> list[Seat]:
    return [
        Seat(
            round=round_,
            pod=pod,
            table=t,
            seat=s,
            player_id=token if token > 0 else None,
            ghost=-token if token < 0 else None,
        )
        for t, table in enumerate(tables, start=1)
        for s, token in enumerate(table, start=1)
    ]


def tables_from_seats(seats: Iterable[Seat], n_tables: int) -> list[TableTokens]:
    grid: list[list[Token]] = [[0, 0, 0, 0] for _ in range(n_tables)]
    for seat in seats:
        grid[seat.table - 1][seat.seat - 1] = token_of(seat)
    if any(0 in table for table in grid):
        raise RuntimeError("A pod's seating has an empty seat")
    return [tuple(table) for table in grid]  # type: ignore[misc]


def apply_changes(tables: list[TableTokens], changes: Iterable[RosterChange]) -> list[TableTokens]:
    """Late arrivals replace their ghost; leavers are replaced by their new ghost."""
    swap: dict[Token, Token] = {}
    for change in changes:
        if change.kind == RosterChange.Kind.JOIN:
            swap[-change.ghost] = change.player_id
        else:
            swap[change.player_id] = -change.ghost
    return [tuple(swap.get(token, token) for token in table) for table in tables]  # type: ignore[misc]


def move(tables: list[TableTokens], winners: Sequence[int], style: str) -> list[TableTokens]:
    engine_tables = [tuple(t if t > 0 else None for t in table) for table in tables]
    plan = plan_moves(engine_tables, winners, style)
    return [tuple(tables[t][s] for t, s in seats) for seats in plan]  # type: ignore[misc]


def current_winners(pod: Pod, round_: Round) -> list[int] | None:
    """The winning pair of each table, or None while a table has not reported."""
    winners = dict(
        TableResult.objects.filter(pod=pod, round=round_, is_current=True).values_list(
            "table", "winner"
        )
    )
    if len(winners) < pod.tables:
        return None
    return [winners[t] for t in range(1, pod.tables + 1)]


def compute_next(pod: Pod, round_: Round, next_round: Round) -> list[TableTokens] | None:
    winners = current_winners(pod, round_)
    if winners is None:
        return None
    seats = Seat.objects.filter(round=round_, pod=pod)
    tables = move(tables_from_seats(seats, pod.tables), winners, pod.stage.rules["movement"])
    changes = RosterChange.objects.filter(pod=pod, from_round=next_round.number)
    return apply_changes(tables, changes)


def refresh_next_round(pod: Pod, round_: Round) -> str:
    """Re-seats the pod for the round after `round_` if that round has not started.

    Returns "seated", "unchanged", "waiting" (tables still to report), "frozen" (the next
    round is already being played, so its seats are what really happened and stay), or
    "last" (no next round). The caller holds the pod's lock: a round only starts with every
    pod of its stage locked (locks.py), so the status read here holds until the commit.
    """
    next_round = Round.objects.filter(stage_id=round_.stage_id, number=round_.number + 1).first()
    if next_round is None:
        return "last"
    if next_round.status != Round.Status.PENDING:
        return "frozen"
    tables = compute_next(pod, round_, next_round)
    existing = list(Seat.objects.filter(round=next_round, pod=pod))
    if tables is None:
        if existing:
            Seat.objects.filter(round=next_round, pod=pod).delete()
        return "waiting"
    if existing and tables_from_seats(existing, pod.tables) == tables:
        return "unchanged"
    Seat.objects.filter(round=next_round, pod=pod).delete()
    Seat.objects.bulk_create(seat_rows(next_round, pod, tables))
    return "seated"


def seating_by_pod(round_: Round) -> dict[int, list[list[Seat]]]:
    """Every pod's tables for a round in one query: {pod id: [[seat1..seat4], ...]}."""
    grouped: dict[int, list[list[Seat]]] = defaultdict(list)
    for seat in (
        Seat.objects.filter(round=round_)
        .select_related("player")
        .order_by("pod__number", "table", "seat")
    ):
        tables = grouped[seat.pod_id]
        while len(tables) < seat.table:
            tables.append([])
        tables[seat.table - 1].append(seat)
    return dict(grouped)
