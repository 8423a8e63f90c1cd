"""Who stops at the head table's bell, and how many qualifying sets each sheet plays."""

import dataclasses
import re

import pytest

from scoring.rules import PRESETS, RuleError, RuleSet, TablePlay, play_table_round

CLASSIC, MINGLE, MESQUITE, PINK = (
    PRESETS[n] for n in ("classic", "mingle", "mesquite", "rolling-for-pink")
)
MISS = (3, 4, 5)  # no 2s, no three of a kind, no snake eyes


def test_mingle_head_table_stops_at_its_bunco():
    """mingle-event-pods-of-12.txt: "If the head table gets a Bunco, they yell out "Bunco",
    ring the bell and the round ends" and "Every player gets at least one roll per round."

    The roller who rang the bell does not roll again; the three who had not rolled get one
    throw each (a 2 scores, but the head table does not play on after its bell).
    """
    throws = [(2, 2, 2), (2, 3, 4), MISS, MISS]
    result = play_table_round(2, MINGLE, iter(throws))
    assert result.bell_rung
    assert [len(t.rolls) for t in result.turns] == [1, 1, 1, 1]
    assert [t.seat for t in result.turns] == [0, 1, 2, 3]
    assert result.pair_points == (21, 1)
    assert all(r.after_bell for t in result.turns[1:] for r in t.rolls)


def test_mingle_head_table_stops_when_it_reaches_21():
    """mingle-event-pods-of-12.txt: "The ROUND is over when the HIGH table reaches 21 points.
    The HIGH table rings the bell and the round is over for everyone."

    Four minis (20) and a single 2 reach 21 mid-turn: the turn ends on that throw although
    it scored.
    """
    play = TablePlay(2, MINGLE)
    for _ in range(4):
        play.roll((5, 5, 5))
    play.roll((2, 3, 4))
    assert play.bell_rung and not play.mid_turn
    assert play.pair_points == (21, 0)
    assert play.seat == 1  # the dice passed on: seat 1 owes its one roll


def test_mingle_lower_tables_finish_the_roll_in_progress():
    """mingle-event-pods-of-12.txt: "When the round ends, players at the *lower* tables get
    to finish their roll."
    """
    play = TablePlay(2, MINGLE, head_table=False)
    play.roll((2, 3, 4))
    play.ring_bell()
    assert play.mid_turn  # the lower table's roller is still rolling
    play.roll((2, 2, 3))
    play.roll(MISS)
    for _ in range(3):  # "Every player gets at least one roll per round."
        play.roll(MISS)
    result = play.result()
    assert result.pair_points == (3, 0)
    assert [r.after_bell for r in result.turns[0].rolls] == [False, True, True]
    assert [t.seat for t in result.turns] == [0, 1, 2, 3]


def test_same_throws_head_table_stops_where_a_lower_table_plays_on():
    """The one rule, both sides: identical throws, bell on the first one."""
    throws = [(2, 2, 2), (2, 3, 3), MISS, MISS, MISS, MISS]
    head = play_table_round(2, MINGLE, iter(throws))
    lower = play_table_round(2, MINGLE, iter(throws), head_table=False, bell_after=1)
    assert len(head.turns[0].rolls) == 1
    assert len(lower.turns[0].rolls) == 3  # bunco, then (2,3,3) scores 1, then a miss
    assert lower.pair_points[0] == 22


def test_staff_ending_a_mingle_round_by_hand_stops_the_head_table_too():
    play = TablePlay(2, MINGLE)
    play.roll((2, 3, 4))
    play.ring_bell()
    assert not play.mid_turn


@pytest.mark.parametrize("rules", [CLASSIC, MESQUITE, PINK], ids=lambda r: r.name)
def test_other_sheets_let_the_bell_ringer_finish(rules):
    """complete-rules-with-examples.txt: "all players who are taking their turn when the round
    ends, including the player who rang the bell, continue rolling" (Hannah rolls again);
    mesquite-gaming-staff-verified.txt: "Play at ALL tables stops as soon as the bell sounds
    – the player rolling the dice finishes their turn"; rolling-for-pink-tournament.txt says
    nothing that sets the head table apart.
    """
    target = rules.targets[0]
    miss = tuple(f for f in (2, 3, 4, 5, 6) if f != target)[:3]
    throws = [(target,) * 3, (target, *miss[:2]), miss] + [miss] * 3
    result = play_table_round(target, rules, iter(throws))
    assert not rules.head_table_stops_at_bell
    assert len(result.turns[0].rolls) == 3
    assert result.pair_points == (22, 0)


def test_only_the_mingle_sheet_stops_the_head_table():
    assert {n for n, r in PRESETS.items() if r.head_table_stops_at_bell} == {"mingle"}
    # Lower tables finish their roll under every sheet.
    assert all(r.finish_turn_after_bell for r in PRESETS.values())


# --- qualifying sets --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        # "A game of Bunco consists of two to four sets"
        ("classic", 2, 4),
        # "There will be three sets played for the Mingle Event."
        ("mingle", 3, 3),
        # not stated: any number the site allows
        ("mesquite", 1, 10),
        # "Play continues for 3 complete sets (6 rounds per set)"
        ("rolling-for-pink", 3, 3),
    ],
)
def test_qualifying_sets_follow_the_sheets(name, low, high):
    rules = PRESETS[name]
    assert (rules.min_qualifying_sets, rules.max_qualifying_sets) == (low, high)
    for sets in range(low, high + 1):
        rules.check_qualifying_sets(sets)
    for sets in (low - 1, high + 1):
        with pytest.raises(RuleError, match=rf"{re.escape(rules.label)} plays .*not {sets}"):
            rules.check_qualifying_sets(sets)


def test_sets_text_reads_like_the_sheet():
    assert MINGLE.qualifying_sets_text == "3 qualifying sets"
    assert CLASSIC.qualifying_sets_text == "2 to 4 qualifying sets"
    one = dataclasses.replace(CLASSIC, min_qualifying_sets=1, max_qualifying_sets=1)
    assert one.qualifying_sets_text == "1 qualifying set"


@pytest.mark.parametrize(("low", "high"), [(0, 3), (3, 2), (1, 11), (True, 3), ("2", 3), (2, 3.0)])
def test_bad_set_limits_are_refused(low, high):
    with pytest.raises(RuleError, match="qualifying sets"):
        dataclasses.replace(CLASSIC, min_qualifying_sets=low, max_qualifying_sets=high)


def test_a_copy_may_change_the_number_of_sets():
    copy = dataclasses.replace(MINGLE, name="our-mingle", max_qualifying_sets=4)
    copy.check_qualifying_sets(4)
    with pytest.raises(RuleError):
        MINGLE.check_qualifying_sets(4)


def test_rules_stored_before_these_fields_still_load():
    """A stage drawn earlier stored its rules without them: they play as they did then."""
    stored = CLASSIC.to_dict()
    for key in ("head_table_stops_at_bell", "min_qualifying_sets", "max_qualifying_sets"):
        del stored[key]
    rules = RuleSet.from_dict(stored)
    assert rules.head_table_stops_at_bell is False
    assert (rules.min_qualifying_sets, rules.max_qualifying_sets) == (1, 10)
