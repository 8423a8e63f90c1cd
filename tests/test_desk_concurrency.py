"""The smaller things two people can do at once on event night, on real PostgreSQL
connections: two desks checking in one player, two organisers ringing the bell or closing
the round, two organisers assigning a pod's staff.

Check-in locks the player and is idempotent; the bell locks the stage and its rounds; the
close locks the pods and the round; staff assignment locks the pod. In each case the second
person waits, then sees what the first did: one change, the other told or shown it.
"""

from functools import partial

import pytest

from scoring.services.rounds import close_round, start_next_round
from tests.support.factories import PlayerFactory, UserFactory, drawn_stage, grant, record_pod
from tests.support.races import at_once, one_wins
from tournaments.models import AuditEntry, Round
from tournaments.services import checkin
from tournaments.services.stages import assign_staff

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def second_organiser(tournament):
    user = UserFactory(username="bob-organiser")
    grant(tournament, user, "organiser")
    return user


def test_two_desks_checking_in_the_same_player_check_them_in_once(tournament, organiser):
    desk = UserFactory(username="desk-two")
    grant(tournament, desk, "organiser")
    for player in PlayerFactory.create_batch(3, tournament=tournament):
        outcomes = at_once(
            partial(checkin.check_in, player, organiser), partial(checkin.check_in, player, desk)
        )
        assert sorted(o.changed for o in outcomes) == [False, True], outcomes
        first = next(o for o in outcomes if o.changed)
        again = next(o for o in outcomes if not o.changed)
        player.refresh_from_db()
        assert player.checked_in_at == first.player.checked_in_at  # the first time is kept
        assert again.message.startswith(f"{player.name} was already checked in at ")
        entries = AuditEntry.objects.filter(action="player.checked_in", target_id=str(player.pk))
        assert entries.count() == 1


def test_two_organisers_ringing_the_bell_open_one_round(tournament, organiser, second_organiser):
    stage = drawn_stage(tournament, organiser, start=False)
    opened, told = one_wins(
        partial(start_next_round, stage, actor=organiser),
        partial(start_next_round, stage, actor=second_organiser),
    )
    assert told == ["A round is still being played; close it first."]
    assert list(stage.rounds.filter(status=Round.Status.OPEN)) == [opened]
    assert opened.number == 1


def test_two_organisers_closing_the_round_close_it_once(tournament, organiser, second_organiser):
    stage = drawn_stage(tournament, organiser, staff=organiser)
    round_ = stage.rounds.get(number=1)
    record_pod(stage.pods.get(), round_, organiser, [0, 1, 0])
    closed, told = one_wins(
        partial(close_round, round_, actor=organiser),
        partial(close_round, round_, actor=second_organiser),
    )
    assert told == ["Round 1 is not being played."]
    round_.refresh_from_db()
    assert round_.status == Round.Status.CLOSED and round_.closed_by == closed.closed_by
    assert AuditEntry.objects.filter(action="round.closed").count() == 1


def test_two_organisers_assigning_staff_at_once_leave_one_of_their_lists(
    tournament, organiser, second_organiser
):
    ann, bea = UserFactory(username="ann-staff"), UserFactory(username="bea-staff")
    for user in (ann, bea):
        grant(tournament, user, "staff")
    pod = drawn_stage(tournament, organiser, start=False).pods.get()
    for _ in range(3):  # a few times: the interleaving differs run to run
        assign_staff(pod, [], actor=organiser)
        outcomes = at_once(
            partial(assign_staff, pod, [ann], actor=organiser),
            partial(assign_staff, pod, [bea], actor=second_organiser),
        )
        assert outcomes == [None, None], outcomes
        staff = sorted(pod.staff.values_list("username", flat=True))
        # Never the union of the two lists: the later save replaced the earlier one whole.
        last = AuditEntry.objects.filter(action="pod.staff").order_by("id").last()
        assert staff in (["ann-staff"], ["bea-staff"]) and staff == last.data["staff"], staff
