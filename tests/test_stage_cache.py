"""What a page reads of the room (a whole stage's cards, the buncos recorded) comes from the
cache until the room changes: the change counter is the key, so a save anywhere in the
tournament reads the stage again. A read inside a transaction (a write deciding a cut or a
prize) always goes to the database."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from scoring.services.cards import load_stage
from tests.support.factories import drawn_stage, record_pod
from tournaments.foundation import changes

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def local_cache(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def reads(stage):
    with CaptureQueriesContext(connection) as queries:
        cards = load_stage(stage)
    return cards, len(queries.captured_queries)


def test_a_page_reads_the_stage_once_per_change_of_the_room(local_cache, tournament, organiser):
    stage = drawn_stage(tournament, organiser, players=12)
    first, counted = reads(stage)
    assert counted > 1 and first.records and all(r is None for r in first.records.values())
    again, counted = reads(stage)
    assert counted == 1  # the counter alone
    assert again.stage is stage and again.states == first.states

    pod, round_1 = stage.pods.get(), stage.rounds.get(number=1)
    record_pod(pod, round_1, organiser, [0])  # table 1 saved: the counter moves
    fresh, counted = reads(stage)
    assert counted > 1
    assert any(record is not None for record in fresh.records.values())


def test_a_write_reads_the_database_even_when_the_stage_is_cached(
    local_cache, tournament, organiser
):
    stage = drawn_stage(tournament, organiser, players=12)
    reads(stage)
    with transaction.atomic():
        _, counted = reads(stage)
    assert counted > 1


def test_any_change_counted_in_the_tournament_reads_the_stage_again(
    local_cache, tournament, organiser
):
    """The counter is the contract: every service that writes a seat, result, credit, card or
    player bumps it in its transaction, and nothing else is needed to refresh the cache."""
    stage = drawn_stage(tournament, organiser, players=12)
    reads(stage)
    changes.bump(tournament.pk)
    _, counted = reads(stage)
    assert counted > 1


def test_the_buncos_of_the_night_are_read_once_per_change_of_the_room(
    local_cache, tournament, organiser
):
    from tournaments.services.last_bunco import recorded_buncos

    stage = drawn_stage(tournament, organiser, players=12)
    with CaptureQueriesContext(connection) as first:
        assert recorded_buncos(stage) == ()
    with CaptureQueriesContext(connection) as again:
        assert recorded_buncos(stage) == ()
    assert len(first.captured_queries) > 1 and len(again.captured_queries) == 1
    changes.bump(tournament.pk)
    with CaptureQueriesContext(connection) as after:
        recorded_buncos(stage)
    assert len(after.captured_queries) > 1
