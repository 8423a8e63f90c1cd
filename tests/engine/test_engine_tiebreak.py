"""Tie-breaks at a table and roll-offs between players (the final table: test_final_table)."""

import random

import pytest

from scoring.rules import PRESETS, TIE_BREAK_METHODS, RuleError, break_table_tie, roll_off

CLASSIC = PRESETS["classic"]
MINGLE = PRESETS["mingle"]


def dice(*faces):
    """A staff member typing in physical dice, one face at a time."""
    return iter(faces).__next__


def test_high_die_pair_rerolls_equal_dice():
    tb = break_table_tie("high_die_pair", 2, CLASSIC, dice(3, 3, 2, 5))
    assert tb.winner == 1
    assert tb.passes == 2
    assert [(r.pass_no, r.seat, r.dice) for r in tb.rolls] == [
        (1, 0, (3,)),
        (1, 1, (3,)),
        (2, 0, (2,)),
        (2, 1, (5,)),
    ]


def test_high_die_pair_uses_the_real_player_of_a_ghost_team():
    tb = break_table_tie(
        "high_die_pair", 2, CLASSIC, dice(6, 1), ghosts=(True, False, False, False)
    )
    assert tb.winner == 0
    assert [r.seat for r in tb.rolls] == [2, 1]


def test_high_die_player_top_die_within_one_team_wins_at_once():
    tb = break_table_tie("high_die_player", 2, MINGLE, dice(6, 2, 6, 1))
    assert (tb.winner, tb.passes, len(tb.rolls)) == (0, 1, 4)


def test_high_die_player_rerolls_only_the_tied_top_seats_across_teams():
    tb = break_table_tie("high_die_player", 2, MINGLE, dice(6, 6, 1, 6, 2, 4, 3))
    # Pass 1: seats 0, 1 and 3 show 6 (both teams). Pass 2: seats 0, 1, 3 throw 2, 4, 3.
    assert tb.winner == 1
    assert [(r.pass_no, r.seat, r.dice[0]) for r in tb.rolls[4:]] == [
        (2, 0, 2),
        (2, 1, 4),
        (2, 3, 3),
    ]


def test_high_die_player_ghost_die_is_thrown_by_the_partner():
    tb = break_table_tie("high_die_player", 2, MINGLE, dice(1, 2, 3, 6), ghosts=(0, 1, 0, 0))
    assert tb.winner == 1
    assert [(r.seat, r.rolled_by) for r in tb.rolls] == [(0, 0), (1, 3), (2, 2), (3, 3)]


def test_roll_to_target_continues_round_the_table_from_the_given_seat():
    faces = (1, 2, 3, 5, 5, 6, 4, 1, 1)
    tb = break_table_tie("roll_to_target", 4, PRESETS["mesquite"], dice(*faces), first_seat=2)
    assert tb.winner == 0
    assert [(r.seat, r.dice) for r in tb.rolls] == [(2, (1, 2, 3)), (3, (5, 5, 6)), (0, (4, 1, 1))]


def test_turn_around_table_plays_full_sessions_until_one_team_leads():
    faces = [
        *(3, 1, 2, 1, 2, 4),  # seat 0: 1 point, then a miss
        *(3, 5, 6, 1, 1, 2),  # seat 1: 1 point, then a miss
        *(1, 2, 4),  # seat 2: miss
        *(2, 2, 4),  # seat 3: miss -> still tied 1-1
        *(1, 2, 4),  # session 2, seat 0: miss
        *(3, 3, 1, 1, 2, 4),  # seat 1: 2 points, then a miss
        *(1, 2, 4),
        *(1, 2, 4),
    ]
    tb = break_table_tie("turn_around_table", 3, CLASSIC, dice(*faces))
    assert tb.winner == 1
    assert tb.passes == 2
    assert tb.session_points == [(1, 1), (0, 2)]
    assert sum(r.points for r in tb.rolls) == 4


@pytest.mark.parametrize("method", TIE_BREAK_METHODS)
def test_every_method_settles_with_seeded_dice_and_replays(method):
    for seed in range(30):
        a = break_table_tie(method, 2, MINGLE, random.Random(seed))
        b = break_table_tie(method, 2, MINGLE, random.Random(seed))
        assert a == b
        assert a.winner in (0, 1)
        assert a.rolls


def test_tie_break_errors():
    with pytest.raises(RuleError, match="Unknown tie-break"):
        break_table_tie("coin_toss", 2, CLASSIC, random.Random(1))
    with pytest.raises(RuleError, match="Ran out"):
        break_table_tie("high_die_pair", 2, CLASSIC, dice(4, 4))
    with pytest.raises(RuleError, match="1 to 6"):
        break_table_tie("high_die_pair", 2, CLASSIC, dice(9, 1))
    with pytest.raises(RuleError, match="not a round"):
        break_table_tie("high_die_pair", 1, MINGLE, random.Random(1))


def test_roll_off_rerolls_among_the_tied_and_orders_everyone():
    result = roll_off(["Ann", "Bea", "Cat"], dice(5, 5, 2, 3, 6))
    assert result.rounds == [{"Ann": 5, "Bea": 5, "Cat": 2}, {"Ann": 3, "Bea": 6}]
    assert result.winner == "Bea"
    assert result.order == ["Bea", "Ann", "Cat"]
    assert result.settled == 3


def test_roll_off_for_one_place_leaves_lower_ties_alone():
    result = roll_off(["A", "B", "C", "D"], dice(6, 2, 2, 1), places=1)
    assert result.winner == "A"
    assert result.rounds == [{"A": 6, "B": 2, "C": 2, "D": 1}]
    assert result.order == ["A", "B", "C", "D"]
    assert result.settled == 1


def test_roll_off_for_two_places_settles_the_second():
    result = roll_off(["A", "B", "C", "D"], dice(6, 2, 2, 1, 3, 5), places=2)
    assert result.order == ["A", "C", "B", "D"]
    assert result.settled >= 2


def test_a_long_run_of_equal_dice_is_just_more_rounds():
    result = roll_off(["a", "b"], dice(*([3] * 4000), 1, 2))
    assert len(result.rounds) == 2001
    assert result.winner == "b"


def test_full_roll_off_is_a_ranking_and_replays():
    players = list(range(1, 11))
    a = roll_off(players, random.Random(3))
    assert sorted(a.order) == players
    assert a.settled == 10
    assert a == roll_off(players, random.Random(3))
    for faces in a.rounds:
        assert set(faces.values()) <= {1, 2, 3, 4, 5, 6}


def test_roll_off_trivial_cases():
    alone = roll_off(["solo"], dice())
    assert alone.winner == "solo" and alone.rounds == []
    with pytest.raises(RuleError):
        roll_off([], random.Random(1))
    with pytest.raises(RuleError):
        roll_off(["a", "a"], random.Random(1))
    with pytest.raises(RuleError):
        roll_off(["a", "b"], random.Random(1), places=0)
