"""The public seat finder and the projector board."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.rules.table import partner_number
from scoring.services.rounds import close_round
from tests.support.factories import PlayerFactory, drawn_stage, record_pod
from tests.test_results_pages import round_of
from tournaments.models import Player, Seat
from tournaments.services import stages as stage_service
from tournaments.services.player_links import player_page_path

pytestmark = pytest.mark.django_db

NAME = "Wilhelmina Featherstonehaugh"


def finder(client, tournament, q):
    return client.get(reverse("seat-finder", args=[tournament.slug]), {"q": q})


def partner_of(seat):
    return Seat.objects.select_related("player").get(
        round=seat.round, pod=seat.pod, table=seat.table, seat=partner_number(seat.seat)
    )


@pytest.fixture
def stage(tournament, organiser):
    return drawn_stage(tournament, organiser, players=24, names=[NAME])


@pytest.fixture
def wilhelmina(stage):
    return Player.objects.get(name=NAME)


def test_finds_a_seat_by_code_with_partner(client, tournament, stage, wilhelmina):
    seat = Seat.objects.select_related("pod").get(round__number=1, player=wilhelmina)
    response = finder(client, tournament, wilhelmina.code.lower())
    assert response.status_code == 200
    body = response.content.decode()
    assert NAME in body
    assert "Round 1 — playing at:" in body
    assert f"Pod {seat.pod.number}, table {seat.table}, seat {seat.seat}" in body
    assert f"Partner: <strong>{partner_of(seat).player.name}</strong>" in body
    assert ("Head table" in body) == (seat.table == 1)


def test_finds_a_seat_by_partial_name_case_insensitively(client, tournament, stage, wilhelmina):
    seat = Seat.objects.select_related("pod").get(round__number=1, player=wilhelmina)
    body = finder(client, tournament, "featherSTONE").content.decode()
    assert NAME in body
    assert f"Pod {seat.pod.number}, table {seat.table}, seat {seat.seat}" in body
    assert partner_of(seat).player.name in body


def test_one_letter_is_not_enough_and_nobody_matches_politely(client, tournament, stage):
    assert "at least 2 letters" in finder(client, tournament, "w").content.decode()
    assert "Nobody registered matches" in finder(client, tournament, "zzqx").content.decode()


def test_htmx_gets_only_the_results(client, tournament, stage, wilhelmina):
    response = client.get(
        reverse("seat-finder", args=[tournament.slug]), {"q": "Feather"}, HTTP_HX_REQUEST="true"
    )
    body = response.content.decode()
    assert NAME in body and "<html" not in body


def test_at_most_ten_matches(client, tournament, stage):
    Player.objects.filter(tournament=tournament).exclude(name=NAME).update(name="Pat Same")
    body = finder(client, tournament, "pat same").content.decode()
    assert body.count('class="match"') == 10
    assert "More than 10 players match" in body


def test_shows_the_next_round_seat_to_walk_to_once_the_pod_has_reported(
    client, tournament, organiser, stage, wilhelmina
):
    pod = Seat.objects.get(round__number=1, player=wilhelmina).pod
    first = round_of(stage, 1)
    record_pod(pod, first, organiser, [1, 0, 1])
    seat = Seat.objects.select_related("pod").get(round__number=2, player=wilhelmina)
    body = finder(client, tournament, wilhelmina.code).content.decode()
    assert f'Round 2 — go to:</div>\n      <div class="go-where">Pod {seat.pod.number}, ' in body
    assert f"Pod {seat.pod.number}, table {seat.table}, seat {seat.seat}" in body
    assert "Round 1 (finished):" in body
    assert partner_of(seat).player.name in body


def test_no_email_phone_or_code_on_public_pages(client, tournament, stage):
    Player.objects.filter(tournament=tournament).update(phone="555-867-5309")
    emails = list(Player.objects.values_list("email", flat=True))
    codes = list(Player.objects.values_list("code", flat=True))
    pages = [
        finder(client, tournament, "a").content.decode(),
        finder(client, tournament, "e").content.decode(),
        finder(client, tournament, "an").content.decode(),
        client.get(reverse("board", args=[tournament.slug])).content.decode(),
        client.get(reverse("board-live", args=[tournament.slug])).content.decode(),
    ]
    for body in pages:
        assert "@" not in body.replace("@media", "")
        assert "555-867-5309" not in body and "8675309" not in body
        assert not any(email in body for email in emails)
    by_name = finder(client, tournament, "an").content.decode()
    assert not any(code in by_name for code in codes)


def test_board_shows_every_pod_and_polls(client, tournament, stage):
    response = client.get(reverse("board", args=[tournament.slug]))
    body = response.content.decode()
    assert "Pod 1" in body and "Pod 2" in body
    assert "Round 1 — playing" in body
    for player in Player.objects.filter(tournament=tournament):
        assert player.name in body
    assert "navbar" not in body  # a projector page, no menus
    live = reverse("board-live", args=[tournament.slug])
    assert f'hx-get="{live}"' in body and 'hx-trigger="room-changed from:body"' in body
    assert 'hx-swap="outerHTML"' in body
    partial = client.get(live).content.decode()
    assert partial.lstrip().startswith('<div id="board-live"') and "Pod 2" in partial


def test_board_moves_pods_to_the_next_round_seats(client, tournament, organiser, stage):
    first = round_of(stage, 1)
    for pod in stage.pods.all():
        record_pod(pod, first, organiser, [0, 1, 1])
    live = reverse("board-live", args=[tournament.slug])
    body = client.get(live).content.decode()
    assert body.count("Round 2 seats") == 2
    close_round(first, actor=organiser)
    body = client.get(live).content.decode()
    assert "Round 1 closed — move to your round 2 seats" in body
    # Pod 1's head table shows round 2's seat 1.
    seat = Seat.objects.select_related("player").get(
        round__number=2, pod__number=1, table=1, seat=1
    )
    assert seat.player.name in body


def test_public_pages_when_nothing_is_drawn(client, tournament):
    assert "not been drawn" in finder(client, tournament, "ann").content.decode()
    assert (
        "once the pods are drawn"
        in client.get(reverse("board", args=[tournament.slug])).content.decode()
    )


# --- query counts -----------------------------------------------------------------------------

FINDER_QUERIES = 7
BOARD_QUERIES = 8
POD_CARD = re.compile(r'<section class="pod( ready)?"')


@pytest.fixture(params=[24, 240])
def big_event(request, tournament, organiser):
    tournament.capacity = 300
    tournament.save()
    stage = drawn_stage(tournament, organiser, players=request.param, names=[NAME])
    # One pod has reported (its next seats exist), the others are still playing.
    pod = stage.pods.get(number=1)
    record_pod(pod, round_of(stage, 1), organiser, [0, 1, 0])
    return stage


def test_seat_finder_runs_a_fixed_number_of_queries(
    client, tournament, big_event, django_assert_max_num_queries
):
    with django_assert_max_num_queries(FINDER_QUERIES):
        body = finder(client, tournament, "an").content.decode()
    assert 'class="match"' in body
    with django_assert_max_num_queries(FINDER_QUERIES):
        assert NAME in finder(client, tournament, "feather").content.decode()


def test_board_runs_a_fixed_number_of_queries(
    client, tournament, big_event, django_assert_max_num_queries
):
    pods = big_event.pods.count()
    with django_assert_max_num_queries(BOARD_QUERIES):
        body = client.get(reverse("board", args=[tournament.slug])).content.decode()
    assert len(POD_CARD.findall(body)) == pods
    with django_assert_max_num_queries(BOARD_QUERIES):
        body = client.get(reverse("board-live", args=[tournament.slug])).content.decode()
    assert len(POD_CARD.findall(body)) == pods and "Round 2 seats" in body


def test_finder_labels_are_plain_text(client, tournament, stage, wilhelmina):
    """The label reads as one sentence for screen readers: "Round 1 — playing at: Pod …"."""
    body = finder(client, tournament, wilhelmina.code).content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))
    assert re.search(r"Round 1 — playing at: Pod \d+, table \d, seat \d", text)


def test_a_late_arrival_without_a_seat_is_sent_to_the_desk(client, tournament, stage):
    PlayerFactory(tournament=tournament, name="Lateefa Late", checked_in_at=timezone.now())
    page = finder(client, tournament, "Lateefa").content.decode()
    assert "No seat in the qualifying yet: ask at the front desk." in page


def test_after_the_cut_a_player_who_did_not_go_on_is_not_sent_to_the_desk(
    client, tournament, organiser, stage, wilhelmina
):
    """Once the semi-final is drawn, most of the room has no seat in it: telling each of them
    to ask at the front desk would queue half the room there."""
    going_on = list(
        tournament.players.exclude(pk=wilhelmina.pk).order_by("pk").values_list("pk", flat=True)
    )[:8]
    stage_service.draw_stage(tournament, going_on, kind="semi_final", sets=1, actor=organiser)
    for page in (
        finder(client, tournament, NAME).content.decode(),
        client.get(player_page_path(wilhelmina, tournament.slug)).content.decode(),
    ):
        assert "Not playing in the semi-final: it seats only the players who went on." in page
        assert "ask at the front desk" not in page
