"""Movement between rounds and the pod draw."""

import math
import random
from collections import Counter

import pytest

from scoring.rules.pods import plan_pods, pod_sizes
from scoring.rules.seating import (
    MOVEMENT_STYLES,
    SeatingError,
    draw_pods,
    next_seating,
    plan_moves,
)

THREE = [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12)]
# Winners [0, 1, 0]: table 1 pair (1, 3) won, table 2 pair (6, 8), table 3 pair (9, 11).
WINNERS = [0, 1, 0]


def test_progressive_movement_as_in_the_classic_sheet():
    assert next_seating(THREE, WINNERS, "progressive") == [
        (1, 3, 6, 8),  # head winners stay, table 2 winners come up
        (2, 4, 9, 11),  # head losers come down, table 3 winners come up
        (10, 12, 5, 7),  # table 3 losers stay, table 2 losers come down
    ]


def test_losers_walk_as_in_the_mesquite_sheet():
    assert next_seating(THREE, WINNERS, "losers_walk") == [
        (1, 3, 10, 12),  # C's losers walk to A
        (6, 8, 2, 4),  # A's losers walk to B
        (9, 11, 5, 7),  # B's losers walk to C
    ]


def test_winners_up_as_in_the_mingle_sheet():
    assert next_seating(THREE, WINNERS, "winners_up") == [
        (1, 3, 6, 8),  # head winners stay, middle winners move up
        (5, 7, 9, 11),  # middle losers stay, low winners move up
        (10, 12, 2, 4),  # low losers stay, head losers go to the low table
    ]


@pytest.mark.parametrize("style", MOVEMENT_STYLES)
def test_one_table_keeps_everyone_and_swaps_partners(style):
    assert next_seating([(1, 2, 3, 4)], [1], style) == [(2, 4, 1, 3)]


@pytest.mark.parametrize("style", ["progressive", "winners_up"])
def test_two_tables_swap_head_losers_and_table_two_winners(style):
    moved = next_seating([(1, 2, 3, 4), (5, 6, 7, 8)], [0, 0], style)
    assert moved == [(1, 3, 5, 7), (6, 8, 2, 4)]


def test_four_tables_progressive():
    tables = [tuple(range(4 * t + 1, 4 * t + 5)) for t in range(4)]
    moved = next_seating(tables, [0, 0, 0, 0], "progressive")
    assert moved == [(1, 3, 5, 7), (2, 4, 9, 11), (6, 8, 13, 15), (14, 16, 10, 12)]


def test_plan_moves_reports_origins():
    plan = plan_moves(THREE, WINNERS, "losers_walk")
    assert plan[0] == ((0, 0), (0, 2), (2, 1), (2, 3))


def _partners(tables):
    found = {}
    for table in tables:
        for seat in range(4):
            found[table[seat]] = table[(seat + 2) % 4]
    return found


def _with_ghost_labels(tables):
    labels = iter(range(1000))
    return [tuple(p if p is not None else f"ghost{next(labels)}" for p in t) for t in tables]


def _play_set(start, style, rng, rounds=6):
    """Move through a set with random results, following every ghost by its origin."""
    real = [tuple(t) for t in start]
    named = _with_ghost_labels(real)
    for _ in range(rounds):
        winners = [rng.randrange(2) for _ in real]
        plan = plan_moves(real, winners, style)
        new_named = [tuple(named[t][s] for t, s in seats) for seats in plan]
        new_real = next_seating(real, winners, style)
        assert new_real == [
            tuple(None if str(p).startswith("ghost") else p for p in t) for t in new_named
        ]
        before, after = _partners(named), _partners(new_named)
        kept = [p for p in after if after[p] == before[p]]
        assert not kept, f"{kept} kept their partner"
        assert Counter(p for t in new_named for p in t) == Counter(p for t in named for p in t)
        for table in new_real:
            assert not (table[0] is None and table[2] is None)
            assert not (table[1] is None and table[3] is None)
        real, named = new_real, new_named


def _start(tables, ghosts):
    """`ghosts` tables (from the bottom) have a ghost in seat 4."""
    seats = []
    player = 1
    for t in range(tables):
        row = []
        for seat in range(4):
            if seat == 3 and t >= tables - ghosts:
                row.append(None)
            else:
                row.append(player)
                player += 1
        seats.append(tuple(row))
    return seats


@pytest.mark.parametrize("style", MOVEMENT_STYLES)
@pytest.mark.parametrize("tables", [1, 2, 3, 4])
def test_nobody_keeps_a_partner_through_a_set(style, tables):
    rng = random.Random(tables * 7 + len(style))
    for ghosts in range(tables + 1):
        for _ in range(40):
            _play_set(_start(tables, ghosts), style, rng)


def test_two_ghost_pairs_meeting_never_make_a_ghost_team():
    tables = [(1, 2, 3, None), (5, 6, 7, None)]
    # Both ghost pairs (2, ghost) and (6, ghost) lose and meet at table 2.
    moved = next_seating(tables, [0, 0], "progressive")
    # (6, ghost) and (2, ghost) cross so that each real player partners the other's ghost.
    assert moved[1] == (6, None, None, 2)
    assert moved[0] == (1, 3, 5, 7)


def test_replays_are_identical():
    rng = random.Random(1)
    winners = [rng.randrange(2) for _ in range(5)]
    tables = [tuple(range(4 * t, 4 * t + 4)) for t in range(5)]
    for style in MOVEMENT_STYLES:
        assert next_seating(tables, winners, style) == next_seating(tables, winners, style)


@pytest.mark.parametrize(
    ("tables", "winners", "style", "message"),
    [
        (THREE, [0, 1], "progressive", "each of the 3"),
        (THREE, [0, 1, 2], "progressive", "not 2"),
        (THREE, [0, True, 0], "progressive", "not True"),
        ([(1, 2, 3)], [0], "progressive", "exactly four"),
        ([(1, 2, 3, 4), (4, 5, 6, 7)], [0, 0], "progressive", "more than once"),
        ([(1, None, 3, None)], [0], "progressive", "both ghosts"),
        (THREE, WINNERS, "sideways", "Unknown movement"),
    ],
)
def test_bad_seating_input_is_a_seating_error(tables, winners, style, message):
    with pytest.raises(SeatingError, match=message):
        next_seating(tables, winners, style)
    assert issubclass(SeatingError, ValueError)


def test_no_tables_no_seats():
    assert next_seating([], [], "progressive") == []


# --- the pod draw -------------------------------------------------------------------------


def check_draw(pods, players, pod_size=12):
    n = len(players)
    seated = [p for pod in pods for table in pod for p in table if p is not None]
    assert sorted(seated) == sorted(players)
    assert len(pods) == math.ceil(n / pod_size)
    sizes = [sum(p is not None for t in pod for p in t) for pod in pods]
    for pod, size in zip(pods, sizes, strict=True):
        assert len(pod) == math.ceil(size / 4)
        assert len(pod) <= pod_size // 4
        for table in pod:
            assert len(table) == 4
            assert not (table[0] is None and table[2] is None) or n == 1
            assert not (table[1] is None and table[3] is None) or n == 1
            if n >= 3 and n != 5:
                assert sum(p is None for p in table) <= 1
    assert sizes == pod_sizes(n, pod_size)
    assert sum(4 * len(pod) for pod in pods) - n == (4 - n % 4) % 4
    return sizes


def test_pod_draw_for_every_count_up_to_500():
    rng = random.Random(2024)
    for n in range(1, 501):
        players = list(range(1, n + 1))
        check_draw(draw_pods(players, rng), players)


def test_small_and_awkward_counts():
    assert draw_pods([], random.Random(1)) == []
    assert plan_pods(0) == []
    assert draw_pods(["solo"], random.Random(1)) == [[("solo", None, None, None)]]
    (pod,) = draw_pods(["a", "b"], random.Random(1))
    assert len(pod) == 1 and sorted(p for p in pod[0] if p) == ["a", "b"]
    assert pod[0][2] is None and pod[0][3] is None  # two players, each with a ghost partner
    (pod,) = draw_pods(list("abcde"), random.Random(1))
    assert [sum(p is not None for p in t) for t in pod] == [3, 2]
    assert pod[1][2] is None and pod[1][3] is None


def test_pod_plan_and_sizes():
    assert [pod.tables for pod in plan_pods(120)] == [3] * 10
    assert pod_sizes(13) == [7, 6] and [pod.tables for pod in plan_pods(13)] == [2, 2]
    assert pod_sizes(30) == [12, 11, 7]  # 8 tables, 2 ghosts (the even split had 9 and 6)
    assert pod_sizes(10, pod_size=8) == [7, 3]  # pods of two tables: one table is left over
    assert pod_sizes(9, pod_size=8) == [6, 3]
    with pytest.raises(SeatingError):
        plan_pods(10, pod_size=10)
    with pytest.raises(SeatingError):
        plan_pods(-1)


def test_the_even_split_of_draw_pods_1_is_unchanged():
    """Kept only so that stored "draw_pods/1" draws replay; these are its old figures."""
    assert pod_sizes(30, split="even") == [10, 10, 10]
    assert pod_sizes(13, split="even") == [7, 6]
    assert pod_sizes(10, pod_size=8, split="even") == [6, 4]  # 5 + 5: two ghosts at a table
    assert pod_sizes(9, pod_size=8, split="even") == [6, 3]
    with pytest.raises(SeatingError, match="Unknown pod split"):
        pod_sizes(12, split="random")


@pytest.mark.parametrize("pod_size", [4, 8, 16])
def test_other_pod_sizes(pod_size):
    rng = random.Random(pod_size)
    for n in range(6, 200):
        players = list(range(n))
        pods = draw_pods(players, rng, pod_size=pod_size)
        seated = sorted(p for pod in pods for t in pod for p in t if p is not None)
        assert seated == players
        assert len(pods) == math.ceil(n / pod_size)
        for pod in pods:
            for table in pod:
                assert sum(p is None for p in table) <= 1


def test_draw_is_deterministic_and_random():
    players = list(range(60))
    assert draw_pods(players, random.Random(4)) == draw_pods(players, random.Random(4))
    assert draw_pods(players, random.Random(4)) != draw_pods(players, random.Random(5))


def test_groups_are_spread_over_pods():
    players = list(range(1, 61))
    groups = {}
    for p in players[:10]:
        groups[p] = "Pink Ladies"
    for p in players[10:17]:
        groups[p] = "Dice Divas"
    for p in players[17:22]:
        groups[p] = "Lucky Rollers"
    for seed in range(30):
        pods = draw_pods(players, random.Random(seed), groups=groups)
        check_draw(pods, players)
        for name, size in Counter(groups.values()).items():
            per_pod = [sum(groups.get(p) == name for t in pod for p in t) for pod in pods]
            assert max(per_pod) <= math.ceil(size / len(pods)), (name, per_pod)


def test_blank_group_names_are_not_a_group():
    players = list(range(1, 25))
    blank = dict.fromkeys(players, "")
    assert draw_pods(players, random.Random(3), groups=blank) == draw_pods(
        players, random.Random(3)
    )


def test_groups_without_them_being_spread_would_cluster():
    # A control: without the groups argument some draw puts 3+ Pink Ladies in one pod.
    players = list(range(1, 61))
    pink = set(players[:10])
    worst = max(
        max(sum(p in pink for t in pod for p in t) for pod in draw_pods(players, random.Random(s)))
        for s in range(30)
    )
    assert worst > 2


def test_bad_draw_input():
    with pytest.raises(SeatingError, match="only once"):
        draw_pods([1, 1, 2], random.Random(1))
    with pytest.raises(SeatingError, match="ghost"):
        draw_pods([1, None, 2], random.Random(1))
    with pytest.raises(SeatingError, match="multiple of 4"):
        draw_pods([1, 2, 3], random.Random(1), pod_size=6)
