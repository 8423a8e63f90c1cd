"""The prize services on real events: verified cards in, awards, roll-offs, cash and a ledger.

Events are played by the rehearsal (the simulator's dice, every card entered and verified)
with its prize table left out, once for the module; each test sets up the prizes it is
about, and what it writes is rolled back after it. The expected
winners are worked out here from the standings and the roll credits, not from the engine.
"""

from __future__ import annotations

import random
from collections import defaultdict
from types import SimpleNamespace

import pytest
from django.db.models import Max

from scoring.models import RollCredit
from scoring.services import cards as card_service
from tests.support.events import miscount, rehearsal_organiser
from tests.support.factories import PrizeCategoryFactory, UserFactory
from tests.support.scenarios import module_scenario, prizeless_event
from tournaments.foundation.errors import UserFacingError
from tournaments.models import (
    AuditEntry,
    Payout,
    PrizeAward,
    RollOff,
    Stage,
    Tournament,
)
from tournaments.presenters.prizes import note_text, passed_text, stored_note_text, unawarded_text
from tournaments.rules.prizes import OVERALL, PlayerTotals, settle_prize_tie, split_cents
from tournaments.services import ledger as ledger_service
from tournaments.services import payouts, prizes, rehearsal_event

pytestmark = pytest.mark.django_db


# --- setting up events ------------------------------------------------------------------------


played = module_scenario(
    lambda monkeypatch: standings_of(Tournament.objects.get(pk=prizeless_event(monkeypatch)))
)


def standings_of(tournament):
    """The qualifying stage's verified standings: read-only, so the module's tests share them."""
    stage = tournament.stages.get(kind=Stage.Kind.QUALIFYING)
    rows = card_service.standings(card_service.load_stage(stage))
    return SimpleNamespace(tournament=tournament.pk, stage=stage.pk, rows=rows)


@pytest.fixture
def event(played):
    """The module's played event (built once, see tests/support/scenarios.py), read fresh;
    what a test writes is rolled back after it."""
    return SimpleNamespace(
        tournament=Tournament.objects.get(pk=played.tournament),
        organiser=rehearsal_organiser(),
        stage=Stage.objects.get(pk=played.stage),
        rows=played.rows,
        pods=sorted({r.pod for r in played.rows}),
    )


def category(tournament, key, measure, scope="overall", amounts=(1000,), tie="split", priority=0):
    return PrizeCategoryFactory(
        tournament=tournament,
        key=key,
        measure=measure,
        scope=scope,
        amounts_cents=list(amounts),
        tie_policy=tie,
        priority=priority,
    )


def best(rows, count):
    """The players with the highest count (above zero) among `rows`, and that count."""
    top = max(getattr(r.card, count) for r in rows)
    if top == 0:
        return set(), 0
    return {r.player.pk for r in rows if getattr(r.card, count) == top}, top


def awards_of(plan, key):
    return [a for a in plan.result.awards if a.category_key == key]


def unverify(event, player_pk):
    miscount(event.stage, player_pk, event.organiser)


def settle_everything(tournament, actor, seed=1):
    """Every pending roll-off rolled on screen, phase by phase."""
    while pending := prizes.plan_prizes(tournament).pending:
        for tie in pending:
            prizes.record_prize_roll_off(tournament, tie.key, actor=actor)
    return prizes.plan_prizes(tournament)


# --- each measure, from the cards ----------------------------------------------------------------


def test_counted_measures_overall_go_to_the_players_with_the_highest_verified_counts(event):
    t = event.tournament
    for n, (key, measure) in enumerate(
        [
            ("buncos", "most_buncos"),
            ("minis", "most_minis"),
            ("wins", "most_wins"),
            ("losses", "most_losses"),
        ]
    ):
        category(t, key, measure, amounts=(3000, 1000), priority=n)
    plan = prizes.plan_prizes(t)
    assert plan.problem == "" and plan.pending == ()
    for key, count in (("buncos", "buncos"), ("minis", "minis"), ("wins", "wins")):
        players, value = best(event.rows, count)
        first = awards_of(plan, key)[0]
        assert first.place == 1 and first.value == value
        assert set(first.players) == players
        if len(players) == 1:
            assert first.amount_cents_each == (3000,)
        else:  # a split tie shares 1st + 2nd, to the cent
            assert sum(first.amount_cents_each) == 4000
            assert first.amount_cents_each == split_cents(4000, len(players))
    losers, most = best(event.rows, "losses")
    assert set(awards_of(plan, "losses")[0].players) == losers
    assert awards_of(plan, "losses")[0].value == most
    # Awarding stores one row per share; the shares add up to what each category pays.
    rows = prizes.award(t, actor=event.organiser)
    assert len(rows) == sum(len(a.players) for a in plan.result.awards)
    for key in ("buncos", "minis", "wins", "losses"):
        paid = sum(a.amount_cents for a in PrizeAward.objects.filter(category__key=key))
        assert paid == 4000


def test_even_split_and_last_bunco_from_the_cards_and_the_credits(event):
    t = event.tournament
    category(t, "even", "even_split", amounts=(1200,))
    category(t, "last", "last_bunco", amounts=(1000,), priority=1)
    plan = prizes.plan_prizes(t)
    even = {r.player.pk for r in event.rows if r.card.wins == r.card.losses > 0}
    (award,) = awards_of(plan, "even")
    assert set(award.players) == even and len(even) > 1
    assert sum(award.amount_cents_each) == 1200  # one place, shared by everyone with 9-9
    # The last bunco: the players of the last save that credited one. The rehearsal's
    # mis-taps carry no tallies, so each bunco is first recorded by its current version.
    credits = RollCredit.objects.filter(
        result__pod__stage=event.stage, result__is_current=True, buncos__gt=0
    )
    latest = credits.aggregate(n=Max("result_id"))["n"]
    expected = set(credits.filter(result_id=latest).values_list("player_id", flat=True))
    (last,) = awards_of(plan, "last")
    assert set(last.players) == expected
    assert last.value is None  # a place in the recording order, not a count to show


def test_traveling_item_goes_to_its_last_holder_and_an_absent_holder_is_not_paid(event):
    t = event.tournament
    category(t, "fuzzy", "traveling_holder", amounts=(2000,))
    plan = prizes.plan_prizes(t)
    (missing,) = plan.result.unawarded
    assert unawarded_text(missing, {}) == "Nobody was named as holding the traveling item"
    first, second = event.rows[0].player, event.rows[5].player
    prizes.pass_traveling_item(t, first, actor=event.organiser)
    prizes.pass_traveling_item(t, second, actor=event.organiser)
    (award,) = prizes.plan_prizes(t).result.awards
    assert award.players == (second.pk,)
    assert note_text(award.note, "traveling_holder", {}) == "Held the traveling item at the end"
    # A player of another tournament cannot hold it.
    other = rehearsal_event.create_event(players=4, preset="classic", seed=9, slug="other-event")[0]
    with pytest.raises(UserFacingError, match="not in this tournament"):
        prizes.pass_traveling_item(t, other.players.first(), actor=event.organiser)
    # The holder's card is reopened: nobody else holds the item, so it stays unawarded.
    unverify(event, second.pk)
    (missing,) = prizes.plan_prizes(t).result.unawarded
    names = {second.pk: second.name}
    assert unawarded_text(missing, names) == f"{second.name} is not eligible: Card not verified"
    assert AuditEntry.objects.filter(action="prizes.traveling").count() == 2


def test_judged_prizes_per_pod_overall_and_for_a_whole_pod(event):
    t = event.tournament
    costume = category(t, "costume", "judged", scope="pod", amounts=(2500,))
    overall = category(t, "hat", "judged", amounts=(1500, 500), priority=1)
    team = category(t, "team", "judged", scope="pod_group", amounts=(1200,), priority=2)
    pod1 = [r.player.pk for r in event.rows if r.pod == 1]
    pod2 = [r.player.pk for r in event.rows if r.pod == 2]
    prizes.nominate(costume, "1", [pod1[0]], actor=event.organiser)
    prizes.nominate(overall, OVERALL, [pod2[0], pod1[1]], actor=event.organiser)
    prizes.nominate(team, OVERALL, [2], actor=event.organiser)
    plan = prizes.plan_prizes(t)
    assert [(a.scope_group, a.players) for a in awards_of(plan, "costume")] == [(1, (pod1[0],))]
    (pod2_costume,) = [u for u in plan.result.unawarded if u.category_key == "costume"]
    assert (pod2_costume.scope_group, unawarded_text(pod2_costume, {})) == (
        2,
        "No winner has been chosen",
    )
    assert [(a.place, a.players) for a in awards_of(plan, "hat")] == [
        (1, (pod2[0],)),
        (2, (pod1[1],)),
    ]
    (team_award,) = awards_of(plan, "team")
    assert team_award.pod == 2 and set(team_award.players) == set(pod2)
    assert sum(team_award.amount_cents_each) == 1200
    # Naming again replaces the pick; a prize ranked from the cards is not named by hand.
    prizes.nominate(costume, "1", [pod1[3]], actor=event.organiser)
    assert awards_of(prizes.plan_prizes(t), "costume")[0].players == (pod1[3],)
    with pytest.raises(UserFacingError, match="Only judged prizes"):
        prizes.nominate(category(t, "b", "most_buncos"), OVERALL, [pod1[0]], actor=None)
    # A pick outside the pod is the engine's refusal, shown as the plan's problem.
    prizes.nominate(costume, "1", [pod2[0]], actor=event.organiser)
    assert f"player {pod2[0]} plays in pod 2" in prizes.plan_prizes(t).problem


# --- pods and groups -----------------------------------------------------------------------------


def test_a_pod_prize_goes_to_the_best_of_each_pod(event):
    t = event.tournament
    category(t, "minis", "most_minis", scope="pod", amounts=(5000,))
    plan = prizes.plan_prizes(t)
    awards = awards_of(plan, "minis")
    assert [a.scope_group for a in awards] == event.pods
    for award in awards:
        players, value = best([r for r in event.rows if r.pod == award.scope_group], "minis")
        assert set(award.players) == players and award.value == value
    prizes.award(t, actor=event.organiser)
    assert set(PrizeAward.objects.values_list("scope_group", flat=True)) == {"1", "2"}


def test_a_pod_group_prize_sums_the_eligible_players_of_each_pod(event):
    t = event.tournament
    category(t, "team", "most_buncos", scope="pod_group", amounts=(10_000,))
    sums = defaultdict(int)
    for r in event.rows:
        sums[r.pod] += r.card.buncos
    winner = max(sums, key=sums.get)
    assert sorted(sums.values())[0] != sorted(sums.values())[1]  # no tie with this seed
    (award,) = awards_of(prizes.plan_prizes(t), "team")
    members = sorted(r.player.pk for r in event.rows if r.pod == winner)
    assert award.pod == winner and award.value == sums[winner]
    assert list(award.players) == members
    assert award.amount_cents_each == split_cents(10_000, 12)
    # A member whose card is reopened neither counts nor shares.
    leaver = next(r for r in event.rows if r.pod == winner and r.card.buncos)
    unverify(event, leaver.player.pk)
    (award,) = awards_of(prizes.plan_prizes(t), "team")
    if award.pod == winner:
        assert leaver.player.pk not in award.players and len(award.players) == 11
        assert award.value == sums[winner] - leaver.card.buncos
    rows = prizes.award(t, actor=event.organiser)
    assert sum(r.amount_cents for r in rows) == 10_000


# --- ties ------------------------------------------------------------------------------------


def test_ties_split_or_rolled_off_with_entered_dice_and_by_the_site(event):
    t = event.tournament
    organiser = event.organiser
    prizes.load_template(t, "mesquite", actor=organiser)
    first = prizes.plan_prizes(t)
    assert first.result is None and first.pending
    tie = first.pending[0]
    assert len(tie.players) >= 2 and tie.key.count(":") == 2
    # Entered dice must decide the roll-off, no more and no fewer.
    with pytest.raises(UserFacingError, match="Ran out of entered dice"):
        prizes.record_prize_roll_off(t, tie.key, actor=organiser, faces=[6])
    too_many = [1] * (len(tie.players) - 1) + [6, 3]
    with pytest.raises(UserFacingError, match="was decided after"):
        prizes.record_prize_roll_off(t, tie.key, actor=organiser, faces=too_many)
    assert not RollOff.objects.filter(kind="prize").exists()
    # The last-listed player throws the only six: they win, and every face is stored.
    faces = [1] * (len(tie.players) - 1) + [6]
    record = prizes.record_prize_roll_off(t, tie.key, actor=organiser, faces=faces)
    assert (record.faces, record.seed, record.recorded_by) == (faces, None, organiser)
    assert record.players == list(tie.players)
    with pytest.raises(UserFacingError, match="not needed"):
        prizes.record_prize_roll_off(t, tie.key, actor=organiser, faces=faces)
    # The rest rolled on screen: each with a seed that replays to the same faces.
    plan = settle_everything(t, organiser)
    for stored in RollOff.objects.filter(kind="prize").exclude(pk=record.pk):
        assert stored.seed is not None
        tie_again = SimpleNamespace(players=tuple(stored.players), places=1)
        replay = settle_prize_tie(tie_again, random.Random(stored.seed))
        assert [f for throw in replay.rounds for f in throw.values()] == stored.faces
    category_key, group, place = tie.key.split(":")
    won = next(
        a
        for a in awards_of(plan, category_key)
        if str(a.scope_group) == group and a.place == int(place)
    )
    assert won.players == (tie.players[-1],) and won.via_roll_off
    assert won.roll_off.rounds == [dict(zip(tie.players, faces, strict=True))]
    assert note_text(won.note, "most_wins", {}).startswith("Won 1st place in a roll-off with")
    # Stored awards keep the roll-off flag; audit entries say who rolled.
    prizes.award(t, actor=organiser)
    assert PrizeAward.objects.filter(via_roll_off=True).count() == len(
        [a for a in plan.result.awards if a.via_roll_off for _ in a.players]
    )
    assert AuditEntry.objects.filter(action="prizes.roll_off").count() == (
        RollOff.objects.filter(kind="prize").count()
    )


def test_a_split_tie_shares_the_places_it_covers(event):
    t = event.tournament
    # Wins are tied at the top of pod 1 with this seed (four players on 11 wins).
    top, value = best([r for r in event.rows if r.pod == 1], "wins")
    assert len(top) == 4
    category(t, "wins", "most_wins", scope="pod", amounts=(4000, 2000, 1001), tie="split")
    (award, *rest) = [a for a in awards_of(prizes.plan_prizes(t), "wins") if a.scope_group == 1]
    assert set(award.players) == top and award.value == value
    assert award.amount_cents_each == split_cents(7001, 4)
    assert note_text(award.note, "most_wins", {}) == (
        "4 tied for 1st share the 1st to 3rd place amounts"
    )
    assert rest == []  # the three places are used up by the tie


def shared_pod_one_wins(t):
    """Pod 1's four players tied on wins were rolled off at the cut: the prize's tie is the
    same tie, so that roll-off settles it and the prize asks for no dice of its own."""
    plan = prizes.plan_prizes(t)
    assert not [x for x in plan.pending if x.scope_group == 1]
    ((key, cut),) = [(k, r) for k, r in plan.shared if k.startswith("wins:1:")]
    assert cut.kind == "cut" and len(cut.players) == 4
    return key, tuple(cut.players)


def test_a_card_corrected_after_a_roll_off_does_not_reuse_its_dice(event):
    """The engine says entered faces belong to the tie they were thrown for; a tie thrown
    again is a new version of the roll-off, and the earlier one stays."""
    t = event.tournament
    category(t, "wins", "most_wins", scope="pod", amounts=(4000,), tie="roll_off")
    key, players = shared_pod_one_wins(t)
    # A tied player's card is reopened: three are tied now, not the cut's tie any more.
    unverify(event, players[0])
    (tie,) = [x for x in prizes.plan_prizes(t).pending if x.scope_group == 1]
    assert tie.key == key and tie.players == players[1:]
    first = prizes.record_prize_roll_off(t, tie.key, actor=event.organiser, faces=[6, 1, 2])
    assert awards_of(prizes.plan_prizes(t), "wins")[0].players == (players[1],)
    # Another is reopened: two are tied now, and their dice are still to throw.
    unverify(event, players[1])
    plan = prizes.plan_prizes(t)
    assert plan.problem == ""
    (again,) = [x for x in plan.pending if x.scope_group == 1]
    assert again.key == key and again.players == players[2:]
    record = prizes.record_prize_roll_off(t, key, actor=event.organiser, faces=[2, 5])
    assert record.players == list(players[2:])
    (won,) = [a for a in awards_of(prizes.plan_prizes(t), "wins") if a.scope_group == 1]
    assert won.players == (players[3],)
    # The first throw is kept, as version 1; the re-throw is version 2 and is the current one.
    kept = RollOff.objects.filter(kind="prize", key=key).order_by("version")
    assert [(r.version, r.players, r.faces) for r in kept] == [
        (1, list(players[1:]), [6, 1, 2]),
        (2, list(players[2:]), [2, 5]),
    ]
    assert list(kept) == [first, record]
    assert RollOff.objects.current().get(key=key) == record


def test_a_card_corrected_so_nobody_is_tied_any_more_leaves_the_dice_unused(event):
    t = event.tournament
    category(t, "wins", "most_wins", scope="pod", amounts=(4000,), tie="roll_off")
    key, players = shared_pod_one_wins(t)
    unverify(event, players[0])
    prizes.record_prize_roll_off(t, key, actor=event.organiser, faces=[1, 6, 2])
    for player in players[2:]:
        unverify(event, player)
    plan = prizes.plan_prizes(t)
    assert plan.problem == "" and plan.pending == ()
    (won,) = [a for a in awards_of(plan, "wins") if a.scope_group == 1]
    assert won.players == (players[1],) and not won.via_roll_off


# --- one prize per player ------------------------------------------------------------------------


def test_one_prize_per_player_moves_the_next_player_up(event):
    t = event.tournament
    category(t, "wins", "most_wins", amounts=(3000,), priority=1)
    category(t, "wins_again", "most_wins", amounts=(2000,), priority=2)
    top, value = best(event.rows, "wins")
    both = prizes.plan_prizes(t)
    assert set(awards_of(both, "wins_again")[0].players) == top  # the same players twice
    Tournament.objects.filter(pk=t.pk).update(one_prize_per_player=True)
    t.refresh_from_db()
    plan = prizes.plan_prizes(t)
    assert set(awards_of(plan, "wins")[0].players) == top
    moved = awards_of(plan, "wins_again")[0]
    rest = [r for r in event.rows if r.player.pk not in top]
    next_best, next_value = best(rest, "wins")
    assert set(moved.players) == next_best and moved.value == next_value < value
    names = dict(t.players.values_list("pk", "name"))
    passed = passed_text(moved.moved_up_because, names)
    assert all(f"{names[p]} already won Wins (the whole event)" in passed for p in top)
    prizes.award(t, actor=event.organiser)
    stored = PrizeAward.objects.filter(category__key="wins_again")
    assert all("already won Wins" in stored_note_text(a.why, "most_wins", names) for a in stored)


def test_one_prize_per_player_with_hand_made_totals(event, monkeypatch):
    """Totals of the event's own players, set by hand so the chain is certain."""
    t = event.tournament
    pks = sorted(r.player.pk for r in event.rows)[:4]
    made = [
        PlayerTotals(pks[0], 1, wins=12, losses=6, buncos=3, minis=9, last_bunco=2),
        PlayerTotals(pks[1], 1, wins=11, losses=7, buncos=3, minis=2, last_bunco=1),
        PlayerTotals(pks[2], 1, wins=9, losses=9, buncos=1, minis=8, last_bunco=3),
        PlayerTotals(pks[3], 1, wins=9, losses=9, minis=8, eligible=False, reason="Not present"),
    ]
    monkeypatch.setattr(prizes, "player_totals", lambda tournament, kind: made)
    Tournament.objects.filter(pk=t.pk).update(one_prize_per_player=True)
    t.refresh_from_db()
    category(t, "buncos", "most_buncos", tie="roll_off", priority=1)
    category(t, "minis", "most_minis", priority=2)
    category(t, "last", "last_bunco", priority=3)
    category(t, "even", "even_split", priority=4)
    # Buncos are tied: the minis prize waits for that roll-off, as it decides who is free.
    plan = prizes.plan_prizes(t)
    assert [x.key for x in plan.pending] == ["buncos:overall:1"]
    prizes.record_prize_roll_off(t, "buncos:overall:1", actor=None, faces=[2, 5])
    plan = prizes.plan_prizes(t)
    assert [(a.category_key, a.players) for a in plan.result.awards] == [
        ("buncos", (pks[1],)),
        ("minis", (pks[0],)),
        ("last", (pks[2],)),
        ("even", ()),
    ][:3]
    (even,) = plan.result.unawarded
    assert unawarded_text(even, {}) == "Everyone left for 1st place already won a prize"
    assert passed_text(awards_of(plan, "minis")[0].moved_up_because, {}) == ""


# --- paying, voiding and the ledger ------------------------------------------------------------


@pytest.fixture
def awarded(event):
    prizes.load_template(event.tournament, "mesquite", actor=event.organiser)
    for cat in event.tournament.prize_categories.filter(measure="judged"):
        groups = [str(p) for p in event.pods] if cat.scope == "pod" else [OVERALL]
        for group in groups:
            if cat.scope == "pod_group":
                winners = [1]
            else:
                winners = [next(r.player.pk for r in event.rows if str(r.pod) == group)]
            prizes.nominate(cat, group, winners, actor=event.organiser)
    settle_everything(event.tournament, event.organiser)
    prizes.award(event.tournament, actor=event.organiser)
    event.awards = list(PrizeAward.objects.filter(tournament=event.tournament))
    event.admin = UserFactory(username="cashier")
    return event


def test_paying_needs_the_winner_here_with_an_id(awarded):
    award = awarded.awards[0]
    for present, id_checked in ((False, True), (True, False), (False, False)):
        with pytest.raises(UserFacingError, match="here in person"):
            payouts.pay(award, actor=awarded.admin, present=present, id_checked=id_checked)
    assert not Payout.objects.exists()


def test_paying_twice_is_refused_with_who_paid_and_when(awarded):
    award = awarded.awards[0]
    payout = payouts.pay(award, actor=awarded.admin, present=True, id_checked=True)
    assert payout.amount_cents == award.amount_cents and payout.paid_by == awarded.admin
    other = UserFactory(username="second-cashier")
    with pytest.raises(UserFacingError) as refused:
        payouts.pay(award, actor=other, present=True, id_checked=True)
    dollars = f"${award.amount_cents / 100:,.2f}"
    assert refused.value.message.startswith(
        f"Already paid: {dollars} to {award.player.name} by cashier at "
    )
    assert Payout.objects.filter(award=award).count() == 1
    entry = AuditEntry.objects.get(action="prizes.paid")
    assert entry.actor == awarded.admin and entry.data["award"] == award.pk


def test_a_void_stays_in_the_ledger_and_the_prize_can_be_paid_again(awarded):
    award = awarded.awards[0]
    payout = payouts.pay(award, actor=awarded.admin, present=True, id_checked=True)
    with pytest.raises(UserFacingError, match="Say why"):
        payouts.void(payout, actor=awarded.admin, reason="   ")
    voided = payouts.void(payout, actor=awarded.admin, reason="Paid the wrong Ann")
    assert voided.voided_by == awarded.admin and voided.void_reason == "Paid the wrong Ann"
    with pytest.raises(UserFacingError, match="already voided"):
        payouts.void(payout, actor=awarded.admin, reason="again")
    books = ledger_service.ledger(awarded.tournament)
    line = next(x for x in books.lines if x.category == award.category)
    assert line.voided_cents == award.amount_cents and line.paid_cents == 0
    assert books.voided_cents == award.amount_cents and books.paid_cents == 0
    # Payable again, and both payments are still there: the void is never deleted.
    again = payouts.pay(award, actor=awarded.admin, present=True, id_checked=True)
    assert list(award.payouts.order_by("pk")) == [payout, again]
    books = ledger_service.ledger(awarded.tournament)
    assert books.paid_cents == award.amount_cents and books.voided_cents == award.amount_cents


def test_the_ledger_adds_up(awarded):
    admin = awarded.admin
    for award in awarded.awards[::2]:
        payouts.pay(award, actor=admin, present=True, id_checked=True)
    payouts.void(Payout.objects.first(), actor=admin, reason="Counted twice")
    books = ledger_service.ledger(awarded.tournament)
    assert books.awarded_cents == sum(x.awarded_cents for x in books.lines)
    assert books.paid_cents == sum(x.paid_cents for x in books.lines)
    assert books.voided_cents == sum(x.voided_cents for x in books.lines)
    assert books.unpaid_cents == sum(x.unpaid_cents for x in books.lines)
    assert books.paid_cents + books.unpaid_cents == books.awarded_cents
    assert books.fees_cents - books.awarded_cents == books.charity_cents
    # Recorded fees, not checked-in players x the fee: two of the 24 were comped.
    assert books.players_paid_entry == 24 and books.book.comped_count == 2
    assert books.fees_cents == (24 - 2) * 20_00
    assert books.awarded_cents == sum(a.amount_cents for a in awarded.awards)
    live = Payout.objects.filter(voided_at__isnull=True)
    assert books.paid_cents == sum(p.amount_cents for p in live)


def test_awards_are_recomputed_until_the_first_payment_then_fixed(awarded):
    t, organiser = awarded.tournament, awarded.organiser
    current = PrizeAward.objects.current()
    before = sorted(current.values_list("category__key", "scope_group", "player_id"))
    again = prizes.award(t, actor=organiser)
    assert len(again) == len(before)
    after = sorted(current.values_list("category__key", "scope_group", "player_id"))
    assert after == before
    payout = payouts.pay(again[0], actor=awarded.admin, present=True, id_checked=True)
    with pytest.raises(UserFacingError, match="can no longer be recomputed"):
        prizes.award(t, actor=organiser)
    payouts.void(payout, actor=awarded.admin, reason="Wrong winner")
    with pytest.raises(UserFacingError, match="can no longer be recomputed"):
        prizes.award(t, actor=organiser)  # a voided payment is still money that moved
    # The first awards are kept beside the second; only the second are in force.
    assert PrizeAward.objects.count() == 2 * len(before)
    assert set(current) == set(again)


def test_awarding_again_after_a_corrected_card_keeps_the_earlier_awards(event):
    """DESIGN.md: "Nothing is deleted by a correction". The first awards stay, superseded;
    the money, the ledger and the pages follow only the awards in force."""
    t = event.tournament
    category(t, "wins", "most_wins", amounts=(1000,))
    first = prizes.award(t, actor=event.organiser)
    winners = {a.player_id for a in first}
    for player in winners:
        unverify(event, player)  # corrected late: no longer eligible
    second = prizes.award(t, actor=event.organiser)
    assert second and winners.isdisjoint(a.player_id for a in second)
    assert PrizeAward.objects.filter(tournament=t).count() == len(first) + len(second)
    assert set(PrizeAward.objects.current()) == set(second)
    for old in PrizeAward.objects.filter(pk__in=[a.pk for a in first]):
        assert old.version == 1 and old.superseded_at is not None
    assert {a.version for a in second} == {2}
    entry = AuditEntry.objects.filter(action="prizes.awarded").latest("pk")
    assert entry.data["version"] == 2 and entry.data["superseded"] == len(first)
    assert f"replacing {len(first)} earlier shares, which are kept" in entry.summary
    # An earlier award cannot be paid; the ledger counts the awards in force once.
    with pytest.raises(UserFacingError, match="no longer on the list"):
        payouts.pay(first[0], actor=event.organiser, present=True, id_checked=True)
    assert not Payout.objects.exists()
    assert ledger_service.ledger(t).awarded_cents == 1000
    payouts.pay(second[0], actor=event.organiser, present=True, id_checked=True)
    assert Payout.objects.get().award == second[0]


def test_award_refuses_while_a_roll_off_is_pending(event):
    prizes.load_template(event.tournament, "mesquite", actor=event.organiser)
    with pytest.raises(UserFacingError, match="needs a roll-off first"):
        prizes.award(event.tournament, actor=event.organiser)
    assert not PrizeAward.objects.exists()


# --- templates and the plan's problems ------------------------------------------------------


def test_loading_a_template_once(event):
    t = event.tournament
    with pytest.raises(UserFacingError, match="no prize template called"):
        prizes.load_template(t, "bingo", actor=event.organiser)
    assert prizes.plan_prizes(t).problem.startswith("No prize categories yet")
    made = prizes.load_template(t, "mesquite", actor=event.organiser)
    assert [c.key for c in made][:3] == ["buncos", "minis", "wins"]
    assert made[0].amounts_cents == [10_000] and made[0].stage_kind == "qualifying"
    with pytest.raises(UserFacingError, match="has prize categories already"):
        prizes.load_template(t, "classic", actor=event.organiser)


def test_no_stage_played_yet(tournament, organiser):
    prizes.load_template(tournament, "classic", actor=organiser)
    assert prizes.plan_prizes(tournament).problem == "No stage has been played yet."


def test_categories_counted_over_different_stages_each_rank_their_own_stage(event):
    """Semi-finalists have cards in both stages; each category reads only its own."""
    t = event.tournament
    category(t, "buncos", "most_buncos", amounts=(1000,))
    semi = category(t, "semi_wins", "most_wins", amounts=(500,), priority=1)
    semi.stage_kind = "semi_final"
    semi.save()
    semi_stage = t.stages.get(kind=Stage.Kind.SEMI_FINAL)
    semi_rows = card_service.standings(card_service.load_stage(semi_stage))
    plan = prizes.plan_prizes(t)
    assert plan.problem == ""
    assert set(awards_of(plan, "buncos")[0].players) == best(event.rows, "buncos")[0]
    assert set(awards_of(plan, "semi_wins")[0].players) == best(semi_rows, "wins")[0]
    assert [a.category_key for a in plan.result.awards][0] == "buncos"  # priority order
    # One prize per player cannot reach across two stages' cards: the plan says so.
    Tournament.objects.filter(pk=t.pk).update(one_prize_per_player=True)
    t.refresh_from_db()
    assert "same stage" in prizes.plan_prizes(t).problem
