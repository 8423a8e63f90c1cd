"""The bell rung while staff correct the last round, on real PostgreSQL connections.

A correction that changes a table's winner re-seats the pod for the next round while that
round has not started. The organiser starting it at the same moment must not open a round
whose seats then change under the players: the start and the correction take the stage's
locks in one order (tournaments/services/locks.py), so the correction is either in before the
round opens (and the round opens with the corrected seats) or waits and finds the round
being played (stored, but the seats stay: "frozen").

Each bell of a 36-player stage (three pods) is raced against a correction in every pod:
over 20 races, the interleaving differs from one to the next. A late arrival, who takes a
ghost's seat in the round not yet started, is raced against a correction re-seating it.
"""

from functools import partial

import pytest
from django.db import transaction

from scoring.services.results import Recorded, ResultEntry, record_result
from scoring.services.rounds import close_round, start_next_round
from scoring.services.seating import compute_next, tables_from_seats
from tests.support.factories import (
    OrganiserFactory,
    PlayerFactory,
    TournamentFactory,
    drawn_stage,
    record_pod,
)
from tests.support.races import at_once
from tournaments.models import Round, Seat, Tournament
from tournaments.services.stages import seat_late_arrival

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACES = 23  # four sets of six rounds: every bell after the first is raced


def seats_of(round_, pod):
    return tables_from_seats(Seat.objects.filter(round=round_, pod=pod), pod.tables)


def start_and_look(stage, organiser):
    """Starts the round and reads its seats in the same transaction, just before commit:
    the seats the round opened with."""
    with transaction.atomic():
        round_ = start_next_round(stage, actor=organiser)
        return round_, {pod.pk: seats_of(round_, pod) for pod in stage.pods.all()}


# Table 1's first version said seats 1 & 3 won; staff correct it to seats 2 & 4.
correct_table_1 = partial(
    record_result, table=1, entry=ResultEntry(winner=1, reason="Wrong pair ticked"), base_version=1
)


def test_a_correction_racing_the_bell_never_reseats_the_open_round(tournament, organiser):
    Tournament.objects.filter(pk=tournament.pk).update(qualifying_sets=4)
    tournament.refresh_from_db()
    stage = drawn_stage(tournament, organiser, players=36)
    pods = list(stage.pods.order_by("number"))
    assert len(pods) == 3 and stage.round_count == RACES + 1
    frozen = seated = 0
    for number in range(1, RACES + 1):
        played, coming = (stage.rounds.get(number=n) for n in (number, number + 1))
        for pod in pods:
            record_pod(pod, played, organiser, [0, 0, 0])
        close_round(played, actor=organiser)
        before = {pod.pk: seats_of(coming, pod) for pod in pods}

        started, *corrections = at_once(
            partial(start_and_look, stage, organiser),
            *(partial(correct_table_1, round_=played, pod=pod, actor=organiser) for pod in pods),
        )
        assert not isinstance(started, Exception), started
        opened, opened_with = started
        assert opened.pk == coming.pk and opened.status == Round.Status.OPEN
        for pod, recorded in zip(pods, corrections, strict=True):
            assert isinstance(recorded, Recorded), recorded  # stored, never lost
            now = seats_of(coming, pod)
            # Whatever the interleaving, the seats the round opened with are its seats.
            assert now == opened_with[pod.pk], f"race {number}: {pod} re-seated while open"
            if recorded.next_round == "frozen":
                frozen += 1
                assert now == before[pod.pk], f"race {number}: {pod}"
            else:
                seated += 1
                assert recorded.next_round in ("seated", "unchanged"), recorded
                assert now == compute_next(pod, played, coming)
    # Usually both orders happen (a few "frozen" in 69); either way nothing moved.
    assert frozen + seated == RACES * len(pods)


LATE_RACES = 20


def test_a_late_arrival_racing_a_correction_keeps_their_seat(db):
    """The correction re-seats the next round; the late arrival takes a ghost's seat in it.
    Whichever commits first, the other sees it: the late player is seated."""
    for attempt in range(LATE_RACES):
        organiser = OrganiserFactory()
        tournament = TournamentFactory(organiser=organiser)
        stage = drawn_stage(tournament, organiser, players=11)  # one pod, one ghost
        late = PlayerFactory(tournament=tournament, name=f"Late {attempt}")
        pod, played = stage.pods.get(), stage.rounds.get(number=1)
        record_pod(pod, played, organiser, [0, 0, 0])
        coming = stage.rounds.get(number=2)
        joined, recorded = at_once(
            partial(seat_late_arrival, stage, late, actor=organiser),
            partial(correct_table_1, round_=played, pod=pod, actor=organiser),
        )
        assert joined == pod and isinstance(recorded, Recorded), (joined, recorded)
        seats = [token for table in seats_of(coming, pod) for token in table]
        assert late.pk in seats and not any(t < 0 for t in seats), f"race {attempt}: {seats}"
        assert seats_of(coming, pod) == compute_next(pod, played, coming)
