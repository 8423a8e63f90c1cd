"""Which results carry roll credits, as the form and the pod page read it (`with_credits`):
the flag written as SQL agrees with the credits stored, also when the queryset joins the
results' table to itself (the versions a correction superseded)."""

import pytest

from scoring.models import RollCredit, TableResult
from scoring.presenters.tables import with_credits
from scoring.services.results import Tally
from tests.support.factories import drawn_stage, table_result

pytestmark = pytest.mark.django_db


def test_credited_is_true_exactly_for_results_with_credits(tournament, organiser):
    stage = drawn_stage(tournament, organiser, players=12)
    pod, round_ = stage.pods.get(), stage.rounds.get(number=1)
    table_result(pod, round_, organiser, table=1, winner=0, tallies={1: Tally(buncos=1)})
    table_result(pod, round_, organiser, table=2, winner=1)
    first = table_result(
        pod, round_, organiser, table=3, winner=0, tallies={2: Tally(minis=2)}
    ).result
    table_result(pod, round_, organiser, table=3, winner=1, base_version=1)  # no credits now
    stored = set(RollCredit.objects.values_list("result_id", flat=True))
    every = with_credits(TableResult.objects.filter(pod=pod).order_by("pk"))
    assert (
        [r.credited for r in every]
        == [r.pk in stored for r in every]
        == [
            True,
            False,
            True,
            False,
        ]
    )
    assert [c.minis for c in every[2].credits.all()] == [2]
    # Joined to itself: Django aliases the second copy, the flag still reads the first.
    corrected = with_credits(TableResult.objects.filter(supersedes__isnull=False, pod=pod))
    assert [(r.supersedes_id, r.credited) for r in corrected] == [(first.pk, False)]
    superseded = with_credits(TableResult.objects.filter(superseded_by__isnull=False, pod=pod))
    assert [(r.pk, r.credited) for r in superseded] == [(first.pk, True)]
