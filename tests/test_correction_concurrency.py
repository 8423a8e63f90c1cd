"""A correction racing the organiser closing the round, on two real PostgreSQL connections.

Two staff correcting the same table from the same version is in test_result_concurrency.py.
Here the other person closes the round: a closed round's result may only be corrected with a
reason, so a correction without one must either be in before the close counts the tables, or
wait and be told the round is closed. `close_round` locks the stage's pods before the round,
the order `record_result` takes them; with the round's lock alone a correction could read
"open", wait on the round at its insert, and land, reasonless, in the closed round.
"""

from functools import partial

import pytest

from scoring.models import TableResult
from scoring.services.results import ResultEntry, record_result
from scoring.services.rounds import close_round, start_next_round
from tests.support.factories import UserFactory, drawn_stage, grant, record_pod
from tests.support.races import at_once
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, Round

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ATTEMPTS = 6  # rounds raced: the interleaving differs run to run


def test_a_correction_racing_the_close_is_in_before_it_or_needs_a_reason(tournament, organiser):
    ann = UserFactory(username="ann-staff")
    grant(tournament, ann, "staff")
    stage = drawn_stage(tournament, organiser, staff=ann)
    pod = stage.pods.get()
    for number in range(1, ATTEMPTS + 1):
        round_ = stage.rounds.get(number=number)
        if number > 1:
            start_next_round(stage, actor=organiser)
        record_pod(pod, round_, ann, [0, 0, 0])
        closed, corrected = at_once(
            partial(close_round, round_, actor=organiser),
            partial(
                record_result,
                round_=round_,
                pod=pod,
                table=1,
                entry=ResultEntry(winner=1),
                actor=ann,
                base_version=1,
            ),
        )
        assert isinstance(closed, Round) and closed.status == Round.Status.CLOSED, closed
        closing = AuditEntry.objects.get(action="round.closed", target_id=str(round_.pk))
        versions = list(
            TableResult.objects.filter(round=round_, pod=pod, table=1).order_by("version")
        )
        if isinstance(corrected, Exception):
            assert isinstance(corrected, UserFacingError), corrected
            assert corrected.message == "Say why a closed round's result is corrected."
            assert [(v.version, v.is_current) for v in versions] == [(1, True)]
        else:
            # Saved: then it was in before the close (the close's entry comes after it).
            assert [(v.version, v.is_current) for v in versions] == [(1, False), (2, True)]
            saved = AuditEntry.objects.get(action="result.corrected", data__round=number)
            assert saved.id < closing.id, "a reasonless correction landed in the closed round"
