"""Advancement: the pod cut step by step, roll-offs in two phases, and the final table's seats."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules import RuleError
from tournaments.rules.advancement import (
    AdvancementRules,
    Category,
    EmptySeat,
    FinalSeat,
    Placed,
    Qualifier,
    Standing,
    Tie,
    advance_group,
    cut,
    cut_group,
    eligibility,
    final_seats,
    pending_roll_offs,
    rank,
    settle,
)

SHEET = AdvancementRules()
EMPTY_SEAT = AdvancementRules(top_both="empty_seat")


def dice(*faces):
    """A staff member typing in physical dice, one face at a time."""
    return iter(faces).__next__


def thrown(settled):
    """Every face of a settled roll-off, in the order thrown."""
    return [face for faces in settled.roll_off.rounds for face in faces.values()]


def settle_in_two_phases(group, standings, rules, rng):
    """What a staff screen does: ask which roll-offs are due, roll them, store the faces."""
    entered = {}
    while pending := pending_roll_offs(group, standings, rules, entered):
        for tie in pending:
            entered[tie.category_key] = thrown(settle(tie, rng))
    return entered


# Pod 3: Ann, Bea and Cat tie on 7 wins; Dee and Eve tie on 3 buncos among the rest;
# Gil leads both lists but his card is not verified.
POD = [
    Standing("Ann", wins=7, losses=11, buncos=1),
    Standing("Bea", wins=7, losses=11, buncos=0),
    Standing("Cat", wins=7, losses=11, buncos=2),
    Standing("Dee", wins=5, losses=13, buncos=3),
    Standing("Eve", wins=4, losses=14, buncos=3),
    Standing("Fay", wins=3, losses=15, buncos=0),
    Standing("Gil", wins=9, losses=9, buncos=5, eligible=False, reason="Card not verified"),
]


def test_rank_shares_places_between_equal_counts():
    ranked = rank(POD, "buncos")
    assert [(r.rank, r.player, r.value) for r in ranked] == [
        (1, "Gil", 5),
        (2, "Dee", 3),
        (2, "Eve", 3),
        (4, "Cat", 2),
        (5, "Ann", 1),
        (6, "Bea", 0),
        (6, "Fay", 0),
    ]


def test_cut_separates_the_clear_places_from_the_tie_at_the_last_one():
    ranked = rank(eligibility(POD).eligible, "wins")
    found = cut(ranked, 2)
    assert found.clear == () and found.open_places == 2
    assert [r.player for r in found.tie] == ["Ann", "Bea", "Cat"]
    found = cut(ranked, 1, taken={"Ann", "Bea"})
    assert [r.player for r in found.clear] == ["Cat"] and found.tie == ()
    assert [r.player for r in cut(ranked, 4).clear] == ["Ann", "Bea", "Cat", "Dee"]


def test_ties_at_both_cuts_settled_by_entered_dice_keep_every_throw():
    entered = {"wins": (4, 4, 2, 6, 1), "buncos": (2, 5)}
    result = advance_group(3, POD, SHEET, entered)
    assert result.qualifiers == (
        Qualifier("Ann", 3, "wins", "Most wins", 1, 7, True),
        Qualifier("Eve", 3, "buncos", "Most buncos", 1, 3, True),
    )
    wins, buncos = result.roll_offs
    assert wins.tie == Tie(3, "wins", "Most wins", 7, ("Ann", "Bea", "Cat"), 1, 1)
    assert wins.roll_off.rounds == [{"Ann": 4, "Bea": 4, "Cat": 2}, {"Ann": 6, "Bea": 1}]
    assert buncos.tie.players == ("Dee", "Eve") and buncos.winners == ("Eve",)
    assert buncos.roll_off.rounds == [{"Dee": 2, "Eve": 5}]
    # One stream of dice, used in category order, gives the same result.
    assert advance_group(3, POD, SHEET, dice(4, 4, 2, 6, 1, 2, 5)) == result


def test_ties_settled_by_a_seeded_rng_replay_from_the_recorded_throws():
    for seed in range(30):
        result = advance_group(3, POD, SHEET, random.Random(seed))
        assert result == advance_group(3, POD, SHEET, random.Random(seed))
        assert [r.tie.category_key for r in result.roll_offs] == ["wins", "buncos"]
        replay = {r.tie.category_key: thrown(r) for r in result.roll_offs}
        assert advance_group(3, POD, SHEET, replay) == result


def test_entered_dice_must_match_the_roll_off():
    with pytest.raises(RuleError, match="Ran out of entered dice"):
        advance_group(3, POD, SHEET, {"wins": (4, 4, 2), "buncos": (2, 5)})
    with pytest.raises(RuleError, match="6 dice were entered for the Most wins roll-off"):
        advance_group(3, POD, SHEET, {"wins": (6, 1, 2, 3, 3, 3), "buncos": (2, 5)})
    with pytest.raises(RuleError, match="A die shows 1 to 6"):
        advance_group(3, POD, SHEET, {"wins": (7, 1, 2), "buncos": (2, 5)})
    with pytest.raises(RuleError, match="Dice were entered for minis"):
        advance_group(3, POD, SHEET, {"wins": (6, 1, 2), "buncos": (2, 5), "minis": (1,)})
    with pytest.raises(RuleError, match="needs a roll-off between players Ann, Bea, Cat"):
        advance_group(3, POD, SHEET, None)


def test_two_phases_ask_for_one_roll_off_at_a_time_when_the_next_depends_on_it():
    # Ann and Bea tie on wins; Ann alone has the most buncos. If Ann takes the wins seat,
    # the buncos seat is Cat's outright; if Bea does, Ann takes it.
    pod = [
        Standing("Ann", wins=7, buncos=3),
        Standing("Bea", wins=7, buncos=0),
        Standing("Cat", wins=2, buncos=2),
        Standing("Dee", wins=2, buncos=2),
    ]
    (first,) = pending_roll_offs(1, pod, SHEET)
    assert (first.category_key, first.players) == ("wins", ("Ann", "Bea"))
    assert pending_roll_offs(1, pod, SHEET, {"wins": (1, 6)}) == ()
    bea_wins = advance_group(1, pod, SHEET, {"wins": (1, 6)})
    assert [(q.player, q.via_roll_off) for q in bea_wins.qualifiers] == [
        ("Bea", True),
        ("Ann", False),
    ]
    (second,) = pending_roll_offs(1, pod, SHEET, {"wins": (6, 1)})
    assert (second.category_key, second.players) == ("buncos", ("Cat", "Dee"))
    entered = {"wins": (6, 1), "buncos": (3, 3, 2, 4)}
    assert pending_roll_offs(1, pod, SHEET, entered) == ()
    ann_wins = advance_group(1, pod, SHEET, entered)
    assert [q.player for q in ann_wins.qualifiers] == ["Ann", "Dee"]
    assert advance_group(1, pod, SHEET, dice(6, 1, 3, 3, 2, 4)) == ann_wins


def test_while_a_roll_off_waits_the_cut_so_far_stops_at_the_tie_next_in_line():
    """The advancement page shows who is clearly in while the dice are thrown: the engine
    says so, up to the first tie still to throw (the next list depends on who wins it)."""
    pod = [
        Standing("Ann", wins=9, buncos=3),
        Standing("Bea", wins=7, buncos=0),
        Standing("Cat", wins=7, buncos=2),
        Standing("Dee", wins=2, buncos=2),
    ]
    rules = AdvancementRules((Category("wins", "Most wins", 2), Category("buncos", "Most buncos")))
    walk = cut_group(1, pod, rules)
    assert walk.result is None and [t.players for t in walk.pending] == [("Bea", "Cat")]
    assert walk.so_far == {"wins": (Placed(1, "Ann", 9, False),)}
    settled = cut_group(1, pod, rules, {"wins": (2, 5)})
    assert settled.pending == () and settled.result == advance_group(
        1, pod, rules, {"wins": (2, 5)}
    )
    assert settled.so_far["wins"] == (Placed(1, "Ann", 9, False), Placed(2, "Cat", 7, True))
    assert settled.so_far["buncos"] == (Placed(1, "Dee", 2, False),)


def test_while_roll_offs_wait_under_empty_seat_the_cut_so_far_names_who_already_advances():
    pod = [
        Standing("Ann", wins=8, buncos=4),
        Standing("Bea", wins=6, buncos=1),
        Standing("Cat", wins=6, buncos=1),
        Standing("Dee", wins=5, buncos=0),
    ]
    rules = AdvancementRules(
        (Category("wins", "Most wins", 2), Category("buncos", "Most buncos")),
        top_both="empty_seat",
    )
    walk = cut_group(4, pod, rules)
    assert [t.category_key for t in walk.pending] == ["wins"]
    assert walk.so_far == {
        "wins": (Placed(1, "Ann", 8, False),),
        "buncos": (Placed(1, "Ann", 4, False, already="Most wins"),),
    }


def test_under_empty_seat_all_roll_offs_are_known_at_once():
    assert [t.category_key for t in pending_roll_offs(3, POD, EMPTY_SEAT)] == ["wins", "buncos"]


@pytest.mark.parametrize("rules", [SHEET, EMPTY_SEAT], ids=lambda r: r.top_both)
@pytest.mark.parametrize("seed", range(40))
def test_pending_then_entered_dice_equals_the_one_shot_call(rules, seed):
    pod = [Standing(n, wins=n % 3, buncos=n % 2) for n in range(1, 13)]
    entered = settle_in_two_phases(5, pod, rules, random.Random(seed))
    assert advance_group(5, pod, rules, entered) == advance_group(
        5, pod, rules, random.Random(seed)
    )


def test_a_player_topping_both_lists_next_in_line():
    pod = [
        Standing("Ann", wins=8, buncos=4),
        Standing("Bea", wins=6, buncos=3),
        Standing("Cat", wins=5, buncos=1),
    ]
    result = advance_group(2, pod, SHEET, None)
    assert [(q.player, q.category_key, q.value) for q in result.qualifiers] == [
        ("Ann", "wins", 8),
        ("Bea", "buncos", 3),
    ]
    assert result.empty_seats == () and result.roll_offs == ()


def test_a_player_topping_both_lists_empty_seat():
    pod = [
        Standing("Ann", wins=8, buncos=4),
        Standing("Bea", wins=6, buncos=3),
        Standing("Cat", wins=5, buncos=1),
    ]
    result = advance_group(2, pod, EMPTY_SEAT, None)
    assert [q.player for q in result.qualifiers] == ["Ann"]
    assert result.empty_seats == (
        EmptySeat(2, "buncos", "Most buncos", 1, "Ann", "Already advances for Most wins"),
    )


def test_empty_seat_rolls_off_a_tie_that_includes_the_seated_player():
    pod = [
        Standing("Ann", wins=8, buncos=4),
        Standing("Bea", wins=6, buncos=4),
        Standing("Cat", wins=5, buncos=1),
    ]
    # Next in line: Ann is out of the buncos list, so Bea takes it without dice.
    assert [q.player for q in advance_group(2, pod, SHEET, None).qualifiers] == ["Ann", "Bea"]
    ann_rolls_higher = advance_group(2, pod, EMPTY_SEAT, {"buncos": (6, 1)})
    assert [q.player for q in ann_rolls_higher.qualifiers] == ["Ann"]
    assert [s.player for s in ann_rolls_higher.empty_seats] == ["Ann"]
    bea_rolls_higher = advance_group(2, pod, EMPTY_SEAT, {"buncos": (1, 6)})
    assert [(q.player, q.via_roll_off) for q in bea_rolls_higher.qualifiers] == [
        ("Ann", False),
        ("Bea", True),
    ]


def test_ineligible_players_never_advance_and_are_reported():
    result = advance_group(3, POD, SHEET, {"wins": (6, 1, 2), "buncos": (2, 5)})
    assert "Gil" not in {q.player for q in result.qualifiers}
    assert [(s.player, s.reason) for s in result.ineligible] == [("Gil", "Card not verified")]
    assert all("Gil" not in r.tie.players for r in result.roll_offs)


def test_a_whole_group_ineligible_advances_nobody_and_says_so():
    pod = [Standing(p, wins=3, eligible=False, reason="Withdrawn") for p in ("Ann", "Bea")]
    result = advance_group(4, pod, SHEET, None)
    assert result.qualifiers == () and result.roll_offs == ()
    assert [s.player for s in result.ineligible] == ["Ann", "Bea"]
    assert [(e.category_key, e.player, e.reason) for e in result.empty_seats] == [
        ("wins", None, "No eligible player left"),
        ("buncos", None, "No eligible player left"),
    ]


def test_two_places_per_category():
    rules = AdvancementRules(
        (Category("wins", "Most wins", 2), Category("buncos", "Most buncos", 2))
    )
    pod = [
        Standing("Ann", wins=9, buncos=0),
        Standing("Bea", wins=7, buncos=1),
        Standing("Cat", wins=7, buncos=2),
        Standing("Dee", wins=7, buncos=2),
        Standing("Eve", wins=1, buncos=2),
        Standing("Fay", wins=1, buncos=0),
    ]
    (wins_tie,) = pending_roll_offs(6, pod, rules)
    assert (wins_tie.players, wins_tie.first_place, wins_tie.places) == (
        ("Bea", "Cat", "Dee"),
        2,
        1,
    )
    # Dee wins place 2; Cat and Eve then tie for both buncos places: nobody throws.
    result = advance_group(6, pod, rules, {"wins": (3, 1, 5)})
    assert [(q.player, q.category_key, q.place, q.via_roll_off) for q in result.qualifiers] == [
        ("Ann", "wins", 1, False),
        ("Dee", "wins", 2, True),
        ("Cat", "buncos", 1, False),
        ("Eve", "buncos", 2, False),
    ]
    # Three tied for two places: one roll-off settles both places, in order; Dee stays out.
    tie = Tie(6, "wins", "Most wins", 7, ("Bea", "Cat", "Dee"), 1, 2)
    settled = settle(tie, dice(5, 5, 1, 2, 3))
    assert settled.winners == ("Cat", "Bea")
    assert settled.roll_off.rounds == [{"Bea": 5, "Cat": 5, "Dee": 1}, {"Bea": 2, "Cat": 3}]


def test_rules_and_standings_refuse_bad_input():
    with pytest.raises(RuleError, match="ranks by one of"):
        Category("costume", "Best costume")
    with pytest.raises(RuleError, match="at least one player"):
        Category("wins", "Most wins", 0)
    with pytest.raises(RuleError, match="listed twice"):
        AdvancementRules((Category("wins", "Most wins"), Category("wins", "Wins again")))
    with pytest.raises(RuleError, match="at least one category"):
        AdvancementRules(())
    with pytest.raises(RuleError, match="next_in_line, empty_seat"):
        AdvancementRules(top_both="both")
    with pytest.raises(RuleError, match="whole number"):
        Standing("Ann", wins=-1)
    with pytest.raises(RuleError, match="two standings"):
        advance_group(1, [Standing("Ann"), Standing("Ann", wins=2)], SHEET, None)
    with pytest.raises(TypeError):
        advance_group(1, POD, SHEET, (1, 2, 3))


# The final table.

SEMI = [
    Standing(1, wins=5, buncos=0),
    Standing(2, wins=3, buncos=2),
    Standing(3, wins=2, buncos=1),
    Standing(4, wins=2, buncos=0),
    Standing(5, wins=1, buncos=1),
    Standing(6, wins=3, buncos=0, eligible=False, reason="Not present"),
]
EVERYONE = range(1, 49)


def test_the_four_final_seats_follow_their_four_rules_and_replay_from_the_seed():
    stored_seed = 20240518
    table = final_seats(SEMI, SHEET, EVERYONE, random.Random(stored_seed))
    assert table == final_seats(SEMI, SHEET, reversed(EVERYONE), random.Random(stored_seed))
    one, two, three, four = table.seats
    assert one == FinalSeat(1, 1, "Most wins in the semi-final")
    assert two == FinalSeat(2, 2, "Most buncos in the semi-final")
    assert three.reason == "Drawn from the other semi-finalists"
    assert three.pool == (3, 4, 5) and three.player in three.pool  # 6 is not eligible
    assert four.reason == "Wild card drawn from all participants"
    assert four.pool_size == 45 and four.player not in (1, 2, three.player)
    assert [s.seat for s in table.seats] == [1, 2, 3, 4]
    assert table.players == [1, 2, 5, 26]  # pinned: the stored seed must keep drawing these


def test_semi_final_roll_offs_use_entered_dice_or_the_rng():
    semi = [Standing(1, wins=4, buncos=1), Standing(2, wins=4, buncos=1), Standing(3, wins=1)]
    (tie,) = pending_roll_offs("semi-final", semi, SHEET)
    table = final_seats(semi, SHEET, [1, 2, 3, 9], random.Random(1), dice={"wins": (2, 5)})
    assert table.players[:2] == [2, 1]
    assert table.semi_final.roll_offs[0].tie == tie
    assert table.seats[2] == FinalSeat(3, 3, "Drawn from the other semi-finalists", (3,))
    assert table.players[3] == 9
    seeded = final_seats(semi, SHEET, [1, 2, 3, 9], random.Random(7))
    assert seeded == final_seats(semi, SHEET, [9, 3, 2, 1], random.Random(7))


def test_the_draws_are_uniform():
    counts = Counter(
        final_seats(SEMI, SHEET, EVERYONE, random.Random(seed)).players[2] for seed in range(3000)
    )
    assert set(counts) == {3, 4, 5}
    assert all(900 < n < 1100 for n in counts.values())


def test_empty_pools_are_refused_with_a_clear_message():
    two = [Standing(1, wins=2), Standing(2, buncos=1)]
    with pytest.raises(RuleError, match="No other eligible semi-finalist"):
        final_seats(two, SHEET, [1, 2, 3], random.Random(1))
    with pytest.raises(RuleError, match="nobody is left for the wild card"):
        final_seats(SEMI, SHEET, [1, 2], random.Random(1))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    semi_size=st.integers(3, 12),
    extras=st.sets(st.integers(100, 130), max_size=6),
    absent=st.sets(st.integers(1, 12)),
)
def test_the_wild_card_is_never_already_at_the_final_table(seed, semi_size, extras, absent):
    rng = random.Random(seed)
    semi = [
        Standing(p, wins=rng.randint(0, 6), buncos=rng.randint(0, 2))
        for p in range(1, semi_size + 1)
    ]
    present = (set(range(1, semi_size + 1)) - absent) | extras
    try:
        table = final_seats(semi, SHEET, present, random.Random(seed))
    except RuleError as error:
        assert "wild card" in str(error)
        return
    wild = table.seats[-1]
    assert wild.player not in table.players[:-1]
    assert wild.player in present and wild.player in wild.pool
    assert set(wild.pool) == present - set(table.players[:-1])
    assert len(set(table.players)) == len(table.players) == 4


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), semi_size=st.integers(3, 12), extra=st.integers(100, 130))
def test_the_wild_card_is_the_only_present_player_not_yet_seated(seed, semi_size, extra):
    semi = [Standing(p, wins=p % 4, buncos=p % 3) for p in range(1, semi_size + 1)]
    rng = random.Random(seed)
    seated = final_seats(semi, SHEET, [extra], random.Random(seed)).players[:3]
    present = [*seated, extra]
    rng.shuffle(present)
    table = final_seats(semi, SHEET, present, random.Random(seed))
    assert table.players == [*seated, extra] and table.seats[-1].pool == (extra,)


# Properties of the cut for any pod, rules and dice.

KEYS = ("wins", "losses", "buncos", "minis")


@st.composite
def pods(draw):
    players = draw(st.lists(st.integers(1, 99), min_size=1, max_size=14, unique=True))
    counts = st.integers(0, 3)  # small counts, so ties are common
    return [
        Standing(
            p,
            wins=draw(counts),
            losses=draw(counts),
            buncos=draw(counts),
            minis=draw(counts),
            eligible=draw(st.booleans() | st.just(True)),
            reason="Card not verified",
        )
        for p in players
    ]


@st.composite
def advancement_rules(draw):
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True))
    return AdvancementRules(
        tuple(Category(k, f"Most {k}", draw(st.integers(1, 3))) for k in keys),
        draw(st.sampled_from(("next_in_line", "empty_seat"))),
    )


@settings(max_examples=300, deadline=None)
@given(pod=pods(), rules=advancement_rules(), seed=st.integers(0, 2**32), data=st.data())
def test_cut_invariants(pod, rules, seed, data):
    result = advance_group(7, pod, rules, random.Random(seed))
    eligible = {s.player: s for s in pod if s.eligible}
    players = [q.player for q in result.qualifiers]
    assert set(players) <= set(eligible)
    assert len(players) == len(set(players))
    places = sum(c.places for c in rules.categories)
    assert len(players) == places - len(result.empty_seats)
    assert {s.player for s in result.ineligible} == {s.player for s in pod if not s.eligible}
    # Nobody left out of a list has a higher count than someone who won a place on it (under
    # next_in_line, players already advancing for an earlier list are not on it).
    seated_before: set = set()
    for category in rules.categories:
        count = {p: getattr(s, category.key) for p, s in eligible.items()}
        won = {q.player for q in result.qualifiers if q.category_key == category.key}
        assert all(
            q.value == count[q.player] for q in result.qualifiers if q.category_key == category.key
        )
        won |= {e.player for e in result.empty_seats if e.category_key == category.key}
        won.discard(None)
        left_out = set(eligible) - won
        if rules.top_both == "next_in_line":
            left_out -= seated_before
        if won:
            assert all(count[p] <= min(count[w] for w in won) for p in left_out)
        seated_before |= {q.player for q in result.qualifiers if q.category_key == category.key}
    shuffled = data.draw(st.permutations(pod))
    assert advance_group(7, shuffled, rules, random.Random(seed)) == result
