"""The advancement services: the cut per pod from verified cards, roll-offs entered or rolled
by the site (every throw stored), saving the qualifiers, the final table's four seats with
replayable seeds, and the grand prize throws.

Events are played through the rehearsal's own steps (the simulator's dice), stopping where a
test needs them (the builders are in tests/support/events.py); the seeds here and TIES_SEED there
were picked with `simulate_stage` for the ties they give.
"""

from __future__ import annotations

import random

import pytest

from scoring.rules import RuleError, roll_order
from scoring.services import cards as card_service
from tests.support.events import (
    TIES_SEED,
    played_qualifying,
    seated_final,
    unverify,
    verified_after_three_rounds,
)
from tournaments.foundation.errors import UserFacingError
from tournaments.models import (
    AuditEntry,
    Draw,
    FinalThrow,
    Qualifier,
    RollOff,
    Stage,
    Tournament,
)
from tournaments.rules.advancement import FinalSeat as EngineSeat
from tournaments.rules.advancement import Standing, final_seats, settle
from tournaments.rules.draws import draw_code
from tournaments.services import advancement, final_table
from tournaments.services.final_table import order_faces
from tournaments.services.rehearsal import (
    rehearse,
    settle_roll_offs,
)

pytestmark = pytest.mark.django_db

# 12 players, seed 3: player 11 has the most wins (13) and the most buncos (4) alone; the
# next in buncos is player 6 alone (2).
TOP_BOTH_SEED = 3


# --- setting up events ------------------------------------------------------------------------


def plan_of(stage, group: str) -> advancement.GroupPlan:
    return next(p for p in advancement.plan_stage(stage) if p.group == group)


# --- the cut and its roll-offs ------------------------------------------------------------------


def test_ties_at_both_cuts_settled_by_entered_and_site_rolled_dice():
    event = played_qualifying(24, TIES_SEED)
    stage, organiser, pk = event.stage, event.organiser, event.pk

    plan = plan_of(stage, "1")
    assert plan.result is None and not plan.blocked
    (tie,) = plan.pending
    assert (tie.category_key, tie.value, tie.players) == ("wins", 12, (pk(12), pk(16)))

    # The first roll-off: staff type the dice thrown at the table, a tie and a re-throw.
    record = advancement.record_roll_off(stage, "1", "wins", actor=organiser, faces=[3, 3, 2, 5])
    assert record.source == RollOff.Source.ENTERED and record.seed is None
    assert record.faces == [3, 3, 2, 5]
    assert record.rounds == [{str(pk(12)): 3, str(pk(16)): 3}, {str(pk(12)): 2, str(pk(16)): 5}]
    assert record.winners == [pk(16)] and record.players == [pk(12), pk(16)]
    assert record.recorded_by == organiser

    # Only then is the buncos tie known (the wins winner is left out of the buncos list).
    (tie,) = plan_of(stage, "1").pending
    assert (tie.category_key, tie.value, tie.players) == ("buncos", 2, (pk(1), pk(14)))
    record = advancement.record_roll_off(stage, "1", "buncos", actor=organiser)
    # Rolled on screen with the draw code the secret gives this roll-off's label.
    code = draw_code(event.tournament.draw_secret, "roll-off:qualifying:1:buncos#1")
    assert record.source == RollOff.Source.SITE and record.seed == code
    replay = settle(tie, random.Random(code))
    assert record.rounds == [
        {str(p): face for p, face in throw.items()} for throw in replay.roll_off.rounds
    ]
    assert record.faces == [face for throw in replay.roll_off.rounds for face in throw.values()]
    assert record.winners == list(replay.winners)

    result = plan_of(stage, "1").result
    assert [(q.player, q.category_key, q.value, q.via_roll_off) for q in result.qualifiers] == [
        (pk(16), "wins", 12, True),
        (record.winners[0], "buncos", 2, True),
    ]
    assert [r.tie.category_key for r in result.roll_offs] == ["wins", "buncos"]
    with pytest.raises(UserFacingError, match="not needed"):
        advancement.record_roll_off(stage, "1", "wins", actor=organiser, faces=[6, 1])
    assert RollOff.objects.filter(stage=stage).count() == 2


@pytest.mark.parametrize(
    "faces, message",
    [
        ([4, 4], "Ran out of entered dice"),
        ([4, 4, 5], "Ran out of entered dice"),
        ([5, 2, 6], "3 dice were entered .* decided after 2"),
        ([7, 2], "1 to 6"),
    ],
)
def test_entered_dice_that_do_not_settle_the_tie_are_refused_and_nothing_is_saved(faces, message):
    event = played_qualifying(24, TIES_SEED)
    with pytest.raises(UserFacingError, match=message):
        advancement.record_roll_off(event.stage, "1", "wins", actor=event.organiser, faces=faces)
    assert not RollOff.objects.exists()
    assert plan_of(event.stage, "1").pending[0].category_key == "wins"


@pytest.mark.parametrize("top_both", ["next_in_line", "empty_seat"])
def test_a_player_topping_both_lists(top_both):
    event = played_qualifying(12, TOP_BOTH_SEED, top_both=top_both)
    pk = event.pk
    result = plan_of(event.stage, "1").result
    assert not result.roll_offs
    seats = [(q.player, q.category_key, q.value) for q in result.qualifiers]
    if top_both == "next_in_line":
        # The buncos seat goes to the next in buncos.
        assert seats == [(pk(11), "wins", 13), (pk(6), "buncos", 2)]
        assert result.empty_seats == ()
    else:
        # They take one seat; the buncos seat stays empty, and says why.
        assert seats == [(pk(11), "wins", 13)]
        (empty,) = result.empty_seats
        assert (empty.category_key, empty.player) == ("buncos", pk(11))
        assert empty.reason == "Already advances for Most wins"


def test_an_unverified_pod_blocks_advancement_with_the_reason():
    event = played_qualifying(24, TIES_SEED)
    stage = event.stage
    cards = card_service.load_stage(stage)
    unverify(stage, cards.in_pod(2)[0], event.organiser)

    plan = plan_of(stage, "2")
    assert plan.result is None and plan.pending == ()
    assert plan.blocked == "Not verified: 11 of 12 cards verified."
    settle_roll_offs(stage, organiser=event.organiser)  # pod 1 can still be settled
    assert plan_of(stage, "1").result is not None
    with pytest.raises(UserFacingError, match="1 group.* not ready. Pod 2: Not verified: 11 of 12"):
        advancement.save_qualifiers(stage, actor=event.organiser)
    assert not Qualifier.objects.exists()


def test_save_qualifiers_refused_until_ready_then_saves_once():
    event = played_qualifying(24, TIES_SEED)
    stage, organiser = event.stage, event.organiser
    with pytest.raises(UserFacingError, match="Pod 1: Most wins needs a roll-off"):
        advancement.save_qualifiers(stage, actor=organiser)
    assert not Qualifier.objects.exists()

    settle_roll_offs(stage, organiser=organiser)
    rows = advancement.save_qualifiers(stage, actor=organiser)
    saved = list(Qualifier.objects.filter(from_stage=stage).order_by("group", "category_key"))
    assert len(rows) == len(saved) == 4
    assert [(q.group, q.category_key) for q in saved] == [
        ("Pod 1", "buncos"),
        ("Pod 1", "wins"),
        ("Pod 2", "buncos"),
        ("Pod 2", "wins"),
    ]
    pod1 = {q.category_key: q for q in saved if q.group == "Pod 1"}
    assert pod1["wins"].via_roll_off and pod1["buncos"].via_roll_off
    assert pod1["wins"].player_id in (event.pk(12), event.pk(16))
    assert all(q.saved_by == organiser for q in saved)

    with pytest.raises(UserFacingError, match="already saved"):
        advancement.save_qualifiers(stage, actor=organiser)
    assert Qualifier.objects.count() == 4


def test_save_refused_while_rounds_are_open():
    r = rehearse(players=12, preset="classic", seed=4, stop_after_round=3)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    with pytest.raises(UserFacingError, match="Every round of the stage must be closed first"):
        advancement.save_qualifiers(stage, actor=r.tournament.created_by)


# --- the final table ----------------------------------------------------------------------------


def test_four_seats_by_their_rules_with_a_seed_that_replays_the_draw():
    event, final = seated_final()
    tournament = event.tournament
    semi = final.semi_stage
    seats = list(final.seats.order_by("seat"))
    assert [s.reason for s in seats] == [
        "Most wins in the semi-final",
        "Most buncos in the semi-final",
        "Drawn from the other semi-finalists",
        "Wild card drawn from all participants",
    ]
    assert final.seed == draw_code(tournament.draw_secret, "final:seats#1")
    semifinalists = set(
        Qualifier.objects.filter(from_stage__kind="qualifying").values_list("player_id", flat=True)
    )
    assert {s.player_id for s in seats[:3]} <= semifinalists
    assert seats[0].pool == [] and seats[1].pool == []
    # Seat 3: drawn from the semi-finalists not already seated, kept as a sorted pool.
    assert seats[2].pool == sorted(semifinalists - {seats[0].player_id, seats[1].player_id})
    assert seats[2].player_id in seats[2].pool
    # Seat 4: everyone present but the three already seated.
    present = final_table.present_participants(tournament)
    assert seats[3].pool == sorted(set(present) - {s.player_id for s in seats[:3]})
    assert seats[3].player_id in seats[3].pool
    for s in seats:
        if s.player_id in semifinalists:
            assert s.path == final_table.path_of(tournament, s.player_id) != ""

    # Replaying the stored seed with the same standings and roll-off dice gives the same table.
    cards = card_service.load_stage(semi)
    standings = advancement.standings_of(cards, sorted(cards.pod_of))
    dice = {r.category_key: list(r.faces) for r in semi.roll_offs.all()}
    replay = final_seats(
        standings,
        advancement.advancement_rules(tournament, semi=True),
        present,
        random.Random(final.seed),
        semi_group_id=advancement.SEMI_GROUP,
        dice=dice,
    )
    assert [(s.seat, s.player, s.reason, list(s.pool)) for s in replay.seats] == [
        (s.seat, s.player_id, s.reason, s.pool) for s in seats
    ]
    with pytest.raises(UserFacingError, match="already seated"):
        final_table.seat_final(tournament, actor=event.organiser)


def test_the_wild_card_is_never_a_player_already_at_the_final_table():
    # Six semi-finalists and only one other participant present: whatever the seed, the
    # wild card is drawn from the players not yet seated.
    standings = [Standing(p, wins=10 - p, buncos=p % 3) for p in range(1, 7)]
    rules = advancement.AdvancementRules()
    for seed in range(300):
        table = final_seats(standings, rules, range(1, 8), random.Random(seed))
        seated = [s.player for s in table.seats[:3]]
        wild = table.seats[3]
        assert isinstance(wild, EngineSeat) and wild.player not in seated
        assert not set(wild.pool) & set(seated)
        assert len(set(table.players)) == 4
    # Everyone present but the three seated is in the pool, and nobody else.
    for seed in range(50):
        table = final_seats(standings[:4], rules, [1, 2, 3, 4, 5], random.Random(seed))
        seated = set(table.players[:3])
        assert table.seats[3].pool == tuple(sorted({1, 2, 3, 4, 5} - seated))
    # Nobody left: refused rather than seating someone twice.
    with pytest.raises(RuleError, match="nobody is left for the wild card"):
        final_seats(standings[:3], rules, [1, 2, 3], random.Random(0))


def test_the_order_roll_and_entered_throws_reach_a_winner_then_throws_are_refused():
    event, final = seated_final()
    organiser = event.organiser
    seat = dict(final.seats.values_list("seat", "player_id"))
    with pytest.raises(UserFacingError, match="Roll for the order of play first"):
        final_table.throw(final, actor=organiser, dice=(1, 2, 3))

    # Seats 1 and 2 tie on the lowest die (3): the order waits, and only they throw again.
    final = final_table.roll_for_order(final, actor=organiser, faces=[3, 3, 5, 6])
    assert final.order == [] and order_faces(final) == [3, 3, 5, 6]
    assert final_table.order_state(final).needed == (seat[1], seat[2])
    # Counted in the dice the organiser typed, not the four recorded before (a walk read "decided
    # after 6 dice, but 7 were entered" having typed three).
    again = "now the 2 players tied on the lowest die throw again, one die each, but"
    with pytest.raises(UserFacingError, match=f"{again} 1 die was entered: type one die for each"):
        final_table.roll_for_order(final, actor=organiser, faces=[4])
    with pytest.raises(UserFacingError, match=f"{again} 3 dice were entered"):
        final_table.roll_for_order(final, actor=organiser, faces=[4, 2, 1])
    with pytest.raises(UserFacingError, match="1 to 6"):
        final_table.roll_for_order(final, actor=organiser, faces=[4, 7])
    with pytest.raises(UserFacingError, match="type the re-throw too"):
        final_table.roll_for_order(final, actor=organiser)  # no on-screen half of a typed roll
    final.refresh_from_db()
    assert order_faces(final) == [3, 3, 5, 6] and final.dice_seed is None
    # Seat 2 throws lower: seat 2 starts and the dice go clockwise, 2, 3, 4, 1.
    final = final_table.roll_for_order(final, actor=organiser, faces=[4, 2])
    assert final.order == [seat[2], seat[3], seat[4], seat[1]]
    assert order_faces(final) == [3, 3, 5, 6, 4, 2]
    assert list(
        AuditEntry.objects.filter(action="final.order")
        .order_by("pk")
        .values_list("summary", flat=True)
    )[-1].startswith("Order of play: ")
    with pytest.raises(UserFacingError, match="already decided"):
        final_table.roll_for_order(final, actor=organiser, faces=[1, 2, 3, 4])

    with pytest.raises(UserFacingError, match="three dice, each 1 to 6"):
        final_table.throw(final, actor=organiser, dice=(1, 7, 2))
    for dice in [(1, 2, 3), (4, 4, 5), (6, 1, 6), (2, 3, 2), (5, 2, 1)]:
        final_table.throw(final, actor=organiser, dice=dice)
    made = final_table.throw(final, actor=organiser, dice=(4, 4, 4))
    final.refresh_from_db()
    assert made.number == 6 and made.player_id == seat[3]  # round the table: 2,3,4,1,2,3
    assert final.winner_id == seat[3] and final.finished_at is not None
    assert [t.player_id for t in final.throws.order_by("number")] == [
        seat[2],
        seat[3],
        seat[4],
        seat[1],
        seat[2],
        seat[3],
    ]
    with pytest.raises(UserFacingError, match="already won"):
        final_table.throw(final, actor=organiser, dice=(1, 1, 1))
    with pytest.raises(UserFacingError, match="already won"):
        final_table.throw(final, actor=organiser)
    assert FinalThrow.objects.filter(final=final).count() == 6


def test_a_tie_for_second_asks_for_no_more_dice():
    """rolling-for-pink line 107: only the lowest die matters; seats 2 and 4 tying on a 5
    throw nothing more, and a spare die typed in is refused without changing anything."""
    event, final = seated_final()
    seat = dict(final.seats.values_list("seat", "player_id"))
    with pytest.raises(UserFacingError, match="decided after 4 dice, but 6 were entered"):
        final_table.roll_for_order(final, actor=event.organiser, faces=[2, 5, 1, 5, 3, 4])
    final.refresh_from_db()
    assert final.order == [] and order_faces(final) == []
    final = final_table.roll_for_order(final, actor=event.organiser, faces=[2, 5, 1, 5])
    assert final.order == [seat[3], seat[4], seat[1], seat[2]]


def test_site_rolled_order_is_the_engine_reading_the_dice_code():
    """On screen, the order roll draws from "code:order" as before and the engine reads it."""
    event, final = seated_final()
    final = final_table.roll_for_order(final, actor=event.organiser)
    players = list(final.seats.order_by("seat").values_list("player_id", flat=True))
    rng = random.Random(f"{final.dice_seed}:order")
    expected = roll_order(players, lambda: rng.randint(1, 6))
    assert final.order == list(expected.order) and order_faces(final) == expected.faces
    start = players.index(final.order[0])
    assert final.order == players[start:] + players[:start]


def test_site_rolled_order_and_throws_replay_from_the_stored_seed():
    event, final = seated_final()
    final = final_table.roll_for_order(final, actor=event.organiser)
    assert final.dice_seed == draw_code(event.tournament.draw_secret, "final:dice#1")
    made = final_table.throw(final, actor=event.organiser)
    rng = random.Random(f"{final.dice_seed}:1")
    assert made.dice == [rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6)]


def test_no_roll_off_before_every_round_is_closed():
    """Cards can agree with the tables (and so be verified) after a few rounds; a roll-off
    recorded then would no longer fit the tie of the finished stage, and a record cannot be
    taken back, so roll-offs wait for the end of the stage."""
    tournament, stage, organiser = verified_after_three_rounds()
    (plan,) = advancement.plan_stage(stage)
    assert not plan.blocked and plan.pending  # verified so far, and tied after three rounds
    tie = plan.pending[0]
    with pytest.raises(UserFacingError, match="once every round of the stage is closed"):
        advancement.record_roll_off(stage, "1", tie.category_key, actor=organiser)
    assert not RollOff.objects.exists()
    assert not Draw.objects.filter(subject__startswith="roll-off").exists()


@pytest.mark.parametrize("top_both", ["next_in_line", "empty_seat"])
def test_the_semi_final_cut_always_fills_the_final_seats(top_both):
    """rolling-for-pink line 102, "There are four spots at the final table": the pods follow
    the organiser's `top_both`, but the semi-final passes a seat to the next in line, and
    the same rules serve the advancement page's plan and the seating."""
    tournament = Tournament(wins_places=2, buncos_places=1, top_both=top_both)
    assert advancement.advancement_rules(tournament).top_both == top_both
    semi = advancement.advancement_rules(tournament, semi=True)
    assert semi.top_both == "next_in_line"
    assert [c.places for c in semi.categories] == [1, 1]
