"""The verification rule in each mode, from plain values: who has to check a card, and when
it counts as verified. The presets take the mode their rule sheet describes."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import ONE_STAFF, PRESETS, SECOND_PERSON, VERIFICATION_MODES, RuleError, RuleSet
from scoring.rules.cards import Card, Entry, Status, state

RECORD = Card(("W", "L", "W"), wins=2, losses=1, buncos=1, minis=2)
PAPER_WRONG = Card(("W", "L", "W"), wins=2, losses=1, buncos=3, minis=2)
SAM, KIM = 1, 2  # two staff members


def test_each_preset_verifies_as_its_sheet_says():
    # mesquite-gaming-staff-verified.txt: "Each Team will have (1) Staff Member Assigned ...
    # Assigned Staff will highlight to verify"; the other sheets name no checker, so the
    # design's second check by a different person holds.
    assert {name: rules.verification for name, rules in PRESETS.items()} == {
        "classic": SECOND_PERSON,
        "mingle": SECOND_PERSON,
        "mesquite": ONE_STAFF,
        "rolling-for-pink": SECOND_PERSON,
    }


def test_rules_stored_before_the_setting_load_as_a_second_person_check():
    data = PRESETS["classic"].to_dict()
    del data["verification"]
    assert RuleSet.from_dict(data).verification == SECOND_PERSON


def test_an_unknown_mode_is_refused():
    data = {**PRESETS["mesquite"].to_dict(), "verification": "nobody"}
    with pytest.raises(RuleError, match="Unknown card verification 'nobody'"):
        RuleSet.from_dict(data)


@pytest.mark.parametrize("mode", VERIFICATION_MODES)
def test_the_mode_round_trips_through_json(mode):
    rules = RuleSet.from_dict({**PRESETS["classic"].to_dict(), "verification": mode})
    assert RuleSet.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


# --- one staff member checks each card against the tables --------------------------------------


def test_one_staff_a_matching_card_is_verified_by_the_person_who_entered_it():
    s = state(RECORD, [Entry(1, RECORD, SAM)], ONE_STAFF)
    assert s.verified and s.checked_by == SAM and s.official == RECORD


def test_one_staff_a_mismatching_card_waits_for_a_resolution_with_its_reason():
    s = state(RECORD, [Entry(1, PAPER_WRONG, SAM)], ONE_STAFF)
    assert s.status == Status.DIFFERS and not s.verified and s.checked_by is None
    assert s.differences == ["Buncos: card 3, tables 1"]
    assert s.official == RECORD  # the tables count meanwhile
    # The same person resolving it is enough.
    entries = [Entry(1, PAPER_WRONG, SAM), Entry(2, PAPER_WRONG, SAM, resolution=True)]
    s = state(RECORD, entries, ONE_STAFF)
    assert s.verified and s.checked_by == SAM and s.official == PAPER_WRONG


def test_one_staff_a_corrected_entry_that_now_matches_is_verified():
    entries = [Entry(1, PAPER_WRONG, SAM), Entry(2, RECORD, SAM)]
    assert state(RECORD, entries, ONE_STAFF).verified


def test_one_staff_a_paper_only_card_counts_as_entered_unless_two_entries_disagree():
    card = Card(wins=2, losses=1, buncos=1)
    s = state(None, [Entry(1, card, SAM)], ONE_STAFF)
    assert s.verified and s.checked_by == SAM and s.official == card
    other = Card(wins=2, losses=1, buncos=2)
    s = state(None, [Entry(1, card, SAM), Entry(2, other, KIM)], ONE_STAFF)
    assert s.status == Status.DIFFERS


# --- a second person confirms -------------------------------------------------------------------


def test_second_person_a_matching_card_needs_someone_else():
    assert state(RECORD, [Entry(1, RECORD, SAM)], SECOND_PERSON).status == Status.TO_CONFIRM
    own = [Entry(1, RECORD, SAM, confirmed_by=SAM)]
    assert state(RECORD, own, SECOND_PERSON).status == Status.TO_CONFIRM
    s = state(RECORD, [Entry(1, RECORD, SAM, confirmed_by=KIM)], SECOND_PERSON)
    assert s.verified and s.checked_by == KIM


def test_second_person_a_resolution_still_needs_someone_else():
    entries = [Entry(1, PAPER_WRONG, SAM), Entry(2, RECORD, SAM, resolution=True)]
    assert state(RECORD, entries, SECOND_PERSON).status == Status.TO_CONFIRM
    entries[-1] = Entry(2, RECORD, SAM, confirmed_by=KIM, resolution=True)
    assert state(RECORD, entries, SECOND_PERSON).checked_by == KIM


def test_without_a_mode_the_stricter_rule_applies():
    assert state(RECORD, [Entry(1, RECORD, SAM)]).status == Status.TO_CONFIRM


cards = st.builds(
    Card,
    rounds=st.just(()),
    wins=st.integers(0, 3),
    losses=st.integers(0, 3),
    buncos=st.integers(0, 2),
)
entries = st.lists(
    st.builds(
        Entry,
        version=st.just(0),
        card=cards,
        entered_by=st.sampled_from([SAM, KIM]),
        confirmed_by=st.sampled_from([None, SAM, KIM]),
        resolution=st.booleans(),
    ),
    max_size=4,
)


@given(record=st.one_of(st.none(), cards), versions=entries)
def test_whatever_one_staff_member_accepts_a_second_person_rule_accepts_with_a_confirmation(
    record, versions
):
    """The modes differ only in who checks: a card verified under the second-person rule is
    verified under the one-staff rule, and neither ever verifies a card that differs."""
    strict = state(record, versions, SECOND_PERSON)
    loose = state(record, versions, ONE_STAFF)
    if strict.verified:
        assert loose.verified
    for s in (strict, loose):
        if s.verified and record is not None and versions and not versions[-1].resolution:
            assert versions[-1].card == record
        if s.verified:
            assert s.checked_by in (SAM, KIM)
