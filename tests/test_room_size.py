"""Event-night pages cost the same queries whatever the room's size (24 or 240 players): a
projector's slice of the board, the seat finder, advancement and the prize winners. The
stage page has its own in test_stage_pages.py. bench/pages.py measures their CPU."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.support.events import played_qualifying
from tests.support.factories import OrganiserFactory, TournamentFactory, drawn_stage, record_pod
from tests.support.web import url
from tests.test_results_pages import round_of
from tournaments.services import prizes

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
NAME = "Wilhelmina Featherstonehaugh"


def queries(client, address, **headers) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(address, headers=headers)
    assert response.status_code == 200
    return len(captured), response.content.decode()


def room(tournament, organiser, players):
    tournament.capacity = 300
    tournament.save()
    stage = drawn_stage(tournament, organiser, players=players, names=[NAME])
    record_pod(stage.pods.get(number=1), round_of(stage, 1), organiser, [0, 1, 0])
    return stage


@pytest.mark.parametrize("players", [24, 240])
def test_a_board_slice_reads_only_its_pods(players, client, tournament, organiser):
    room(tournament, organiser, players)
    live = reverse("board-live", args=[tournament.slug]) + "?pods=1-2"
    with CaptureQueriesContext(connection) as captured:
        body = client.get(live, headers=HTMX).content.decode()
    assert len(re.findall(r'<section class="pod( ready)?"', body)) == 2
    assert len(captured) == 7
    seats = [q["sql"] for q in captured if 'FROM "tournaments_seat"' in q["sql"]]
    assert seats and all('"tournaments_pod"."number" BETWEEN 1 AND 2' in sql for sql in seats)


def test_the_board_slice_and_seat_finder_count_the_same_at_24_and_240(client):
    counts = {}
    for players in (24, 240):
        organiser = OrganiserFactory()
        tournament = TournamentFactory(organiser=organiser, slug=f"room-{players}")
        room(tournament, organiser, players)
        board = reverse("board-live", args=[tournament.slug]) + "?pods=1-2"
        finder = reverse("seat-finder", args=[tournament.slug]) + "?q=feather"
        found = queries(client, finder, **HTMX)
        assert NAME in found[1]
        counts[players] = (queries(client, board, **HTMX)[0], found[0])
    assert counts[24] == counts[240], counts


def test_advancement_and_prize_winners_count_the_same_at_24_and_240(client_for):
    counts = {}
    for players in (24, 240):
        event = played_qualifying(players, 7, slug=f"room-size-{players}")
        prizes.load_template(event.tournament, "classic", actor=event.organiser)
        organiser = client_for(event.organiser)
        counts[players] = tuple(
            queries(organiser, url(name, event.tournament))[0]
            for name in ("advancement", "prize-winners")
        )
    assert counts[24] == counts[240], counts
