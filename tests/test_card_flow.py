"""After a card is saved staff go on to the next card to enter; a card resolved as "the
tables are right" tells its confirmer what to check: the resolution and its reason."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring.services import cards as card_service
from tests.test_card_pages import card_url, enter_data, event, text  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def test_saving_a_card_opens_the_next_card_to_enter(event, client_for):  # noqa: F811
    anna = client_for(event.anna)
    first, second = event.player(0), event.player(1)
    response = anna.post(card_url(event.tournament, 1, first), enter_data(event.record(first)))
    assert response.status_code == 302
    assert response.url == card_url(event.tournament, 1, second)
    page = text(anna.get(response.url))
    assert f"Next: {second.name}'s card." in page
    # The last one entered goes round to a card still to enter (the first is done).
    cards = card_service.load_stage(event.stage)
    members = cards.in_pod(1)
    last = cards.players[members[-1]]
    response = anna.post(card_url(event.tournament, 1, last), enter_data(event.record(last)))
    assert response.url == card_url(event.tournament, 1, second)


def test_a_resolution_for_the_tables_tells_the_confirmer_what_to_check(event, client_for):  # noqa: F811
    player = event.player(0)
    record = event.record(player)
    miscounted = replace(record, buncos=record.buncos + 2)
    card_service.enter_card(event.stage, player, miscounted, actor=event.anna, base_version=0)
    card_service.resolve_card(
        event.stage,
        player,
        choice="tables",
        reason="two buncos were counted twice on the paper",
        actor=event.anna,
        version=1,
    )
    page = client_for(event.bert).get(card_url(event.tournament, 1, player)).content.decode()
    assert 'id="confirm-resolution"' in page
    assert "<strong>the table record is right</strong>, not the paper card" in page
    assert "two buncos were counted twice on the paper" in page
    assert "The reason holds — confirm" in page
    assert "Hold the paper card next to the numbers above" not in page
