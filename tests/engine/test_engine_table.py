"""Play at one table: turns, the bell, late turns, snake eyes, ghosts, misuse."""

import dataclasses

import pytest

from scoring.rules import PRESETS, EngineBug, RuleError, TablePlay, play_table_round
from scoring.rules.table import leading_pair, least_points

CLASSIC = PRESETS["classic"]
MINGLE = PRESETS["mingle"]
PINK = PRESETS["rolling-for-pink"]
MESQUITE = PRESETS["mesquite"]

MISS = (4, 5, 6)  # no 1s, 2s or 3s: a miss for targets 1 to 3


def test_worked_example_from_the_classic_sheet():
    throws = [
        (1, 1, 3),  # Stacy: 2
        (4, 2, 1),  # 1
        (6, 6, 2),  # miss
        (2, 1, 6),  # Carol: 1
        (5, 4, 1),  # 1
        (3, 4, 5),  # miss
        (3, 3, 3),  # Wanda: mini 5
        (4, 5, 2),  # miss
        (1, 1, 1),  # Hannah: Bunco, rings the bell
        (4, 3, 3),  # rolls again, misses: round over
    ]
    result = play_table_round(1, CLASSIC, iter(throws + [(1, 1, 1)]), head_table=True)
    assert result.pair_points == (8, 23)
    assert result.winner == 1
    assert result.buncos == (0, 0, 0, 1)
    assert result.minis == (0, 0, 1, 0)
    assert result.snake_eyes == (0, 0, 0, 0)
    assert result.bell_rung
    assert [t.seat for t in result.turns] == [0, 1, 2, 3]
    assert [len(t.rolls) for t in result.turns] == [3, 3, 2, 2]
    hannah = result.turns[3]
    assert [r.score.kind for r in hannah.rolls] == ["bunco", "miss"]
    assert [r.after_bell for r in hannah.rolls] == [False, True]
    assert [r.dice for t in result.turns for r in t.rolls] == throws


def _reach_21_then(after):
    """Seat 0 scores 2 points ten times (20), then 1 point (21: bell), then `after`."""
    return [(2, 2, 5)] * 10 + [(2, 4, 5)] + after


def test_bell_at_21_points_and_the_roller_finishes_the_turn():
    throws = _reach_21_then([(2, 5, 6), MISS])
    result = play_table_round(2, CLASSIC, iter(throws))
    assert result.pair_points == (22, 0)
    assert len(result.turns) == 1  # classic: nobody else rolls after the bell
    assert result.turns[0].rolls[-2].after_bell
    assert result.winner == 0


def test_without_finishing_the_turn_the_bell_stops_the_roller_at_once():
    rules = dataclasses.replace(CLASSIC, name="strict", finish_turn_after_bell=False)
    throws = _reach_21_then([(2, 2, 2)])
    result = play_table_round(2, rules, iter(throws))
    assert result.pair_points == (21, 0)
    assert len(result.turns[0].rolls) == 11


def test_everyone_rolls_once_gives_late_turns_to_seats_that_have_not_rolled():
    throws = _reach_21_then([MISS]) + [
        (2, 2, 3),  # seat 1: 2 points, keeps rolling after the bell
        (2, 3, 3),  # 1 point
        MISS,
        MISS,  # seat 2
        (2, 2, 2),  # seat 3: a late bunco still counts
        MISS,
    ]
    result = play_table_round(2, PINK, iter(throws + [(2, 2, 2)]))
    assert [t.seat for t in result.turns] == [0, 1, 2, 3]
    assert result.pair_points == (21, 24)
    assert result.winner == 1
    assert result.buncos == (0, 0, 0, 1)
    assert all(r.after_bell for t in result.turns[1:] for r in t.rolls)


def test_late_turns_are_a_single_throw_when_turns_do_not_finish_after_the_bell():
    rules = dataclasses.replace(PINK, name="single", finish_turn_after_bell=False)
    throws = _reach_21_then([]) + [(2, 2, 3), (2, 2, 3), (2, 2, 3)]
    result = play_table_round(2, rules, iter(throws))
    assert [len(t.rolls) for t in result.turns] == [11, 1, 1, 1]
    assert result.pair_points == (23, 4)  # late single throws: seats 1 and 3 for pair 1


def test_everyone_rolls_once_does_not_repeat_seats_that_already_rolled():
    # Seat 3 rings the bell in the second rotation: nobody is owed a turn.
    throws = [MISS] * 3 + [MISS] + [MISS] * 3 + _reach_21_then([MISS])
    result = play_table_round(2, PINK, iter(throws))
    assert [t.seat for t in result.turns] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert result.pair_points == (0, 21)


def test_bunco_rings_the_bell_only_when_the_preset_says_so():
    small = dataclasses.replace(CLASSIC, name="small", bunco_points=10)
    quiet = dataclasses.replace(small, name="quiet", bell_on_bunco=False)
    throws = [(3, 3, 3), MISS] + [MISS] * 3
    rung = play_table_round(3, small, iter(throws))
    assert rung.bell_rung and rung.pair_points == (10, 0) and len(rung.turns) == 1
    with pytest.raises(RuleError, match="Ran out of dice"):
        play_table_round(3, quiet, iter(throws))
    play = TablePlay(3, quiet)
    for throw in throws:
        play.roll(throw)
    assert not play.bell_rung and not play.finished


def test_other_tables_ignore_21_and_wait_for_the_head_table():
    throws = [(2, 2, 2)] * 3 + [MISS] + [MISS] * 3
    result = play_table_round(2, MESQUITE, iter(throws), head_table=False, bell_after=4)
    assert result.pair_points == (63, 0)
    assert len(result.turns) == 1
    with pytest.raises(RuleError, match="needs to know when the bell"):
        play_table_round(2, MESQUITE, iter(throws), head_table=False)


def test_bell_between_turns_ends_the_round_unless_someone_is_owed_a_turn():
    plain = TablePlay(2, CLASSIC, head_table=False)
    plain.roll(MISS)
    plain.ring_bell()
    assert plain.finished
    owed = TablePlay(2, MINGLE, head_table=False)
    owed.roll(MISS)
    owed.ring_bell()
    assert not owed.finished
    for _ in range(3):
        owed.roll(MISS)
    assert owed.finished
    assert [t.seat for t in owed.result().turns] == [0, 1, 2, 3]


def test_snake_eyes_wipe_the_team_and_end_the_turn():
    throws = [
        (2, 2, 3),  # seat 0: 2
        MISS,
        (2, 3, 4),  # seat 1: 1
        MISS,
        (2, 2, 5),  # seat 2: 2 more for pair 0 (4)
        (1, 1, 1),  # snake eyes: pair 0 back to 0, turn over
        (2, 3, 4),  # seat 3: 1
        MISS,
    ]
    play = TablePlay(2, MINGLE, head_table=False)
    for throw in throws:
        play.roll(throw)
    assert play.pair_points == (0, 2)
    play.ring_bell()
    result = play.result()
    assert result.snake_eyes == (0, 0, 1, 0)
    assert [len(t.rolls) for t in result.turns] == [2, 2, 2, 2]
    assert result.turns[2].rolls[-1].score.kind == "snake_eyes"


def test_three_ones_are_a_mini_that_keeps_the_turn_in_classic():
    play = TablePlay(2, CLASSIC, head_table=False)
    play.roll((1, 1, 1))
    assert play.mid_turn and play.seat == 0 and play.pair_points == (5, 0)


def test_a_ghosts_partner_rolls_and_takes_the_credit():
    ghosts = (False, True, False, False)  # seat 1 is a ghost; seat 3 rolls for it
    throws = [MISS, (2, 2, 2), (4, 4, 4), MISS, MISS, MISS]
    play = TablePlay(2, CLASSIC, head_table=False, ghosts=ghosts)
    for throw in throws:
        play.roll(throw)
    play.ring_bell()
    result = play.result()
    assert result.turns[1].seat == 1 and result.turns[1].rolled_by == 3
    assert result.buncos == (0, 0, 0, 1)
    assert result.minis == (0, 0, 0, 1)
    assert result.pair_points == (0, 26)


def test_a_team_of_two_ghosts_cannot_play():
    with pytest.raises(RuleError, match="both ghosts"):
        TablePlay(2, CLASSIC, ghosts=(True, False, True, False))
    with pytest.raises(RuleError, match="four seats"):
        TablePlay(2, CLASSIC, ghosts=(True, False))


def test_misuse_of_a_table_is_an_engine_bug():
    play = TablePlay(2, CLASSIC, head_table=False)
    with pytest.raises(EngineBug):
        play.result()
    play.ring_bell()
    assert play.finished
    with pytest.raises(EngineBug):
        play.roll(MISS)


def test_a_tie_has_no_winner():
    throws = [(2, 3, 4), MISS, (2, 3, 4), MISS, MISS, MISS]
    result = play_table_round(2, CLASSIC, iter(throws), head_table=False, bell_after=6)
    assert result.pair_points == (1, 1)
    assert result.winner is None


def test_bad_bell_after_and_first_seat():
    with pytest.raises(RuleError):
        play_table_round(2, CLASSIC, iter([]), head_table=False, bell_after=-1)
    with pytest.raises(RuleError):
        TablePlay(2, CLASSIC, first_seat=4)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_preset_at_a_head_table_bunco_in_the_first_turn(name):
    rules = PRESETS[name]
    target = rules.targets[0]
    miss = tuple(f for f in (1, 2, 3, 4, 5, 6) if f not in (target, 1))[:3]
    throws = [(target,) * 3, (target, *miss[:2]), miss] + [miss] * 3
    result = play_table_round(target, rules, iter(throws))
    assert result.bell_rung
    assert result.buncos == (1, 0, 0, 0)
    if rules.head_table_stops_at_bell:  # mingle: the bell-ringer stops; one throw each after
        assert len(result.turns[0].rolls) == 1
        assert result.pair_points == (21, 1)
    else:  # the other sheets let the bell-ringer finish
        assert len(result.turns[0].rolls) == 3
        assert result.pair_points == (22, 0)
    late_turns = [t.seat for t in result.turns[1:]]
    assert late_turns == ([1, 2, 3] if rules.everyone_rolls_once else [])


def test_more_points_win_and_level_points_are_left_for_the_tie_break():
    assert leading_pair((21, 7)) == 0
    assert leading_pair((3, 22)) == 1
    assert leading_pair((12, 12)) is None


def test_credited_buncos_and_minis_bound_a_pairs_points_unless_snake_eyes_wiped_them():
    assert least_points(2, 1, 0, CLASSIC) == 2 * 21 + 5
    assert least_points(0, 0, 0, CLASSIC) == 0
    assert least_points(1, 0, 1, MINGLE) is None
