"""The roll credits the form and the pod page show come with their results in one statement
(`with_credits`): the same credits as stored, by player, with no query of their own, also
when the queryset joins the results' table to itself (the versions a correction superseded)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.models import RollCredit, TableResult
from scoring.presenters.tables import with_credits
from scoring.services.results import Tally
from tests.support.factories import drawn_stage, table_result

pytestmark = pytest.mark.django_db


def stored(result: TableResult) -> list[tuple[int, int, int, int]]:
    return list(
        RollCredit.objects.filter(result=result)
        .order_by("player_id")
        .values_list("player_id", "buncos", "minis", "snake_eyes")
    )


def read(result: TableResult) -> list[tuple[int, int, int, int]]:
    return [(c.player_id, c.buncos, c.minis, c.snake_eyes) for c in result.roll_credits()]


def test_each_result_comes_with_exactly_its_stored_credits(tournament, organiser):
    stage = drawn_stage(tournament, organiser, players=12)
    pod, round_ = stage.pods.get(), stage.rounds.get(number=1)
    table_result(
        pod, round_, organiser, table=1, winner=0, tallies={1: Tally(buncos=1), 3: Tally(minis=12)}
    )
    table_result(pod, round_, organiser, table=2, winner=1)
    first = table_result(
        pod, round_, organiser, table=3, winner=0, tallies={2: Tally(buncos=2, minis=1)}
    ).result
    table_result(pod, round_, organiser, table=3, winner=1, base_version=1)  # credits nobody
    with CaptureQueriesContext(connection) as queries:
        every = with_credits(TableResult.objects.filter(pod=pod).order_by("pk"))
        shown = [read(r) for r in every]
    assert len(queries) == 1
    assert shown == [stored(r) for r in every]
    assert [len(credits) for credits in shown] == [2, 0, 1, 0]
    assert every[0].roll_credits()[0].result is every[0]
    # Joined to itself: Django aliases the second copy, the credits are still the first's.
    corrected = with_credits(TableResult.objects.filter(supersedes__isnull=False, pod=pod))
    assert [(r.supersedes_id, read(r)) for r in corrected] == [(first.pk, [])]
    superseded = with_credits(TableResult.objects.filter(superseded_by__isnull=False, pod=pod))
    assert [(r.pk, read(r)) for r in superseded] == [(first.pk, stored(first))]


def test_a_result_read_without_them_reads_its_credits_itself(tournament, organiser):
    stage = drawn_stage(tournament, organiser, players=12)
    pod, round_ = stage.pods.get(), stage.rounds.get(number=1)
    done = table_result(pod, round_, organiser, winner=0, tallies={4: Tally(buncos=1)}).result
    assert read(TableResult.objects.get(pk=done.pk)) == stored(done)
