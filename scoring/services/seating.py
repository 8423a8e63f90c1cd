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
from tournaments.models import Pod, RosterChange, Round, Seat

from ..rules.seating import plan_moves

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
    return next_tables(pod, round_, next_round, winners)


def next_tables(
    pod: Pod, round_: Round, next_round: Round, winners: Sequence[int]
) -> list[TableTokens]:
    seats = Seat.objects.filter(round=round_, pod=pod)
    tables = move(tables_from_seats(seats, pod.tables), winners, pod.stage.rules["movement"])
    changes = RosterChange.objects.filter(pod=pod, from_round=next_round.number)
    return apply_changes(tables, changes)


def refresh_next_round(
    pod: Pod, round_: Round, next_round: Round | None, winners: dict[int, int]
) -> str:
    """Re-seats the pod for `next_round` (the round after `round_`) if it has not started;
    `winners` are the winning pairs of the tables reported so far, {table: pair}.

    Returns "seated", "unchanged", "waiting" (tables still to report), "frozen" (the next
    round is already being played, so its seats are what really happened and stay), or
    "last" (no next round). The caller holds the pod's lock and read `next_round` under it:
    a round only starts with every pod of its stage locked (locks.py), so its status holds
    until the commit.
    """
    if next_round is None:
        return "last"
    if next_round.status != Round.Status.PENDING:
        return "frozen"
    if len(winners) < pod.tables:
        # Next-round seats are only written once every table has reported, and a reported
        # table stays reported (a correction is a new version), so there are none to remove.
        return "waiting"
    tables = next_tables(pod, round_, next_round, [winners[t] for t in range(1, pod.tables + 1)])
    existing = list(Seat.objects.filter(round=next_round, pod=pod))
    if existing and tables_from_seats(existing, pod.tables) == tables:
        return "unchanged"
    Seat.objects.filter(round=next_round, pod=pod).delete()
    Seat.objects.bulk_create(seat_rows(next_round, pod, tables))
    return "seated"


def seating_by_pod(
    round_: Round, numbers: tuple[int, int] | None = None
) -> dict[int, list[list[Seat]]]:
    """Every pod's tables for a round in one query: {pod id: [[seat1..seat4], ...]}; only
    pods `numbers` (low, high) when given, so a projector's slice reads only its pods."""
    grouped: dict[int, list[list[Seat]]] = defaultdict(list)
    seats = Seat.objects.filter(round=round_)
    if numbers is not None:
        seats = seats.filter(pod__number__range=numbers)
    for seat in seats.select_related("player").order_by("pod__number", "table", "seat"):
        tables = grouped[seat.pod_id]
        while len(tables) < seat.table:
            tables.append([])
        tables[seat.table - 1].append(seat)
    return dict(grouped)
