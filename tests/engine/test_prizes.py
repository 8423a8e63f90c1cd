"""Prize selection: each measure, ties shared or rolled off, one prize each, pods and templates."""

import random
import subprocess
import sys
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules import RuleError
from tournaments.presenters.prizes import note_text, passed_text, unawarded_text
from tournaments.rules.prizes import (
    MEASURES,
    OVERALL,
    TEMPLATES,
    Award,
    AwardNote,
    CategoryRule,
    Decided,
    PlayerTotals,
    PrizeTie,
    award_prizes,
    check_categories,
    faces_thrown,
    pending_prize_roll_offs,
    settle_prize_tie,
    split_cents,
)


def dice(*faces):
    """A staff member typing in physical dice, one face at a time."""
    return iter(faces).__next__


def prize(key, measure, scope="pod", amounts=(1000,), tie_policy="split", priority=0):
    return CategoryRule(
        key, key.replace("_", " ").capitalize(), measure, scope, amounts, tie_policy, priority
    )


def unawarded(result):
    """(category, label, scope group, place, why in the page's words) of every empty place."""
    return tuple(
        (u.category_key, u.label, u.scope_group, u.place, unawarded_text(u, {}))
        for u in result.unawarded
    )


def said(award, measure="most_buncos"):
    """An award's note in the page's words (players named by their ids, as here)."""
    return note_text(award.note, measure, {})


def winners(result, key=None):
    """(category, scope group, place, players, cents each) of every award, in order."""
    return [
        (a.category_key, a.scope_group, a.place, a.players, a.amount_cents_each)
        for a in result.awards
        if key is None or a.category_key == key
    ]


def recorded_faces(result):
    """The faces of every roll-off in a result, keyed as staff would have entered them."""
    first = {}
    for award in result.awards:  # in place order, so a roll-off is first met at its tie's place
        if award.roll_off is not None:
            seen = (award.category_key, award.scope_group, id(award.roll_off))
            first.setdefault(seen, (award.place, award.roll_off))
    return {
        f"{key}:{group}:{place}": faces_thrown(rolled)
        for (key, group, _), (place, rolled) in first.items()
    }


def settle_in_two_phases(totals, categories, rng, **options):
    """What a staff screen does: ask which roll-offs are due, roll them, store the faces."""
    entered = {}
    asked = []
    while pending := pending_prize_roll_offs(totals, categories, dice=entered, **options):
        asked.append([tie.key for tie in pending])
        for tie in pending:
            entered[tie.key] = faces_thrown(settle_prize_tie(tie, rng))
    return entered, asked


# Pod 1 of a Mesquite-style night. Gil leads buncos and wins but is not present.
POD_1 = [
    PlayerTotals("Ann", 1, wins=10, losses=8, buncos=2, minis=4, last_bunco=1),
    PlayerTotals("Bea", 1, wins=9, losses=9, buncos=3, minis=1, last_bunco=2),
    PlayerTotals("Cat", 1, wins=8, losses=10, buncos=1, minis=0, last_bunco=3),
    PlayerTotals("Dee", 1, wins=9, losses=9, buncos=0, minis=2),
    PlayerTotals("Eve", 1, wins=6, losses=12, buncos=0, minis=0),
    PlayerTotals(
        "Gil",
        1,
        wins=12,
        losses=6,
        buncos=5,
        minis=3,
        last_bunco=4,
        eligible=False,
        reason="Not present",
    ),
]


@pytest.mark.parametrize(
    ("measure", "winner", "value"),
    [
        ("most_buncos", "Bea", 3),
        ("most_minis", "Ann", 4),
        ("most_wins", "Ann", 10),
        ("most_losses", "Eve", 12),
        ("last_bunco", "Cat", None),
    ],
)
def test_each_ranked_measure_goes_to_the_best_eligible_player(measure, winner, value):
    result = award_prizes(POD_1, [prize("p", measure, amounts=(2500,))])
    (award,) = result.awards
    assert award == Award("p", "P", 1, 1, (winner,), (2500,), value=value)
    assert result.unawarded == ()


def test_even_split_shares_first_place_between_everyone_with_as_many_wins_as_losses():
    result = award_prizes(POD_1, [prize("even", "even_split", amounts=(1001,))])
    (award,) = result.awards
    assert (award.players, award.amount_cents_each) == (("Bea", "Dee"), (501, 500))
    assert award.value is None and said(award) == "2 tied for 1st share the 1st place amount"
    # Nobody at 0-0 counts, and a roll-off settles the same tie when the policy says so.
    quiet = [*POD_1, PlayerTotals("Fay", 1)]
    rolled = award_prizes(
        quiet, [prize("even", "even_split", tie_policy="roll_off")], dice=dice(2, 5)
    )
    assert winners(rolled) == [("even", 1, 1, ("Dee",), (1000,))]
    assert rolled.awards[0].roll_off.rounds == [{"Bea": 2, "Dee": 5}]


def test_last_bunco_passes_over_an_absent_player_and_needs_a_bunco_at_all():
    (award,) = award_prizes(POD_1, [prize("last", "last_bunco")]).awards
    assert award.players == ("Cat",)  # Gil's was recorded later, but he is not present
    no_buncos = [PlayerTotals("Dee", 1, wins=1), PlayerTotals("Eve", 1, losses=1)]
    result = award_prizes(no_buncos, [prize("last", "last_bunco")])
    assert unawarded(result) == (("last", "Last", 1, 1, "No eligible player rolled a bunco"),)
    with pytest.raises(RuleError, match="has a last bunco but no buncos"):
        PlayerTotals("Dee", 1, last_bunco=5)


def test_traveling_holder_is_paid_only_when_eligible():
    category = [prize("fuzzy", "traveling_holder", scope="overall")]
    held = award_prizes(POD_1, category, named={"fuzzy": {OVERALL: "Eve"}})
    assert held.awards == (
        Award(
            "fuzzy",
            "Fuzzy",
            OVERALL,
            1,
            ("Eve",),
            (1000,),
            note=AwardNote(Decided.HELD),
        ),
    )
    assert said(held.awards[0]) == "Held the traveling item at the end"
    absent = award_prizes(POD_1, category, named={"fuzzy": {OVERALL: "Gil"}})
    assert absent.awards == ()
    assert unawarded(absent) == (
        ("fuzzy", "Fuzzy", OVERALL, 1, "Gil is not eligible: Not present"),
    )
    unnamed = award_prizes(POD_1, category)
    assert (
        unawarded_text(unnamed.unawarded[0], {}) == "Nobody was named as holding the traveling item"
    )


def test_judged_winners_are_checked_for_scope_and_eligibility():
    pods = [*POD_1, PlayerTotals("Hal", 2), PlayerTotals("Ivy", 2)]
    costume = prize("costume", "judged", amounts=(2500, 1000))
    result = award_prizes(pods, [costume], named={"costume": {1: ["Cat", "Gil"], 2: "Ivy"}})
    assert winners(result) == [
        ("costume", 1, 1, ("Cat",), (2500,)),
        ("costume", 2, 1, ("Ivy",), (2500,)),
    ]
    assert unawarded(result) == (
        ("costume", "Costume", 1, 2, "Gil is not eligible: Not present"),
        ("costume", "Costume", 2, 2, "No winner has been chosen"),
    )
    bad = [
        ({"costume": {1: "Hal"}}, "player 'Hal' plays in pod 2"),
        ({"costume": {1: "Zed"}}, "there is no player 'Zed'"),
        ({"costume": {3: "Ann"}}, "has no group 3"),
        ({"costume": {1: ["Ann", "Ann"]}}, "names the same winner twice"),
        ({"costume": {1: ["Ann", "Bea", "Cat"]}}, "has 2 place"),
        ({"wins": {1: "Ann"}}, "Winners are named only for judged and traveling prizes"),
    ]
    for named, message in bad:
        with pytest.raises(RuleError, match=message):
            award_prizes(pods, [costume, prize("wins", "most_wins")], named=named)


def test_split_ties_share_the_places_they_cover_with_extra_cents_in_id_order():
    pod = [
        PlayerTotals("Cat", 1, buncos=4),
        PlayerTotals("Ann", 1, buncos=4),
        PlayerTotals("Bea", 1, buncos=4),
        PlayerTotals("Dee", 1, buncos=2),
        PlayerTotals("Eve", 1, buncos=2),
    ]
    # Three tied for one place: 1000 cents -> 334, 333, 333, the extra cent to "Ann".
    (award,) = award_prizes(pod, [prize("b", "most_buncos")]).awards
    assert (award.players, award.amount_cents_each) == (("Ann", "Bea", "Cat"), (334, 333, 333))
    # Three tied for 1st with three places share 1st + 2nd + 3rd.
    (award,) = award_prizes(pod, [prize("b", "most_buncos", amounts=(500, 300, 201))]).awards
    assert award.amount_cents_each == (334, 334, 333)
    assert said(award) == "3 tied for 1st share the 1st to 3rd place amounts"
    # A tie at 2nd shares 2nd and 3rd; the place after a tie is numbered past it.
    short = [t for t in pod if t.player != "Cat" and t.player != "Bea"]
    result = award_prizes(short, [prize("b", "most_buncos", amounts=(500, 301, 200, 100))])
    assert winners(result) == [
        ("b", 1, 1, ("Ann",), (500,)),
        ("b", 1, 2, ("Dee", "Eve"), (251, 250)),
    ]
    assert unawarded(result) == (("b", "B", 1, 4, "Not enough eligible players for 4th place"),)
    assert split_cents(7, 3) == (3, 2, 2) and split_cents(0, 2) == (0, 0)


TIED = [
    PlayerTotals("Ann", 1, wins=7, buncos=3),
    PlayerTotals("Bea", 1, wins=7, buncos=3),
    PlayerTotals("Cat", 1, wins=7, buncos=1),
    PlayerTotals("Dee", 1, wins=2, buncos=1),
]


def test_a_roll_off_with_entered_dice_keeps_every_throw_and_pays_each_place():
    wins = prize("wins", "most_wins", amounts=(4000, 2000), tie_policy="roll_off")
    (tie,) = pending_prize_roll_offs(TIED, [wins])
    assert tie == PrizeTie("wins:1:1", "wins", "Wins", 1, 1, 2, ("Ann", "Bea", "Cat"), 7)
    entered = {"wins:1:1": (4, 4, 2, 6, 1)}
    assert pending_prize_roll_offs(TIED, [wins], dice=entered) == ()
    result = award_prizes(TIED, [wins], dice=entered)
    assert winners(result) == [
        ("wins", 1, 1, ("Ann",), (4000,)),
        ("wins", 1, 2, ("Bea",), (2000,)),
    ]
    first, second = result.awards
    assert first.via_roll_off and first.roll_off is second.roll_off
    assert first.roll_off.rounds == [{"Ann": 4, "Bea": 4, "Cat": 2}, {"Ann": 6, "Bea": 1}]
    assert said(first) == "Won 1st place in a roll-off with Bea, Cat"
    # The same faces from one stream give the same awards.
    assert award_prizes(TIED, [wins], dice=dice(4, 4, 2, 6, 1)) == result


def test_entered_dice_must_match_the_roll_off():
    wins = [prize("wins", "most_wins", tie_policy="roll_off")]
    with pytest.raises(RuleError, match="Ran out of entered dice"):
        award_prizes(TIED, wins, dice={"wins:1:1": (4, 4)})
    with pytest.raises(RuleError, match=r"4 dice were entered for the Wins roll-off \(wins:1:1\)"):
        award_prizes(TIED, wins, dice={"wins:1:1": (6, 1, 2, 3)})
    with pytest.raises(RuleError, match="A die shows 1 to 6"):
        award_prizes(TIED, wins, dice={"wins:1:1": (7, 1, 2)})
    with pytest.raises(RuleError, match="Dice were entered for wins:1:2"):
        award_prizes(TIED, wins, dice={"wins:1:1": (6, 1, 2), "wins:1:2": (1,)})
    with pytest.raises(RuleError, match=r"Wins \(pod 1\) needs a roll-off between Ann, Bea, Cat"):
        award_prizes(TIED, wins)
    with pytest.raises(TypeError):
        award_prizes(TIED, wins, dice=42)


CATEGORIES = [
    prize("buncos", "most_buncos", tie_policy="roll_off", priority=1),
    prize("wins", "most_wins", amounts=(300, 200), tie_policy="roll_off", priority=2),
    prize("losses", "most_losses", scope="overall", tie_policy="roll_off", priority=3),
    prize("team", "most_minis", scope="pod_group", tie_policy="roll_off", priority=4),
]
EVENT = [
    PlayerTotals(n, 1 + n % 3, wins=n % 4, losses=3 - n % 4, buncos=n % 2, minis=n % 3 // 2)
    for n in range(1, 25)
]


@pytest.mark.parametrize("one_prize_per_player", [False, True])
@pytest.mark.parametrize("seed", range(25))
def test_pending_then_entered_dice_equals_the_one_shot_call(seed, one_prize_per_player):
    options = {"one_prize_per_player": one_prize_per_player}
    entered, asked = settle_in_two_phases(EVENT, CATEGORIES, random.Random(seed), **options)
    one_shot = award_prizes(EVENT, CATEGORIES, dice=random.Random(seed), **options)
    assert award_prizes(EVENT, CATEGORIES, dice=entered, **options) == one_shot
    # Replaying the recorded throws gives the same result, throw for throw.
    assert recorded_faces(one_shot) == entered
    if not one_prize_per_player:
        assert len(asked) == 1  # nothing depends on another roll-off: all asked at once


def test_one_prize_per_player_moves_the_next_player_up_through_a_chain():
    pod = [
        PlayerTotals("Ann", 1, wins=9, buncos=4, minis=5),
        PlayerTotals("Bea", 1, wins=8, buncos=2, minis=3),
        PlayerTotals("Cat", 1, wins=7, buncos=1, minis=1),
    ]
    categories = [
        prize("wins", "most_wins", priority=3),
        prize("buncos", "most_buncos", priority=1),
        prize("minis", "most_minis", priority=2),
    ]
    result = award_prizes(pod, categories, one_prize_per_player=True)
    assert [
        (a.category_key, a.players, passed_text(a.moved_up_because, {})) for a in result.awards
    ] == [
        ("buncos", ("Ann",), ""),
        ("minis", ("Bea",), "Ann already won Buncos (pod 1)"),
        ("wins", ("Cat",), "Ann already won Buncos (pod 1); Bea already won Minis (pod 1)"),
    ]
    # Without the option, Ann takes everything.
    free = award_prizes(pod, categories)
    assert {a.players for a in free.awards} == {("Ann",)}
    # A fourth category finds nobody left.
    losses = prize("losses", "most_losses", priority=4)
    lost = [
        PlayerTotals(t.player, 1, wins=t.wins, losses=1, buncos=t.buncos, minis=t.minis)
        for t in pod
    ]
    result = award_prizes(lost, [*categories, losses], one_prize_per_player=True)
    assert unawarded(result) == (
        ("losses", "Losses", 1, 1, "Everyone left for 1st place already won a prize"),
    )


def test_one_prize_per_player_waits_for_a_roll_off_that_decides_who_is_free():
    # Ann and Bea tie on buncos; whoever loses the roll-off wins the minis outright.
    pod = [
        PlayerTotals("Ann", 1, buncos=3, minis=4),
        PlayerTotals("Bea", 1, buncos=3, minis=4),
        PlayerTotals("Cat", 1, buncos=1, minis=1),
    ]
    categories = [
        prize("buncos", "most_buncos", tie_policy="roll_off", priority=1),
        prize("minis", "most_minis", tie_policy="roll_off", priority=2),
        prize("costume", "judged", priority=3),
    ]
    options = {"one_prize_per_player": True, "named": {"costume": {1: "Ann"}}}
    (first,) = pending_prize_roll_offs(pod, categories, **options)
    assert first.key == "buncos:1:1"
    assert pending_prize_roll_offs(pod, categories, dice={"buncos:1:1": (2, 5)}, **options) == ()
    result = award_prizes(pod, categories, dice={"buncos:1:1": (2, 5)}, **options)
    assert [(a.category_key, a.players, a.via_roll_off) for a in result.awards] == [
        ("buncos", ("Bea",), True),
        ("minis", ("Ann",), False),
        ("costume", ("Ann",), False),  # judged prizes are neither blocked nor block
    ]
    assert passed_text(result.awards[1].moved_up_because, {}) == "Bea already won Buncos (pod 1)"


def test_a_tie_that_places_everyone_tied_blocks_them_without_waiting():
    # Ann and Bea both place for buncos whatever the dice say, so Ann is not free for the
    # wins prize and Cat takes it outright: nobody is asked to roll off Ann against Cat.
    pod = [
        PlayerTotals("Ann", 1, buncos=3, wins=5),
        PlayerTotals("Bea", 1, buncos=3, wins=1),
        PlayerTotals("Cat", 1, buncos=1, wins=5),
    ]
    categories = [
        prize("buncos", "most_buncos", amounts=(200, 100), tie_policy="roll_off", priority=1),
        prize("wins", "most_wins", tie_policy="roll_off", priority=2),
    ]
    (tie,) = pending_prize_roll_offs(pod, categories, one_prize_per_player=True)
    assert (tie.key, tie.players, tie.places) == ("buncos:1:1", ("Ann", "Bea"), 2)
    result = award_prizes(pod, categories, dice={"buncos:1:1": (1, 6)}, one_prize_per_player=True)
    assert [(a.category_key, a.place, a.players) for a in result.awards] == [
        ("buncos", 1, ("Bea",)),
        ("buncos", 2, ("Ann",)),
        ("wins", 1, ("Cat",)),
    ]
    assert passed_text(result.awards[-1].moved_up_because, {}) == "Ann already won Buncos (pod 1)"


def test_pod_prizes_are_per_pod_and_a_group_prize_sums_and_shares_within_the_pod():
    pods = [
        PlayerTotals("Ann", 1, buncos=3),
        PlayerTotals("Bea", 1, buncos=2),
        PlayerTotals("Cat", 1, buncos=0),
        PlayerTotals("Dee", 2, buncos=4),
        PlayerTotals("Eve", 2, buncos=0),
        PlayerTotals("Gil", 2, buncos=9, eligible=False, reason="Card not verified"),
    ]
    categories = [
        prize("buncos", "most_buncos", amounts=(10_000,), priority=1),
        prize("team", "most_buncos", scope="pod_group", amounts=(10_000,), priority=2),
    ]
    result = award_prizes(pods, categories)
    assert winners(result) == [
        ("buncos", 1, 1, ("Ann",), (10_000,)),
        ("buncos", 2, 1, ("Dee",), (10_000,)),
        # Pod 1: 5 buncos beats pod 2's 4 (Gil's unverified 9 do not count), shared by 3.
        ("team", OVERALL, 1, ("Ann", "Bea", "Cat"), (3334, 3333, 3333)),
    ]
    team = result.awards[-1]
    assert (team.pod, team.value) == (1, 5)
    assert said(team) == "5 buncos, shared by the 3 eligible members of pod 1"


def test_tied_pods_split_between_pods_then_within_each():
    pods = [PlayerTotals(n, 1 + n % 2, buncos=1) for n in range(1, 6)]  # pod 1: 2, pod 2: 3
    pods.append(PlayerTotals(6, 1, buncos=1))  # now 3 buncos each
    team = prize("team", "most_buncos", scope="pod_group", amounts=(1001,))
    assert winners(award_prizes(pods, [team])) == [
        ("team", OVERALL, 1, (2, 4, 6), (167, 167, 167)),  # pod 1 gets 501
        ("team", OVERALL, 1, (1, 3, 5), (167, 167, 166)),  # pod 2 gets 500
    ]
    rolled = award_prizes(
        pods,
        [prize("team", "most_buncos", "pod_group", (900,), "roll_off")],
        dice={"team:overall:1": (3, 4)},
    )
    (award,) = rolled.awards
    assert (award.pod, award.players, award.amount_cents_each) == (2, (1, 3, 5), (300,) * 3)
    assert said(award) == (
        "Won 1st place in a roll-off with pod 1; 3 buncos, shared by the 3 eligible members of "
        "pod 2"
    )
    assert award.roll_off.rounds == [{1: 3, 2: 4}]


def test_judged_group_prize_pays_the_named_pods_eligible_members():
    pods = [*POD_1, PlayerTotals("Hal", 2, eligible=False, reason="Not present")]
    team = prize("team_costume", "judged", scope="pod_group", amounts=(2500,))
    (award,) = award_prizes(pods, [team], named={"team_costume": {OVERALL: 1}}).awards
    assert award.pod == 1 and award.players == ("Ann", "Bea", "Cat", "Dee", "Eve")
    assert award.amount_cents_each == (500,) * 5
    nobody = award_prizes(pods, [team], named={"team_costume": {OVERALL: [2]}})
    assert unawarded(nobody) == (
        ("team_costume", "Team costume", OVERALL, 1, "Nobody in pod 2 is eligible"),
    )
    with pytest.raises(RuleError, match="there is no pod 3"):
        award_prizes(pods, [team], named={"team_costume": {OVERALL: 3}})


def test_unawarded_places_say_why():
    pods = [
        PlayerTotals("Ann", 1, wins=1, losses=1),
        PlayerTotals("Bea", 2, wins=1, buncos=1, eligible=False, reason="Not present"),
    ]
    categories = [
        prize("buncos", "most_buncos"),
        prize("minis", "most_minis", scope="overall"),
        prize("wins", "most_wins", scope="overall", amounts=(100, 50)),
        prize("team", "most_buncos", scope="pod_group"),
    ]
    assert unawarded(award_prizes(pods, categories)) == (
        ("buncos", "Buncos", 1, 1, "No eligible player rolled a bunco"),
        ("buncos", "Buncos", 2, 1, "No eligible player in pod 2"),
        ("minis", "Minis", OVERALL, 1, "No eligible player rolled a mini bunco"),
        ("wins", "Wins", OVERALL, 2, "Not enough eligible players for 2nd place"),
        ("team", "Team", OVERALL, 1, "No eligible player rolled a bunco"),
    )


def test_bad_categories_and_totals_are_refused():
    bad_categories = [
        (("k", "most_snake_eyes", "pod", (1,)), "choose a measure"),
        (("k", "most_wins", "table", (1,)), "choose a scope"),
        (("k", "most_wins", "pod", (1,), "coin_toss"), "ties are settled by"),
        (("k", "most_wins", "pod", ()), "one amount in cents"),
        (("k", "most_wins", "pod", (-5,)), "one amount in cents"),
        (("k", "even_split", "pod_group", (1,)), "cannot be summed over a pod"),
        (("k", "traveling_holder", "pod", (1, 1)), "one player holds the traveling item"),
        (("a:b", "most_wins", "pod", (1,)), "without ':'"),
    ]
    for (key, measure, scope, amounts, *policy), message in bad_categories:
        with pytest.raises(RuleError, match=message):
            CategoryRule(key, "Label", measure, scope, amounts, *policy)
    with pytest.raises(RuleError, match="is used twice"):
        check_categories([prize("k", "most_wins"), prize("k", "most_losses")])
    with pytest.raises(RuleError, match="must be a whole number"):
        PlayerTotals("Ann", 1, wins=-1)
    with pytest.raises(RuleError, match="a pod id is a number or text other than 'overall'"):
        PlayerTotals("Ann", OVERALL)
    wins = [prize("wins", "most_wins")]
    with pytest.raises(RuleError, match="two sets of totals"):
        award_prizes([PlayerTotals("Ann", 1), PlayerTotals("Ann", 2)], wins)
    with pytest.raises(RuleError, match="all numbers or all text"):
        award_prizes([PlayerTotals("Ann", 1), PlayerTotals(2, 1)], wins)
    with pytest.raises(RuleError, match="none were given"):
        award_prizes([], wins)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_templates_validate_and_award_a_whole_event(name):
    categories = check_categories(TEMPLATES[name])
    assert [c.priority for c in categories] == [c.priority for c in TEMPLATES[name]]
    named = {
        c.key: {
            g: 1 if c.scope == "pod_group" else f"p{1 if g == OVERALL else g}-1"
            for g in ((1, 2) if c.scope == "pod" else (OVERALL,))
        }
        for c in categories
        if c.measure in ("judged", "traveling_holder")
    }
    event = [
        PlayerTotals(
            f"p{pod}-{n}",
            pod,
            wins=n % 5,
            losses=4 - n % 5,
            buncos=n % 3,
            minis=n % 2,
            last_bunco=n if n % 3 else None,
        )
        for pod in (1, 2)
        for n in range(1, 13)
    ]
    result = award_prizes(event, categories, named=named, dice=random.Random(name))
    assert result.unawarded == ()
    paid = sum(a.total_cents for a in result.awards)
    expected = sum(c.total_cents * (2 if c.scope == "pod" else 1) for c in categories)
    assert paid == expected


def test_template_contents_follow_the_sheets():
    mesquite = {c.key: (c.measure, c.scope, c.amounts_cents) for c in TEMPLATES["mesquite"]}
    assert mesquite == {
        "buncos": ("most_buncos", "pod", (10_000,)),
        "minis": ("most_minis", "pod", (5_000,)),
        "wins": ("most_wins", "pod", (4_000,)),
        "costume": ("judged", "pod", (2_500,)),
        "team_buncos": ("most_buncos", "pod_group", (10_000,)),
        "team_costume": ("judged", "pod_group", (2_500,)),
    }
    assert {c.measure for c in TEMPLATES["classic"]} == set(MEASURES) - {"judged"}
    assert [c.measure for c in TEMPLATES["mingle"]] == [
        "most_wins",
        "most_losses",
        "traveling_holder",
    ]
    assert TEMPLATES["rolling-for-pink"] == ()


def test_the_engine_imports_no_django():
    code = (
        "import sys, tournaments.rules.prizes; "
        "print(any(m.startswith('django') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# Random events: any totals, categories and named winners.
players = st.builds(
    lambda n, pod, w, lost, b, m, moment, ok: PlayerTotals(
        n,
        pod,
        wins=w,
        losses=lost,
        buncos=b,
        minis=m,
        last_bunco=moment if b else None,
        eligible=ok,
        reason="" if ok else "Not present",
    ),
    st.integers(1, 40),
    st.integers(1, 3),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 5),
    st.booleans(),
)


@st.composite
def events(draw):
    totals = draw(st.lists(players, min_size=1, max_size=14, unique_by=lambda t: t.player))
    measures = [
        "most_buncos",
        "most_minis",
        "most_wins",
        "most_losses",
        "even_split",
        "last_bunco",
        "judged",
        "traveling_holder",
    ]
    summed = ("most_buncos", "most_minis", "most_wins", "most_losses", "judged")
    categories = []
    for n in range(draw(st.integers(1, 5))):
        measure = draw(st.sampled_from(measures))
        scopes = ["pod", "overall", "pod_group"] if measure in summed else ["pod", "overall"]
        places = 1 if measure == "traveling_holder" else 3
        categories.append(
            CategoryRule(
                f"c{n}",
                f"Prize {n}",
                measure,
                draw(st.sampled_from(scopes)),
                tuple(draw(st.lists(st.integers(0, 10_001), min_size=1, max_size=places))),
                draw(st.sampled_from(["split", "roll_off"])),
                draw(st.integers(0, 3)),
            )
        )
    pods = sorted({t.pod for t in totals})
    named = {}
    for c in categories:
        if c.measure not in ("judged", "traveling_holder"):
            continue
        groups = pods if c.scope == "pod" else [OVERALL]
        named[c.key] = {}
        for g in groups:
            pool = (
                pods
                if c.scope == "pod_group"
                else [t.player for t in totals if c.scope == "overall" or t.pod == g]
            )
            chosen = draw(st.lists(st.sampled_from(pool), unique=True, max_size=c.places))
            named[c.key][g] = chosen
    return totals, categories, named


@settings(max_examples=150, deadline=None)
@given(events(), st.integers(0, 2**32), st.booleans(), st.randoms(use_true_random=False))
def test_properties_of_any_event(event, seed, one_prize, shuffler):
    totals, categories, named = event
    options = {"named": named, "one_prize_per_player": one_prize}
    result = award_prizes(totals, categories, dice=random.Random(seed), **options)
    by_player = {t.player: t for t in totals}
    # Nobody ineligible is paid, and every payout lines up with its players.
    for award in result.awards:
        assert len(award.players) == len(award.amount_cents_each) >= 1
        assert all(by_player[p].eligible for p in award.players)
    # Each category and group pays exactly its amounts, less the places left unawarded.
    paid = defaultdict(int)
    for award in result.awards:
        paid[award.category_key, award.scope_group] += award.total_cents
    left = defaultdict(int)
    amounts = {c.key: c.amounts_cents for c in categories}
    for gap in result.unawarded:
        left[gap.category_key, gap.scope_group] += amounts[gap.category_key][gap.place - 1]
    pods = sorted({t.pod for t in totals})
    for c in categories:
        for g in pods if c.scope == "pod" else [OVERALL]:
            assert paid[c.key, g] + left[c.key, g] == c.total_cents
            assert paid[c.key, g] <= c.total_cents
    # One prize each: nobody wins two ranked player prizes.
    if one_prize:
        ranked_keys = {
            c.key
            for c in categories
            if c.measure not in ("judged", "traveling_holder") and c.scope != "pod_group"
        }
        ranked = [p for a in result.awards if a.category_key in ranked_keys for p in a.players]
        assert len(ranked) == len(set(ranked))
    # Staff entering the same dice phase by phase get the same awards.
    entered, _ = settle_in_two_phases(totals, categories, random.Random(seed), **options)
    assert award_prizes(totals, categories, dice=entered, **options) == result
    # The order the totals arrive in changes nothing.
    shuffled = list(totals)
    shuffler.shuffle(shuffled)
    assert award_prizes(shuffled, categories, dice=random.Random(seed), **options) == result
