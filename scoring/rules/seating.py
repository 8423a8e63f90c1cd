"""Who sits where: the pod draw before a stage and the movement between rounds.

Pure functions on plain data (player ids, `None` for a ghost) so the same code seats a real
event, a replay from a stored seed, and the simulator. No Django here.

Tables are 4-tuples in seat order, partners as `scoring.rules.table.partner_of` says; table 0
of a pod is its head table. Movement styles are the engine's (`scoring.rules.ruleset`).

How many pods of how many tables, and which of them get the ghosts, is planned in
`scoring.rules.pods` (on counts alone, so the draw page can show it before the draw).

Ghosts: a ghost is tied to the player it partners, so it moves with its pair like a player
would. Because every new table is formed by crossing two different old pairs, nobody keeps a
partner from one round to the next, a ghost included (each ghost is a distinct seat-filler;
`plan_moves` tells them apart by where they came from). Two ghost pairs may meet at a table
after movement; the crossing is then chosen so that each ghost partners a real player (never
two ghosts in one pair), and the table plays as two players each rolling for a ghost.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence

from scoring.rules.ruleset import MOVEMENT_STYLES
from scoring.rules.table import pair_seats, partner_of

from .pods import SeatingError, ghosts_per_table, pod_sizes, tables_for

Table = tuple[Hashable | None, Hashable | None, Hashable | None, Hashable | None]
Origin = tuple[int, int]  # (table index, seat index) in the previous round
_Pair = tuple[Origin, Origin]


def _check_tables(tables: Sequence[Sequence[Hashable | None]]) -> None:
    seen: set[Hashable] = set()
    for number, table in enumerate(tables, start=1):
        if not isinstance(table, tuple | list) or len(table) != 4:
            raise SeatingError(f"Table {number} must have exactly four seats.")
        for seat in (0, 1):
            if table[seat] is None and table[partner_of(seat)] is None:
                raise SeatingError(
                    f"Table {number}: seats {seat + 1} and {partner_of(seat) + 1} are both ghosts; "
                    "a team needs at least one player."
                )
        for player in table:
            if player is None:
                continue
            if player in seen:
                raise SeatingError(f"Player {player!r} is seated more than once.")
            seen.add(player)


def _check_winners(winners: Sequence[int], n_tables: int) -> None:
    if len(winners) != n_tables:
        raise SeatingError(f"Expected a result for each of the {n_tables} tables.")
    for number, w in enumerate(winners, start=1):
        if isinstance(w, bool) or w not in (0, 1):
            raise SeatingError(
                f"Table {number}: the winner is 0 (seats {pair_seats(0)}) or 1 "
                f"(seats {pair_seats(1)}), not {w!r}."
            )


def _incoming(n: int, style: str) -> list[tuple[tuple[int, str], tuple[int, str]]]:
    """For each new table, the two old (table, 'W'/'L') pairs that sit there, in order."""
    if n == 1:
        return [((0, "W"), (0, "L"))]
    if style == "losers_walk":
        return [((k, "W"), ((k - 1) % n, "L")) for k in range(n)]
    plan: list[tuple[tuple[int, str], tuple[int, str]]] = [((0, "W"), (1, "W"))]
    for k in range(1, n - 1):
        if style == "progressive":
            plan.append(((k - 1, "L"), (k + 1, "W")))
        else:  # winners_up: non-head losers stay
            plan.append(((k, "L"), (k + 1, "W")))
    bottom_from = n - 2 if style == "progressive" else 0
    plan.append(((n - 1, "L"), (bottom_from, "L")))
    return plan


def plan_moves(
    tables: Sequence[Sequence[Hashable | None]], winners: Sequence[int], style: str
) -> list[tuple[Origin, Origin, Origin, Origin]]:
    """For each seat of the next round, the (table, seat) its occupant comes from.

    Split out from `next_seating` so a seating chart can say "from table 2, seat 3" and tests
    can follow each ghost individually.
    """
    if style not in MOVEMENT_STYLES:
        raise SeatingError(
            f"Unknown movement {style!r}; choose one of {', '.join(MOVEMENT_STYLES)}."
        )
    _check_tables(tables)
    _check_winners(winners, len(tables))
    if not tables:
        return []

    def pair(table: int, side: str) -> _Pair:
        won = winners[table]
        first = won if side == "W" else 1 - won
        return ((table, first), (table, partner_of(first)))

    def ghost(origin: Origin) -> bool:
        return tables[origin[0]][origin[1]] is None

    plan = []
    for first_tag, second_tag in _incoming(len(tables), style):
        a = pair(*first_tag)
        b = pair(*second_tag)
        # Seats 0 and 1 take a's pair, 2 and 3 b's, so under `partner_of` a[0]+b[0] and
        # a[1]+b[1] become the new pairs: each crosses two old pairs. Flip b if that would
        # put two ghosts together.
        if (ghost(a[0]) and ghost(b[0])) or (ghost(a[1]) and ghost(b[1])):
            b = (b[1], b[0])
        plan.append((a[0], a[1], b[0], b[1]))
    return plan


def next_seating(
    tables: Sequence[Sequence[Hashable | None]], winners: Sequence[int], style: str
) -> list[Table]:
    """Seat the next round from this round's winners, deterministically (a replay matches).

    `winners[i]` is 0 if seats 1 and 3 (indexes 0, 2) of table i won, 1 if seats 2 and 4 won.
    - progressive: head winners stay, head losers go to table 2, other winners move up one
      table, other losers move down one, bottom-table losers stay.
    - losers_walk: winners stay, losers walk to the next table (the last wraps to the head).
    - winners_up: head winners stay, head losers go to the bottom table, other winners move
      up one table, other losers stay.
    At each table the two incoming pairs are crossed so that everyone gets a new partner; the
    first pair listed (the one staying, when one stays) takes seats 1 and 2.
    """
    plan = plan_moves(tables, winners, style)
    return [tuple(tables[t][s] for t, s in seats) for seats in plan]  # type: ignore[misc]


# --- the pod draw -------------------------------------------------------------------------


def _deal(
    players: list[Hashable], sizes: list[int], groups: Mapping[Hashable, str] | None
) -> list[list[Hashable]]:
    """Deal players round-robin so each group is spread over the pods as evenly as possible."""
    if groups:
        by_group: dict[str, list[Hashable]] = {}
        loose: list[Hashable] = []
        for player in players:
            name = groups.get(player)
            if name is None or name == "":
                loose.append(player)  # a blank group (a form left empty) is no group
            else:
                by_group.setdefault(str(name), []).append(player)
        ordered = sorted(by_group.items(), key=lambda item: (-len(item[1]), item[0]))
        players = [p for _, members in ordered for p in members] + loose
    pods: list[list[Hashable]] = [[] for _ in sizes]
    k = 0
    for player in players:
        while len(pods[k]) >= sizes[k]:
            k = (k + 1) % len(sizes)
        pods[k].append(player)
        k = (k + 1) % len(sizes)
    return pods


def _seat_pod(players: list[Hashable]) -> list[Table]:
    """Fill the pod's tables, ghosts as `ghosts_per_table` places them, never two in a pair."""
    tables = tables_for(len(players))
    seated: list[Table] = []
    it = iter(players)
    for missing in ghosts_per_table(tables, 4 * tables - len(players)):
        seats: list[Hashable | None] = [None] * 4
        ghost_seats = (3, 2, 1)[:missing]  # seats 4 then 3: different teams
        for seat in range(4):
            if seat not in ghost_seats:
                seats[seat] = next(it)
        seated.append(tuple(seats))  # type: ignore[arg-type]
    return seated


def draw_pods(
    player_ids: Sequence[Hashable],
    rng: random.Random,
    pod_size: int = 12,
    groups: Mapping[Hashable, str] | None = None,
    split: str = "full",
) -> list[list[Table]]:
    """Draw pods and starting seats at random; same rng state and input, same draw.

    Every player is seated once, in the pods `pods.pod_sizes` plans for the split: "full"
    (the default) fills every table but for the count's remainder of at most three ghosts,
    in pods of twelve wherever the count allows; "even" is the old even split, kept so that
    draws stored as "draw_pods/1" replay exactly. Ghosts go to the lowest tables of a pod,
    at most one per table whenever the numbers allow it, so no table has fewer than three
    players unless the event has fewer than three players in total or exactly five (five
    cannot be split into tables of three or four: it becomes a 3-player table and a 2-player
    table whose two players each partner a ghost). `groups` maps a player to a group name
    (a club, a family) whose members should not share a pod; groups are dealt round-robin,
    largest first and before the other players, so each pod gets at most
    ceil(group size / pods) of a group as long as no pod is already full (pods differ in
    size, so when grouped players outnumber the seats of the smallest pods, the last groups
    are spread over the larger pods only). A blank group name counts as no group. 0 players
    give no pods; 1 player gets a table that cannot be played (a team of two ghosts).
    """
    players = list(player_ids)
    if len(set(players)) != len(players):
        raise SeatingError("Each player can be drawn only once.")
    if any(p is None for p in players):
        raise SeatingError("None marks a ghost; it cannot be a player id.")
    sizes = pod_sizes(len(players), pod_size, split)
    if not sizes:
        return []
    shuffled = list(players)
    rng.shuffle(shuffled)
    pods = _deal(shuffled, sizes, groups)
    for members in pods:
        rng.shuffle(members)
    return [_seat_pod(members) for members in pods]
