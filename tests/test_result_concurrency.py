"""Two staff saving the same table at the same moment, on two real PostgreSQL connections.

Each thread gets its own connection from Django; a barrier releases both just before
`record_result`, so they really race. The pod row lock (`select_for_update`) must make the
second wait for the first and then see its version: one save wins, the other is told.
"""

from functools import partial

import pytest

from scoring.models import TableResult
from scoring.services.results import ResultConflict, ResultEntry, record_result
from tests.support.factories import UserFactory, drawn_stage, grant
from tests.support.races import at_once
from tournaments.foundation.errors import UserFacingError

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(round_, pod, table, attempts):
    """Each (actor, entry, base_version) saved from its own connection, all at once."""
    return at_once(
        *(
            partial(
                record_result,
                round_=round_,
                pod=pod,
                table=table,
                entry=entry,
                actor=actor,
                base_version=base_version,
            )
            for actor, entry, base_version in attempts
        )
    )


@pytest.fixture
def setup(tournament, organiser):
    first, second = UserFactory(username="ann-staff"), UserFactory(username="bea-staff")
    for user in (first, second):
        grant(tournament, user, "staff")
    stage = drawn_stage(tournament, organiser)
    pod = stage.pods.get()
    pod.staff.add(first, second)
    return stage.rounds.get(number=1), pod, first, second


def split(outcomes):
    saved = [o for o in outcomes if not isinstance(o, Exception)]
    refused = [o for o in outcomes if isinstance(o, Exception)]
    unexpected = [o for o in refused if not isinstance(o, UserFacingError)]
    assert not unexpected, f"not a user-facing refusal: {unexpected!r}"
    return saved, refused


def test_two_first_entries_at_once_one_wins_the_other_is_told(setup):
    round_, pod, ann, bea = setup
    for attempt in range(3):  # a few times: the interleaving differs run to run
        table = attempt + 1
        outcomes = race(
            round_,
            pod,
            table,
            [(ann, ResultEntry(winner=0), 0), (bea, ResultEntry(winner=1), 0)],
        )
        saved, refused = split(outcomes)
        assert len(saved) == 1 and len(refused) == 1
        results = list(TableResult.objects.filter(round=round_, pod=pod, table=table))
        assert [(r.version, r.is_current) for r in results] == [(1, True)]
        assert results[0].pk == saved[0].result.pk
        # The lock made the loser wait and then see the winner's version: a conflict it is
        # shown, not a bare database error.
        assert isinstance(refused[0], ResultConflict)
        assert refused[0].current.pk == results[0].pk


def test_two_corrections_of_the_same_version_make_exactly_one_version_2(setup):
    round_, pod, ann, bea = setup
    record_result(
        round_=round_, pod=pod, table=2, entry=ResultEntry(winner=0), actor=ann, base_version=0
    )
    outcomes = race(
        round_,
        pod,
        2,
        [
            (ann, ResultEntry(winner=1, points=(10, 30)), 1),
            (bea, ResultEntry(winner=1, points=(12, 44)), 1),
        ],
    )
    saved, refused = split(outcomes)
    assert len(saved) == 1 and len(refused) == 1
    versions = list(TableResult.objects.filter(round=round_, pod=pod, table=2).order_by("version"))
    assert [(r.version, r.is_current) for r in versions] == [(1, False), (2, True)]
    assert versions[1].pk == saved[0].result.pk
    assert isinstance(refused[0], ResultConflict)
    assert refused[0].current.pk == versions[1].pk  # the loser sees the winner's version 2
