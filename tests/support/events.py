"""Builders: an event brought to a given state through the public services and the
rehearsal's public steps (registration, draws, play, cards, advancement, prizes)."""

import random
from dataclasses import replace
from decimal import Decimal
from types import SimpleNamespace

from django.contrib.auth import get_user_model

from scoring.services import cards as card_service
from tests.support.factories import (
    PlayerFactory,
    PrizeAwardFactory,
    PrizeCategoryFactory,
    StaffFactory,
    card_version,
)
from tournaments.models import FinalTable, PrizeCategory, Stage, Tournament
from tournaments.rules.prizes import OVERALL
from tournaments.services import advancement, final_table, prizes, rehearsal
from tournaments.services import stages as stage_service
from tournaments.services.rehearsal import (
    PODS_PER_STAFF,
    derived_seed,
    pod_seeds,
    settle_roll_offs,
    staff_pods,
)
from tournaments.services.rehearsal import play_stage as play_whole_stage
from tournaments.services.rehearsal_event import create_event

# 24 players, seed 2: in pod 1 players 12 and 16 share the most wins (12), and among the
# rest players 1 and 14 share the most buncos (2) whoever wins the first roll-off.
TIES_SEED = 2


def most_wins_per_pod(tournament, key="wins", amounts=(4000,), tie="roll_off") -> PrizeCategory:
    """A "Most wins" prize per pod counted over the qualifying stage."""
    return PrizeCategoryFactory(
        tournament=tournament,
        key=key,
        label="Most wins",
        measure="most_wins",
        scope="pod",
        amounts_cents=list(amounts),
        tie_policy=tie,
    )


def awarded_directly(tournament, players, cents=5000):
    """A "Most Buncos" prize of `cents` for each player (1st, 2nd, ...), stored as the
    awarding service stores it, without playing an event."""
    category = PrizeCategoryFactory(
        tournament=tournament,
        key="buncos",
        label="Most Buncos",
        amounts_cents=[cents] * len(players),
    )
    return [
        PrizeAwardFactory(category=category, place=place, player=player, amount_cents=cents)
        for place, player in enumerate(players, start=1)
    ]


def award_everything(tournament, actor):
    """The mesquite sheet loaded, judges' picks made, roll-offs rolled, prizes awarded."""
    prizes.load_template(tournament, "mesquite", actor=actor)
    totals = [t for t in prizes.player_totals(tournament, "qualifying") if t.eligible]
    for category in tournament.prize_categories.filter(measure="judged"):
        if category.scope == "pod":
            for pod in sorted({t.pod for t in totals}):
                first = next(t.player for t in totals if t.pod == pod)
                prizes.nominate(category, str(pod), [first], actor=actor)
        else:
            prizes.nominate(category, OVERALL, [1], actor=actor)
    while pending := prizes.plan_prizes(tournament).pending:
        for tie in pending:
            prizes.record_prize_roll_off(tournament, tie.key, actor=actor)
    return prizes.award(tournament, actor=actor)


def rehearsal_organiser():
    """The organiser account `rehearse` signs everything with."""
    return get_user_model().objects.get(username="organiser")


def played_without_prizes(monkeypatch, *, players=24, seed=2, preset="mesquite") -> Tournament:
    """A whole event played and verified by the rehearsal, without its prize table, so a
    test can award (or not) the prizes itself."""
    monkeypatch.setattr(rehearsal, "award_and_pay", lambda *args, **kwargs: {})
    return rehearsal.rehearse(players=players, preset=preset, seed=seed).tournament


def staff_accounts(tournament, n_staff: int) -> list:
    """`n_staff` staff accounts of the tournament, named as the rehearsal names its own."""
    return [
        StaffFactory(username=f"{tournament.slug}-staff{i}"[:150], tournament=tournament)
        for i in range(1, n_staff + 1)
    ]


def played_qualifying(players: int, seed: int, *, slug: str | None = None, **settings):
    """Registered, drawn, played and every card verified: ready for the cut, nothing saved."""
    tournament, organiser = create_event(
        players=players, preset="classic", seed=seed, slug=slug or f"adv-{players}-{seed}"
    )
    if settings:
        Tournament.objects.filter(pk=tournament.pk).update(**settings)
        tournament.refresh_from_db()
    stage = stage_service.draw_qualifying(
        tournament, actor=organiser, seed=seed, spread_groups=False
    )
    staff = staff_accounts(tournament, max(1, -(-stage.pods.count() // PODS_PER_STAFF)))
    staff_pods(stage, staff, organiser)
    seeds = {n: random.Random(s) for n, s in enumerate(pod_seeds(players, seed), start=1)}
    play_whole_stage(stage, seeds, organiser=organiser, last=stage.round_count)
    stage.refresh_from_db()
    # Those who play: rehearsals also have a cancelled and a waitlisted registration.
    pks = sorted(tournament.players.filter(status="registered").values_list("pk", flat=True))
    return SimpleNamespace(
        tournament=tournament,
        organiser=organiser,
        stage=stage,
        staff=staff,
        seed=seed,
        pk=lambda n: pks[n - 1],  # the simulator's player n
    )


def semi_played(event) -> Stage:
    """Qualifiers saved (roll-offs on screen), the semi-final drawn, played and verified."""
    settle_roll_offs(event.stage, organiser=event.organiser)
    advancement.save_qualifiers(event.stage, actor=event.organiser)
    semi = advancement.draw_semi_final(event.tournament, actor=event.organiser)
    staff_pods(semi, event.staff, event.organiser)
    seeds = {
        pod.number: random.Random(derived_seed(event.seed, "semi", pod.number))
        for pod in semi.pods.all()
    }
    play_whole_stage(semi, seeds, organiser=event.organiser, last=semi.round_count)
    semi.refresh_from_db()
    return semi


def seated_final(seed: int = 7, players: int = 24) -> tuple[SimpleNamespace, FinalTable]:
    event = played_qualifying(players, seed)
    semi = semi_played(event)
    settle_roll_offs(semi, organiser=event.organiser)
    final = final_table.seat_final(event.tournament, actor=event.organiser)
    return event, final


def verified_after_three_rounds():
    """12 players stopped after round 3 with every card so far verified: the cards agree with
    the tables and tie (seed 4), yet the stage is not over."""
    r = rehearsal.rehearse(players=12, preset="classic", seed=4, stop_after_round=3)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    organiser = r.tournament.created_by
    cards = card_service.load_stage(stage)
    staff = stage.pods.get().staff.order_by("username").first()
    for pid in cards.in_pod(1):
        player = cards.players[pid]
        card_service.enter_card(stage, player, cards.records[pid], actor=staff, base_version=0)
        card_service.confirm_card(stage, player, actor=organiser, version=1)
    return r.tournament, stage, organiser


def miscount(stage, player_pk, actor) -> None:
    """A new version of a verified card that disagrees with the tables: the player is no
    longer eligible until it is resolved, whatever the preset's verification. (A mere
    re-entry would not do: under the Mesquite sheet one staff member's matching entry
    verifies the card at once.)"""
    card_version(stage, player_pk, actor, lambda card: replace(card, buncos=card.buncos + 1))


def unverify(stage, player_pk, actor) -> None:
    """A new, unconfirmed version of a verified card: under a second person's check the card
    is no longer verified until someone else confirms it."""
    card_version(stage, player_pk, actor)


def charging(tournament, fee="20.00"):
    """The tournament with an entry fee, so the desk takes money."""
    tournament.entry_fee = Decimal(fee)
    tournament.save()
    return tournament


def full_with_waitlist(tournament, *names):
    """Four registered players fill the event; each of `names` then waits, in order."""
    from tournaments.services.registration import Registrant, register_party

    tournament.capacity = 4
    tournament.save()
    playing = PlayerFactory.create_batch(4, tournament=tournament)
    waiting = [
        register_party(tournament, [Registrant(n, f"{n.lower()}@example.org")], waitlist_ok=True)[0]
        for n in names
    ]
    return playing, waiting
