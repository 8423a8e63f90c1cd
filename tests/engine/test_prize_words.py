"""The prize engine's codes in the pages' words: every code has its sentence, names stand
where the engine gives ids, and a note stored with an award reads as the plan's did."""

import json

import pytest

from tournaments.presenters.prizes import (
    note_text,
    passed_text,
    stored_note_text,
    unawarded_text,
    value_text,
)
from tournaments.rules.prizes import (
    OVERALL,
    AwardNote,
    Decided,
    Passed,
    Unawarded,
    Unfilled,
    note_data,
)

NAMES = {7: "Ann Lee", 8: "Bea Cruz", 9: "Cat Ng"}


@pytest.mark.parametrize(
    "note, words",
    [
        (AwardNote(), ""),
        (AwardNote(Decided.SPLIT, 1, tied=2), "2 tied for 1st share the 1st place amount"),
        (
            AwardNote(Decided.SPLIT, 2, tied=2, shared_places=2),
            "2 tied for 2nd share the 2nd and 3rd place amounts",
        ),
        (
            AwardNote(Decided.SPLIT, 1, tied=4, shared_places=3),
            "4 tied for 1st share the 1st to 3rd place amounts",
        ),
        (
            AwardNote(Decided.ROLL_OFF, 3, rolled_with=(8, 9)),
            "Won 3rd place in a roll-off with Bea Cruz, Cat Ng",
        ),
        (AwardNote(Decided.JUDGED), "Chosen by the judges"),
        (AwardNote(Decided.HELD), "Held the traveling item at the end"),
        (
            AwardNote(pod=2, members=3, value=1),
            "1 bunco, shared by the 3 eligible members of pod 2",
        ),
        (
            AwardNote(Decided.ROLL_OFF, 1, rolled_with=(1,), pod=2, members=3, value=5),
            "Won 1st place in a roll-off with pod 1; 5 buncos, shared by the 3 eligible "
            "members of pod 2",
        ),
        (
            AwardNote(Decided.JUDGED, pod=4, members=12),
            "Chosen by the judges; shared by the 12 eligible members of pod 4",
        ),
    ],
)
def test_each_note_in_words_with_names(note, words):
    assert note_text(note, "most_buncos", NAMES) == words


def test_players_passed_over_are_named():
    passed = (Passed(7, "wins", "Most Wins", OVERALL), Passed(8, "buncos", "Buncos", 2))
    assert passed_text(passed, NAMES) == (
        "Ann Lee already won Most Wins (the whole event); Bea Cruz already won Buncos (pod 2)"
    )
    assert passed_text((), NAMES) == ""


@pytest.mark.parametrize(
    "reason, detail, words",
    [
        (Unfilled.NOBODY_HOLDS, {}, "Nobody was named as holding the traveling item"),
        (Unfilled.NOT_CHOSEN, {}, "No winner has been chosen"),
        (
            Unfilled.NOT_ELIGIBLE,
            {"player": 9, "why": "Not present"},
            "Cat Ng is not eligible: Not present",
        ),
        (Unfilled.NOT_ELIGIBLE, {"player": 9}, "Cat Ng is not eligible: no reason given"),
        (Unfilled.NO_POD_ELIGIBLE, {}, "No pod has an eligible player"),
        (Unfilled.NOBODY_SCORED, {}, "No eligible player rolled a mini bunco"),
        (Unfilled.NOT_ENOUGH_PODS, {}, "Not enough pods for 2nd place"),
        (Unfilled.POD_NOBODY_ELIGIBLE, {"pod": 3}, "Nobody in pod 3 is eligible"),
        (Unfilled.NOBODY_ELIGIBLE, {}, "No eligible player in the whole event"),
        (Unfilled.ALL_LEFT_WON, {}, "Everyone left for 2nd place already won a prize"),
        (Unfilled.NOT_ENOUGH_PLAYERS, {}, "Not enough eligible players for 2nd place"),
    ],
)
def test_every_unfilled_place_says_why(reason, detail, words):
    empty = Unawarded("minis", "Minis", OVERALL, 2, reason, "most_minis", **detail)
    assert unawarded_text(empty, NAMES) == words


def test_every_code_has_words():
    for reason in Unfilled:
        assert unawarded_text(Unawarded("k", "K", 1, 1, reason, "most_wins"), {})


def test_a_stored_note_reads_as_the_plans_after_a_round_trip_through_json():
    note = AwardNote(Decided.ROLL_OFF, 1, rolled_with=(8, 9))
    passed = (Passed(7, "wins", "Most Wins", OVERALL),)
    stored = json.loads(json.dumps(note_data(note, passed)))
    assert stored_note_text(stored, "most_wins", NAMES) == (
        "Won 1st place in a roll-off with Bea Cruz, Cat Ng; "
        "Ann Lee already won Most Wins (the whole event)"
    )
    assert stored_note_text({}, "most_wins", NAMES) == ""
    assert stored_note_text({"as_written": "Chosen by the judges"}, "judged", NAMES) == (
        "Chosen by the judges"
    )


def test_counts_in_words():
    assert value_text("most_losses", 1) == "1 loss"
    assert value_text("most_minis", 3) == "3 mini buncos"
    assert value_text("last_bunco", None) == ""
