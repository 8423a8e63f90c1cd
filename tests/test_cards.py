"""Score card verification at the service level: two people, every version kept."""

from collections import Counter
from dataclasses import replace

import pytest
from django.db import IntegrityError, transaction

from scoring.models import CardEntry, RollCredit, TableResult
from scoring.rules import PRESETS
from scoring.rules.cards import Card, Status
from scoring.services import cards as service
from tests.support.factories import UserFactory, flip_table_of, grant
from tournaments.foundation.errors import UserFacingError
from tournaments.models import Stage
from tournaments.rules.simulate import simulate_stage
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    """Twelve players, two rounds recorded; nobody has entered a paper card yet."""
    r = rehearse(players=12, preset="classic", seed=5, stop_after_round=2)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    pod = stage.pods.get()
    (first,) = pod.staff.all()
    second = UserFactory(username="second-checker")
    grant(stage.tournament, second, "staff")
    pod.staff.add(second)
    return stage, pod, first, second


def a_player(stage):
    cards = service.load_stage(stage)
    player_id = cards.in_pod(1)[0]
    return cards.players[player_id], cards.records[player_id]


def test_matching_card_is_verified_only_after_someone_else_confirms(played):
    stage, pod, first, second = played
    player, record = a_player(stage)
    entry = service.enter_card(stage, player, record, actor=first, base_version=0)
    assert service.current_state(stage, player).status == Status.TO_CONFIRM
    with pytest.raises(UserFacingError, match="someone else must confirm"):
        service.confirm_card(stage, player, actor=first, version=entry.version)
    assert not service.current_state(stage, player).verified
    service.confirm_card(stage, player, actor=second, version=entry.version)
    assert service.current_state(stage, player).verified


def test_the_database_refuses_self_confirmation_too(played):
    stage, pod, first, second = played
    player, record = a_player(stage)
    entry = service.enter_card(stage, player, record, actor=first, base_version=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        CardEntry.objects.filter(pk=entry.pk).update(confirmed_by=first)


def test_differing_card_is_flagged_until_resolved_and_every_version_kept(played):
    stage, pod, first, second = played
    player, record = a_player(stage)
    paper = replace(record, buncos=record.buncos + 2)
    entry = service.enter_card(stage, player, paper, actor=first, base_version=0)
    state = service.current_state(stage, player)
    assert state.status == Status.DIFFERS
    assert state.differences == [f"Buncos: card {record.buncos + 2}, tables {record.buncos}"]
    with pytest.raises(UserFacingError, match="resolve the difference first"):
        service.confirm_card(stage, player, actor=second, version=entry.version)
    with pytest.raises(UserFacingError, match="Say why"):
        service.resolve_card(stage, player, choice="card", reason=" ", actor=second, version=1)

    resolved = service.resolve_card(
        stage, player, choice="card", reason="Staff saw both buncos", actor=second, version=1
    )
    assert service.current_state(stage, player).status == Status.TO_CONFIRM
    service.confirm_card(stage, player, actor=first, version=resolved.version)
    state = service.current_state(stage, player)
    assert state.verified and state.official == paper  # the resolution now counts

    versions = list(CardEntry.objects.filter(stage=stage, player=player).order_by("version"))
    assert [(v.version, v.kind, v.is_current) for v in versions] == [
        (1, "paper", False),
        (2, "resolution", True),
    ]
    assert versions[1].supersedes == versions[0] and versions[1].reason == "Staff saw both buncos"
    assert versions[0].buncos == record.buncos + 2  # nothing overwritten


@pytest.mark.parametrize("choice", ["tables", "card"])
def test_a_settled_card_is_flagged_again_when_its_table_is_corrected(played, choice):
    """Found on a walk: a card settled and confirmed stayed verified with its old numbers
    after a table it was settled against was corrected; standings ranked the old wins."""
    stage, pod, first, second = played
    player, record = a_player(stage)
    paper = replace(record, buncos=record.buncos + 1)
    service.enter_card(stage, player, paper, actor=first, base_version=0)
    resolved = service.resolve_card(
        stage, player, choice=choice, reason="Checked the tally", actor=second, version=1
    )
    service.confirm_card(stage, player, actor=first, version=resolved.version)
    assert service.current_state(stage, player).verified
    flip_table_of(stage, player, first)
    state = service.current_state(stage, player)
    assert state.status == Status.DIFFERS and not state.verified
    assert state.differences[0] == "The tables changed after this card was settled"
    assert state.official == service.load_stage(stage).records[player.pk]
    # Settled again against the corrected tables, it is verified once more.
    again = service.resolve_card(
        stage, player, choice="tables", reason="Table corrected", actor=second,
        version=resolved.version,
    )  # fmt: skip
    service.confirm_card(stage, player, actor=first, version=again.version)
    assert service.current_state(stage, player).verified


def test_a_card_cannot_claim_rounds_its_player_has_not_played(played):
    """Found on a walk: a totals-only card of 9 wins after 5 rounds was taken, settled as
    "the card is right" and ranked first. Rounds to come may stay empty; nothing more."""
    stage, pod, first, second = played
    player, record = a_player(stage)
    started = stage.rounds.exclude(status="pending").count()
    assert 0 < started < stage.round_count
    too_many = Card((), wins=started, losses=1)
    with pytest.raises(UserFacingError, match=f"has played {started} rounds so far"):
        service.enter_card(stage, player, too_many, actor=first, base_version=0)
    ahead = list(record.rounds)
    ahead[stage.round_count - 1] = "W"
    marked = replace(record, rounds=tuple(ahead), wins=record.wins + 1)
    with pytest.raises(UserFacingError, match=f"Round {stage.round_count} is marked W"):
        service.enter_card(stage, player, marked, actor=first, base_version=0)
    assert not CardEntry.objects.filter(stage=stage, player=player).exists()
    service.enter_card(stage, player, record, actor=first, base_version=0)  # so far: fine


def test_stale_card_version_is_refused(played):
    stage, pod, first, second = played
    player, record = a_player(stage)
    service.enter_card(stage, player, record, actor=first, base_version=0)
    with pytest.raises(UserFacingError, match="changed this card"):
        service.enter_card(stage, player, record, actor=second, base_version=0)


def test_bad_cards_are_refused_with_a_message(played):
    stage, pod, first, second = played
    player, record = a_player(stage)
    with pytest.raises(UserFacingError, match="totals say"):
        service.enter_card(
            stage, player, replace(record, wins=record.wins + 1), actor=first, base_version=0
        )
    with pytest.raises(UserFacingError, match="no snake eyes"):
        service.enter_card(
            stage, player, Card(wins=1, losses=1, snake_eyes=1), actor=first, base_version=0
        )
    assert not CardEntry.objects.exists()


def test_staff_of_another_pod_cannot_enter(played, tournament, staff_user):
    stage, pod, first, second = played
    player, record = a_player(stage)
    grant(stage.tournament, staff_user, "staff")
    with pytest.raises(UserFacingError, match="not assigned"):
        service.enter_card(stage, player, record, actor=staff_user, base_version=0)


def test_pod_checks_catch_two_winning_pairs_and_a_stranger_credited(played):
    stage, pod, first, second = played
    cards = service.load_stage(stage)
    assert service.pod_problems(cards).get(pod.pk, []) == []
    round1 = stage.rounds.get(number=1)
    table = list(round1.seats.filter(pod=pod, table=1).order_by("seat"))
    # Every paper card at table 1 says round 1 was a win.
    for seat in table:
        record = cards.records[seat.player_id]
        rounds = ("W",) + record.rounds[1:]
        wins = rounds.count("W")
        paper = replace(record, rounds=rounds, wins=wins, losses=rounds.count("L"))
        entry = service.enter_card(stage, seat.player, paper, actor=first, base_version=0)
        if paper != record:
            service.resolve_card(
                stage,
                seat.player,
                choice="card",
                reason="as on paper",
                actor=second,
                version=entry.version,
            )
    # A bunco credited at table 1 to somebody who sat at table 2.
    stranger = round1.seats.get(pod=pod, table=2, seat=1).player
    result = TableResult.objects.get(round=round1, pod=pod, table=1, is_current=True)
    RollCredit.objects.create(result=result, player=stranger, buncos=1)

    problems = service.pod_problems(service.load_stage(stage))[pod.pk]
    assert "Round 1, table 1: two winning pairs" in problems
    assert any(stranger.name in p and "did not sit there" in p for p in problems)
    (report,) = service.verify_pods(service.load_stage(stage), [pod])
    assert not report.verified_pod


def test_pod_is_verified_when_every_card_and_check_is_clean():
    r = rehearse(players=12, preset="classic", seed=8)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    (report,) = service.verify_pods(service.load_stage(stage), list(stage.pods.all()))
    assert report.verified_pod and report.cards == report.verified == 12


def test_standings_equal_the_simulator_for_the_same_seed():
    r = rehearse(players=30, preset="mingle", seed=11)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    rows = service.standings(service.load_stage(stage))
    sim = simulate_stage(30, PRESETS["mingle"], 3, 11)
    # Those who play: rehearsals also have a cancelled and a waitlisted registration.
    pks = sorted(stage.tournament.players.filter(status="registered").values_list("pk", flat=True))
    expected = {
        pks[s.player - 1]: (s.wins, s.losses, s.buncos, s.minis, s.snake_eyes)
        for pod in sim.pods
        for s in pod.standings
    }
    got = {
        row.player.pk: (
            row.card.wins,
            row.card.losses,
            row.card.buncos,
            row.card.minis,
            row.card.snake_eyes,
        )
        for row in rows
    }
    assert got == expected
    assert all(row.status == Status.VERIFIED for row in rows)
    assert Counter(row.pod for row in rows) == {1: 12, 2: 11, 3: 7}  # 8 tables, 2 ghosts


def test_load_stage_runs_a_fixed_number_of_queries(django_assert_max_num_queries):
    r = rehearse(players=40, preset="classic", seed=2, stop_after_round=3)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    with django_assert_max_num_queries(5):
        service.standings(service.load_stage(stage))
