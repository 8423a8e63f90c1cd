"""Card states from plain values: what "verified" means, decided in one place."""

from scoring.rules.cards import (
    Card,
    Entry,
    Status,
    TableMarks,
    check_table,
    derive,
    differences,
    state,
    unplayed_claims,
)

RECORD = Card(("W", "L", "W"), wins=2, losses=1, buncos=1, minis=2)
A, B = 1, 2  # two staff members


def test_no_entry_is_unchecked_and_the_record_counts():
    s = state(RECORD, [])
    assert s.status == Status.UNCHECKED and s.official == RECORD


def test_matching_entry_needs_someone_else_to_confirm():
    assert state(RECORD, [Entry(1, RECORD, A)]).status == Status.TO_CONFIRM
    assert state(RECORD, [Entry(1, RECORD, A, confirmed_by=A)]).status == Status.TO_CONFIRM
    assert state(RECORD, [Entry(1, RECORD, A, confirmed_by=B)]).verified


def test_differing_entry_lists_every_difference():
    paper = Card(("W", "W", "W"), wins=3, losses=0, buncos=1, minis=2)
    s = state(RECORD, [Entry(1, paper, A, confirmed_by=B)])
    assert s.status == Status.DIFFERS and not s.verified
    assert s.differences == [
        "Round 2: card says W, tables say L",
        "Wins: card 3, tables 2",
        "Losses: card 0, tables 1",
    ]
    assert s.official == RECORD  # the tables count until someone resolves it


def test_resolution_settles_but_still_needs_a_second_person():
    paper = Card(("W", "W", "W"), wins=3, losses=0, buncos=1, minis=2)
    entries = [Entry(1, paper, A), Entry(2, paper, B, resolution=True)]
    assert state(RECORD, entries).status == Status.TO_CONFIRM
    entries[-1] = Entry(2, paper, B, confirmed_by=A, resolution=True)
    s = state(RECORD, entries)
    assert s.verified and s.official == paper


def test_a_settled_card_is_flagged_again_when_the_tables_change_after():
    """A resolution settles the card against the tables as they were; a table corrected later
    must not leave it verified with numbers nobody checked against the new record."""
    paper = Card(("W", "W", "W"), wins=3, losses=0, buncos=1, minis=2)
    tables_right = Entry(2, RECORD, B, confirmed_by=A, resolution=True, against=RECORD)
    card_right = Entry(2, paper, B, confirmed_by=A, resolution=True, against=RECORD)
    for settled in (tables_right, card_right):
        assert state(RECORD, [Entry(1, paper, A), settled]).verified
    corrected = Card(("W", "L", "L"), wins=1, losses=2, buncos=1, minis=2)  # round 3 corrected
    s = state(corrected, [Entry(1, paper, A), tables_right])
    assert s.status == Status.DIFFERS and s.official == corrected
    assert s.differences == [
        "The tables changed after this card was settled",
        "Round 3: card says W, tables say L",
        "Wins: card 2, tables 1",
        "Losses: card 1, tables 2",
    ]
    # Tables corrected to agree with the paper the resolution chose: still settled.
    s = state(paper, [Entry(1, paper, A), card_right])
    assert s.verified and s.official == paper
    # Settled before the basis was stored: kept as it was.
    old = Entry(2, paper, B, confirmed_by=A, resolution=True)
    assert state(corrected, [Entry(1, paper, A), old]).verified


def test_paper_only_pod_needs_two_people_who_agree():
    card = Card(wins=2, losses=1, buncos=1)
    assert state(None, [Entry(1, card, A)]).status == Status.SECOND_ENTRY
    # The same person typing it again is a correction, not a second check.
    assert state(None, [Entry(1, card, A), Entry(2, card, A)]).status == Status.SECOND_ENTRY
    assert state(None, [Entry(1, card, A), Entry(2, card, B)]).verified
    other = Card(wins=2, losses=1, buncos=2)
    s = state(None, [Entry(1, card, A), Entry(2, other, B)])
    assert s.status == Status.DIFFERS
    assert s.differences == ["Buncos: card 2, the other entry 1"]


def test_totals_only_cards_compare_totals():
    assert differences(Card(wins=2, losses=1, buncos=1, minis=2), RECORD) == []


def test_derive_marks_rounds_and_sums_credits():
    from scoring.rules.cards import SeatResult

    card = derive(4, [SeatResult(1, 9, True, buncos=1), SeatResult(3, 9, False, minis=2)])
    assert card == Card(("W", None, "L", None), wins=1, losses=1, buncos=1, minis=2)


def test_table_check_catches_two_winning_pairs_and_split_partners():
    seats = (11, 12, 13, 14)
    ok = TableMarks(1, 1, seats, {11: "W", 12: "L", 13: "W", 14: "L"})
    assert check_table(ok) == []
    two_winners = TableMarks(2, 3, seats, {11: "W", 12: "W", 13: "W", 14: "W"})
    assert check_table(two_winners) == ["Round 2, table 3: two winning pairs"]
    split = TableMarks(1, 2, seats, {11: "W", 12: "L", 13: "L", 14: "L"})
    assert check_table(split) == ["Round 1, table 2: partners in seats 1 & 3 disagree on who won"]


def test_ghost_follows_its_partner():
    marks = TableMarks(1, 1, (11, None, 13, 14), {11: "L", 13: "L", 14: "W"})
    assert check_table(marks) == []


def test_a_card_claims_only_rounds_played():
    assert unplayed_claims(RECORD, {1, 2, 3}) is None
    assert unplayed_claims(Card(("W", None, None), wins=1), {1}) is None
    assert unplayed_claims(Card(("W", None, "L"), wins=1, losses=1), {1, 2}) == (
        "Round 3 is marked L, but the player has not played it."
    )
    late = Card((None, "W"), wins=1)  # arrived late: seated from round 2
    assert unplayed_claims(late, {2}) is None
    assert "has played 1 round so far" in unplayed_claims(Card((), wins=2), {2})
