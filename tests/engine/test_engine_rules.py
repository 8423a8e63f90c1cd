"""Rule presets: faithful to their sheets, validated, and round-tripping through dicts."""

import dataclasses
import json

import pytest

from scoring.rules import PRESETS, RuleError, RuleSet, get_preset
from scoring.rules.ruleset import round_in_sets

EXPECTED = {
    # name: (targets, snake_eyes, bell_on_bunco, finish_turn, everyone_once, movement, tie)
    "classic": (
        (1, 2, 3, 4, 5, 6),
        False,
        True,
        True,
        False,
        "progressive",
        "turn_around_table",
    ),
    "mingle": ((2, 3, 4, 5, 6), True, True, True, True, "winners_up", "high_die_player"),
    "mesquite": ((1, 2, 3, 4, 5, 6), False, True, True, False, "losers_walk", "roll_to_target"),
    "rolling-for-pink": (
        (1, 2, 3, 4, 5, 6),
        False,
        True,
        True,
        True,
        "progressive",
        "high_die_pair",
    ),
}


def test_the_four_presets_exist_with_their_slugs():
    assert list(PRESETS) == ["classic", "mingle", "mesquite", "rolling-for-pink"]
    for name, rules in PRESETS.items():
        assert rules.name == name
        assert get_preset(name) is rules


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_fields_follow_the_sheets(name):
    rules = PRESETS[name]
    targets, snake, bell_bunco, finish, once, movement, tie = EXPECTED[name]
    assert rules.targets == targets
    assert rules.snake_eyes is snake
    assert rules.bell_on_bunco is bell_bunco
    assert rules.finish_turn_after_bell is finish
    assert rules.everyone_rolls_once is once
    assert rules.movement == movement
    assert rules.table_tie_break == tie
    assert (rules.bunco_points, rules.mini_bunco_points, rules.bell_points) == (21, 5, 21)


def test_ruleset_has_exactly_the_fields_the_model_mirrors():
    names = [f.name for f in dataclasses.fields(RuleSet)]
    assert names == [
        "name",
        "label",
        "targets",
        "bunco_points",
        "mini_bunco_points",
        "snake_eyes",
        "bell_points",
        "bell_on_bunco",
        "finish_turn_after_bell",
        "head_table_stops_at_bell",
        "everyone_rolls_once",
        "movement",
        "table_tie_break",
        "min_qualifying_sets",
        "max_qualifying_sets",
        "verification",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PRESETS["classic"].bell_points = 30  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_round_trip_through_json(name):
    rules = PRESETS[name]
    data = json.loads(json.dumps(rules.to_dict()))
    assert isinstance(data["targets"], list)
    again = RuleSet.from_dict(data)
    assert again == rules
    assert again.to_dict() == rules.to_dict()
    assert isinstance(again.targets, tuple)


def test_unknown_preset_is_a_rule_error():
    with pytest.raises(RuleError, match="Unknown rule preset"):
        get_preset("yahtzee")


def _classic(**changes):
    return dataclasses.replace(PRESETS["classic"], **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"targets": ()}, "at least one target"),
        ({"targets": (0, 1)}, "1 to 6"),
        ({"targets": (1, 7)}, "1 to 6"),
        ({"targets": (1, 2, 2)}, "only once"),
        ({"targets": ("1",)}, "1 to 6"),
        ({"targets": (True,)}, "1 to 6"),
        ({"bunco_points": -1}, "bunco points"),
        ({"mini_bunco_points": -5}, "mini bunco points"),
        ({"bell_points": 0}, "at least 1 point"),
        ({"bell_points": 2.5}, "bell points"),
        ({"snake_eyes": "yes"}, "yes or no"),
        ({"movement": "sideways"}, "Unknown movement"),
        ({"table_tie_break": "arm_wrestle"}, "Unknown tie-break"),
        ({"name": ""}, "name"),
        ({"label": "  "}, "label"),
    ],
)
def test_bad_values_are_rule_errors(changes, message):
    with pytest.raises(RuleError, match=message):
        _classic(**changes)


def test_rule_error_is_a_value_error():
    assert issubclass(RuleError, ValueError)


def test_targets_given_as_list_are_stored_as_tuple():
    assert _classic(targets=[3, 1, 2]).targets == (3, 1, 2)


def test_from_dict_refuses_unknown_and_missing_fields():
    data = PRESETS["mingle"].to_dict()
    with pytest.raises(RuleError, match="Unknown rule fields: colour"):
        RuleSet.from_dict({**data, "colour": "pink"})
    del data["movement"]
    with pytest.raises(RuleError, match="Missing rule fields: movement"):
        RuleSet.from_dict(data)
    with pytest.raises(RuleError):
        RuleSet.from_dict(["not", "a", "dict"])  # type: ignore[arg-type]


def test_from_dict_uses_defaults_for_point_fields():
    data = PRESETS["classic"].to_dict()
    for key in ("bunco_points", "mini_bunco_points", "bell_points"):
        del data[key]
    assert RuleSet.from_dict(data) == PRESETS["classic"]


def test_rounds_take_their_set_and_target_from_the_sheet_order():
    mingle = get_preset("mingle").targets  # 2 to 6: five rounds a set
    assert [round_in_sets(mingle, n) for n in (1, 5, 6, 10, 11)] == [
        (1, 2),
        (1, 6),
        (2, 2),
        (2, 6),
        (3, 2),
    ]
    assert round_in_sets(get_preset("classic").targets, 7) == (2, 1)
    with pytest.raises(RuleError):
        round_in_sets(mingle, 0)
