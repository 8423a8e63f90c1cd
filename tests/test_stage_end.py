"""Ending a stage early (the hall must close): from the stage page, with a reason, audited."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.services import cards as card_service
from scoring.services import rounds as round_service
from scoring.services.results import ResultEntry, record_result
from tests.support.factories import UserFactory, checked_in, grant
from tests.support.web import text, url
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, Round, Stage
from tournaments.services.rehearsal import rehearse
from tournaments.services.stage_end import end_stage_early
from tournaments.services.stages import draw_qualifying

pytestmark = pytest.mark.django_db

REASON = "The hall closes at ten."


@pytest.fixture
def played():
    """Twelve players, classic rules, 3 sets (18 rounds); rounds 1 to 3 played."""
    r = rehearse(players=12, preset="classic", seed=5, stop_after_round=3)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    return r.tournament, stage


@pytest.fixture
def org(client_for):
    return client_for(get_user_model().objects.get(username="organiser"))


def statuses(stage):
    return list(stage.rounds.order_by("number").values_list("status", flat=True))


def test_end_early_from_the_page_with_a_reason(played, org):
    tournament, stage = played
    assert 'id="end-early"' in org.get(url("stage-control", tournament)).content.decode()
    response = org.post(url("stage-end", tournament), {"reason": f"  {REASON} "}, follow=True)
    page = text(response)
    assert "The qualifying ended early." in page
    assert "ended early after round 3" in page and REASON in page
    assert "Start round" not in page and 'id="end-early"' not in page
    stage.refresh_from_db()
    assert stage.status == Stage.Status.FINISHED
    assert (stage.played_rounds, stage.round_count, stage.ended_early_reason) == (3, 3, REASON)
    # Never deleted: the 15 rounds not played are kept and marked.
    assert statuses(stage) == ["closed"] * 3 + ["not_played"] * 15
    entry = AuditEntry.objects.get(action="stage.ended_early")
    assert entry.actor.username == "organiser" and entry.tournament == tournament
    assert REASON in entry.summary
    assert entry.data == {"played": 3, "not_played": list(range(4, 19)), "reason": REASON}


@pytest.mark.parametrize("reason", ["", "   "])
def test_without_a_reason_nothing_changes(played, org, reason):
    tournament, stage = played
    before = statuses(stage)
    response = org.post(url("stage-end", tournament), {"reason": reason})
    assert response.status_code == 200
    assert "Say why the stage ends early." in text(response)
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PLAYING and not stage.ended_early
    assert statuses(stage) == before
    assert not AuditEntry.objects.filter(action="stage.ended_early").exists()


def test_refused_while_a_round_is_open_and_the_reason_is_kept(played, org):
    tournament, stage = played
    round_service.start_next_round(stage, actor=get_user_model().objects.get(username="organiser"))
    response = org.post(url("stage-end", tournament), {"reason": REASON})
    page = text(response)
    assert "Round 4 is still being played" in page
    assert f">{REASON}</textarea>" in response.content.decode()  # nothing typed is lost
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PLAYING
    assert statuses(stage)[3] == "open" and "not_played" not in statuses(stage)


def test_staff_cannot_end_a_stage(played, client_for):
    tournament, stage = played
    staff = UserFactory()
    grant(tournament, staff, "staff")
    assert client_for(staff).post(url("stage-end", tournament), {"reason": REASON}).status_code == (
        403
    )
    stage.refresh_from_db()
    assert not stage.ended_early


def test_service_refuses_a_finished_stage_and_one_not_started(played, tournament, organiser):
    _, stage = played
    end_stage_early(stage, REASON, actor=None)
    with pytest.raises(UserFacingError, match="already finished"):
        end_stage_early(stage, REASON, actor=None)
    checked_in(tournament, 12)
    fresh = draw_qualifying(tournament, actor=organiser)
    with pytest.raises(UserFacingError, match="No round of the qualifying has been played"):
        end_stage_early(fresh, REASON, actor=organiser)


def test_a_round_not_played_takes_no_results(played):
    _, stage = played
    end_stage_early(stage, REASON, actor=None)
    pod = stage.pods.get()
    staff = pod.staff.first()
    skipped = stage.rounds.get(number=4)
    with pytest.raises(UserFacingError, match="Round 4 was not played"):
        record_result(
            round_=skipped,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=1, points=(21, 3)),
            actor=staff,
            base_version=0,
        )


# --- cards and standings after an early end ----------------------------------------------


def test_cards_and_standings_count_the_rounds_played(played, org):
    tournament, stage = played
    before = card_service.load_stage(stage)
    end_stage_early(stage, REASON, actor=None)
    stage.refresh_from_db()
    cards = card_service.load_stage(stage)
    for player, record in cards.records.items():
        assert len(record.rounds) == 3
        assert record.wins + record.losses == 3
        # The same results as before the end, without the 15 empty rounds.
        assert record.rounds == before.records[player].rounds[:3]
        assert (record.wins, record.buncos) == (
            before.records[player].wins,
            before.records[player].buncos,
        )
    assert not any(card_service.pod_problems(cards).values())

    pod = stage.pods.get()
    first = pod.staff.first()
    player_id = cards.in_pod(1)[0]
    player = cards.players[player_id]
    long_card = before.records[player_id]  # 18 rounds: a card of the stage as drawn
    with pytest.raises(UserFacingError, match="A card of this stage has 3 rounds"):
        card_service.enter_card(stage, player, long_card, actor=first, base_version=0)
    card_service.enter_card(stage, player, cards.records[player_id], actor=first, base_version=0)
    second = UserFactory()
    grant(tournament, second, "staff")
    pod.staff.add(second)
    card_service.confirm_card(stage, player, actor=second, version=1)
    assert card_service.current_state(stage, player).verified

    response = org.get(reverse("standings", args=[tournament.slug]), {"stage": "qualifying"})
    assert response.status_code == 200
    rows = response.context["rows"]
    assert rows and all(r.row.card.wins + r.row.card.losses == 3 for r in rows)
    csv = org.get(reverse("cards-csv", args=[tournament.slug]), {"stage": "qualifying"})
    header = csv.content.decode("utf-8").splitlines()[0]
    assert "round_3_" in header and "round_4_" not in header

    card_page = org.get(reverse("card-detail", args=[tournament.slug, 1, player_id]))
    assert card_page.status_code == 200
    assert Round.objects.filter(stage=stage, status=Round.Status.NOT_PLAYED).count() == 15
