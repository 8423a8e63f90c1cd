"""Scoring a single throw, and the dice that feed it."""

import dataclasses
import random

import pytest

from scoring.rules import PRESETS, RuleError, die_source, random_rolls, score_roll

CLASSIC = PRESETS["classic"]
MINGLE = PRESETS["mingle"]


@pytest.mark.parametrize(
    ("dice", "target", "points", "kind"),
    [
        ((3, 3, 3), 3, 21, "bunco"),
        ((5, 5, 5), 3, 5, "mini"),
        ((1, 1, 1), 1, 21, "bunco"),
        ((1, 1, 1), 2, 5, "mini"),  # classic has no snake eyes
        ((3, 3, 1), 3, 2, "points"),
        ((1, 3, 6), 3, 1, "points"),
        ((2, 4, 6), 3, 0, "miss"),
        ((6, 6, 2), 1, 0, "miss"),
    ],
)
def test_classic_scoring(dice, target, points, kind):
    score = score_roll(dice, target, CLASSIC)
    assert (score.points, score.kind) == (points, kind)


def test_snake_eyes_only_in_mingle_and_only_off_target_one():
    assert score_roll((1, 1, 1), 4, MINGLE).kind == "snake_eyes"
    assert score_roll((1, 1, 1), 4, MINGLE).points == 0
    assert score_roll((1, 1, 1), 4, CLASSIC).kind == "mini"
    # A preset with snake eyes that also plays round 1: three 1s in round 1 are a bunco.
    custom = dataclasses.replace(MINGLE, name="custom", targets=(1, 2, 3))
    assert score_roll((1, 1, 1), 1, custom).kind == "bunco"
    assert score_roll((1, 1, 1), 2, custom).kind == "snake_eyes"


def test_mingle_has_no_round_of_ones():
    with pytest.raises(RuleError, match="not a round"):
        score_roll((2, 2, 2), 1, MINGLE)


def test_custom_point_values_are_used():
    rules = dataclasses.replace(CLASSIC, name="big", bunco_points=30, mini_bunco_points=10)
    assert score_roll((2, 2, 2), 2, rules).points == 30
    assert score_roll((4, 4, 4), 2, rules).points == 10


@pytest.mark.parametrize("dice", [(0, 1, 2), (1, 2, 7), (1, 2), (1, 2, 3, 4), ("1", 2, 3)])
def test_impossible_dice_are_rule_errors(dice):
    with pytest.raises(RuleError):
        score_roll(dice, 1, CLASSIC)


def test_scripted_die_source_checks_faces_and_running_out():
    source = die_source(iter([4, 7]).__next__)
    assert source() == 4
    with pytest.raises(RuleError, match="1 to 6"):
        source()
    empty = die_source(iter([]).__next__)
    with pytest.raises(RuleError, match="Ran out"):
        empty()


def test_seeded_die_source_replays():
    a = die_source(random.Random(5))
    b = die_source(random.Random(5))
    faces = [a() for _ in range(50)]
    assert faces == [b() for _ in range(50)]
    assert set(faces) <= {1, 2, 3, 4, 5, 6}


def test_roll_kinds_follow_fair_dice_frequencies():
    """Chi-square goodness of fit of 200,000 seeded throws against exact probabilities.

    Out of 216 equally likely throws with target 3: 1 bunco, 5 minis, 120 misses (no 3 and
    not three of a kind: (5/6)^3 of throws have no 3, minus the 5 minis) and 90 scoring
    throws with one or two 3s. df = 3; the 0.001 critical value is 16.266.
    """
    n = 200_000
    expected = {"bunco": 1 / 216, "mini": 5 / 216, "miss": 120 / 216, "points": 90 / 216}
    assert sum(expected.values()) == pytest.approx(1.0)
    counts = dict.fromkeys(expected, 0)
    throws = random_rolls(random.Random(20240611))
    for _ in range(n):
        counts[score_roll(next(throws), 3, CLASSIC).kind] += 1
    chi2 = sum((counts[k] - n * p) ** 2 / (n * p) for k, p in expected.items())
    assert chi2 < 16.266, (chi2, counts)
    # The brief's "miss" is a throw with no die on the target: (5/6)^3, minis included.
    no_target = counts["miss"] + counts["mini"]
    p = (5 / 6) ** 3
    chi2_no_target = (no_target - n * p) ** 2 / (n * p) + (no_target - n * p) ** 2 / (n * (1 - p))
    assert chi2_no_target < 10.828, (no_target, n * p)  # df = 1, p = 0.001
    # A sanity check that the test can fail: a biased die is rejected.
    biased = dict(counts, bunco=counts["bunco"] * 2, miss=counts["miss"] - counts["bunco"])
    assert sum((biased[k] - n * p) ** 2 / (n * p) for k, p in expected.items()) > 16.266
