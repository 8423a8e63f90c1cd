"""Drawing, seating, roster changes and results at the service level."""

import pytest

from scoring.models import TableResult
from scoring.rules.seating import next_seating
from scoring.services import rounds
from scoring.services.results import ResultEntry, Tally, current_result, record_result
from scoring.services.seating import tables_from_seats
from tests.support.factories import PlayerFactory, UserFactory, checked_in, grant, record_pod
from tournaments.foundation.errors import UserFacingError
from tournaments.models import RosterChange, Seat
from tournaments.services import stages

pytestmark = pytest.mark.django_db


@pytest.fixture
def stage(tournament, organiser):
    checked_in(tournament, 22)  # 2 pods of 11: one ghost each
    PlayerFactory(tournament=tournament)  # registered, never arrived
    return stages.draw_qualifying(tournament, actor=organiser, seed=12345)


def seats_of(round_):
    return {(s.pod_id, s.table, s.seat): (s.player_id, s.ghost) for s in round_.seats.all()}


def test_draw_seats_checked_in_players_only_and_closes_check_in(stage, tournament):
    first = stage.rounds.get(number=1)
    seated = set(first.seats.exclude(player=None).values_list("player_id", flat=True))
    arrived = set(tournament.players.exclude(checked_in_at=None).values_list("pk", flat=True))
    assert seated == arrived
    assert first.seats.filter(player=None).count() == 2
    tournament.refresh_from_db()
    assert not tournament.check_in_open
    assert stage.rounds.count() == 18 and stage.seed == 12345


def test_draw_is_replayable_from_its_stored_seed(stage):
    assert stages.replay_matches(stage)
    pods, hostesses = stages.draw_with(stage.seed, stage.draw_input)
    assert [p.hostess_id for p in stage.pods.order_by("number")] == hostesses
    assert pods == stages.drawn_tables(stage)
    # A different seed gives a different draw, so the check means something.
    assert stages.draw_with(stage.seed + 1, stage.draw_input)[0] != pods


def ghost_places(stage):
    """(pod, table) of each ghost seat in round 1."""
    first = stage.rounds.get(number=1)
    return sorted(
        first.seats.filter(player=None).values_list("pod__number", "table").order_by("pod__number")
    )


def test_a_new_draw_fills_every_table_but_the_remainder(tournament, organiser):
    """mingle-event-pods-of-12.txt: "pods of 12 people", "4 people ... at each table"; a ghost
    is the "Name given to replace a missing person". 30 players: 8 tables, 2 ghosts."""
    checked_in(tournament, 30)
    stage = stages.draw_qualifying(tournament, actor=organiser, seed=99)
    assert stage.draw_input["algorithm"] == "draw_pods/2"
    assert list(stage.pods.order_by("number").values_list("tables", flat=True)) == [3, 3, 2]
    assert ghost_places(stage) == [(2, 3), (3, 2)]  # lowest tables of the two smaller pods
    assert stages.replay_matches(stage)

    # Late arrivals take the two ghost seats; after that nobody can join.
    first, second, third = PlayerFactory.create_batch(3, tournament=tournament)
    assert stages.seat_late_arrival(stage, first, actor=organiser).number == 2
    assert stages.seat_late_arrival(stage, second, actor=organiser).number == 3
    assert ghost_places(stage) == []
    with pytest.raises(UserFacingError, match="no ghost seat in any pod"):
        stages.seat_late_arrival(stage, third, actor=organiser)
    assert stages.replay_matches(stage)


def test_a_late_arrival_who_leaves_before_round_1_does_not_break_the_replay(
    stage, tournament, organiser
):
    """Two changes on one seat before round 1 (a ghost's seat taken, then given back to a new
    ghost) are both undone to compare round 1 with what the seed draws."""
    late = PlayerFactory(tournament=tournament)
    stages.seat_late_arrival(stage, late, actor=organiser)
    stages.player_leaves(stage, late, actor=organiser)
    drawn = stages.drawn_tables(stage)
    assert drawn == stages.draw_with(stage.seed, stage.draw_input)[0]
    assert stages.replay_matches(stage)


def test_a_draw_stored_as_draw_pods_1_replays_with_the_even_split(
    tournament, organiser, monkeypatch
):
    """Draws made before the plan changed keep replaying exactly: the stored name decides."""
    checked_in(tournament, 30)
    with monkeypatch.context() as patch:
        patch.setattr(stages, "DRAW_ALGORITHM", "draw_pods/1")
        stage = stages.draw_qualifying(tournament, actor=organiser, seed=99)
    assert stage.draw_input["algorithm"] == "draw_pods/1"
    assert list(stage.pods.order_by("number").values_list("tables", flat=True)) == [3, 3, 3]
    assert len(ghost_places(stage)) == 6
    assert stages.replay_matches(stage)
    as_new = {**stage.draw_input, "algorithm": stages.DRAW_ALGORITHM}
    assert [len(pod) for pod in stages.draw_with(stage.seed, as_new)[0]] == [3, 3, 2]


def test_second_draw_refused(stage, tournament, organiser):
    with pytest.raises(UserFacingError, match="already drawn"):
        stages.draw_qualifying(tournament, actor=organiser)


def test_late_arrival_takes_a_ghost_seat_without_moving_anyone(stage, tournament, organiser):
    late = PlayerFactory(tournament=tournament)
    first = stage.rounds.get(number=1)
    before = seats_of(first)
    pod = stages.seat_late_arrival(stage, late, actor=organiser)
    after = seats_of(first)
    changed = {k for k in before if before[k] != after[k]}
    assert len(changed) == 1
    (key,) = changed
    assert before[key][0] is None and after[key] == (late.pk, None)
    assert key[0] == pod.pk
    late.refresh_from_db()
    assert late.checked_in_at is not None
    assert stages.replay_matches(stage)  # the draw itself is still what the seed says


def test_late_arrival_survives_a_corrected_result(stage, tournament, organiser):
    """Joining for round 2 sticks even when round 1's correction reseats round 2."""
    pod = stage.pods.get(number=1)
    round1 = rounds.start_next_round(stage, actor=organiser)
    late = PlayerFactory(tournament=tournament)
    stages.seat_late_arrival(stage, late, actor=organiser, pod=pod)
    record_pod(pod, round1, organiser, [0, 0, 0])
    round2 = stage.rounds.get(number=2)
    assert Seat.objects.filter(round=round2, player=late).exists()
    record_result(
        round_=round1,
        pod=pod,
        table=1,
        entry=ResultEntry(winner=1),
        actor=organiser,
        base_version=1,
    )
    assert Seat.objects.filter(round=round2, player=late).exists()
    assert not Seat.objects.filter(round=round2, pod=pod, ghost__isnull=False).exists()


def test_leaving_player_is_replaced_by_a_ghost(stage, organiser):
    first = stage.rounds.get(number=1)
    seat = first.seats.exclude(player=None).order_by("pod__number", "table", "seat").last()
    partner = first.seats.get(pod=seat.pod, table=seat.table, seat=(seat.seat + 1) % 4 + 1)
    if partner.player_id is None:
        seat = first.seats.exclude(player=None).order_by("pod__number", "table", "seat").first()
    stages.player_leaves(stage, seat.player, actor=organiser)
    seat.refresh_from_db()
    assert seat.player_id is None and seat.ghost is not None
    assert RosterChange.objects.get().kind == "leave"


def test_results_rejected_for_unassigned_staff_round_not_open_and_wrong_points(
    stage, tournament, organiser
):
    pod = stage.pods.get(number=1)
    round1 = stage.rounds.get(number=1)
    staff = UserFactory(username="podstaff")
    grant(tournament, staff, "staff")
    with pytest.raises(UserFacingError, match="not started"):
        record_result(
            round_=round1,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=0),
            actor=organiser,
            base_version=0,
        )
    rounds.start_next_round(stage, actor=organiser)
    with pytest.raises(UserFacingError, match="not assigned"):
        record_result(
            round_=round1,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=0),
            actor=staff,
            base_version=0,
        )
    pod.staff.add(staff)
    with pytest.raises(UserFacingError, match="say seats 2 & 4 won"):
        record_result(
            round_=round1,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=0, points=(10, 21)),
            actor=staff,
            base_version=0,
        )
    with pytest.raises(UserFacingError, match="level"):
        record_result(
            round_=round1,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=0, points=(21, 21)),
            actor=staff,
            base_version=0,
        )
    assert not TableResult.objects.exists()
    record_result(
        round_=round1,
        pod=pod,
        table=1,
        entry=ResultEntry(winner=0, points=(21, 21), tie=True),
        actor=staff,
        base_version=0,
    )
    assert current_result(round1, pod, 1).tie


def test_ghost_seat_cannot_take_credit(stage, organiser):
    round1 = rounds.start_next_round(stage, actor=organiser)
    ghost = round1.seats.filter(player=None).first()
    with pytest.raises(UserFacingError, match="ghost"):
        record_result(
            round_=round1,
            pod=ghost.pod,
            table=ghost.table,
            entry=ResultEntry(winner=0, tallies={ghost.seat: Tally(buncos=1)}),
            actor=organiser,
            base_version=0,
        )


def test_correction_keeps_old_version_and_recomputes_next_seating(stage, organiser):
    pod = stage.pods.get(number=2)
    round1 = rounds.start_next_round(stage, actor=organiser)
    record_pod(pod, round1, organiser, [0, 1, 0])
    round2 = stage.rounds.get(number=2)
    before = tables_from_seats(round2.seats.filter(pod=pod), pod.tables)

    recorded = record_result(
        round_=round1,
        pod=pod,
        table=2,
        entry=ResultEntry(winner=0),
        actor=organiser,
        base_version=1,
    )
    assert recorded.next_round == "seated"
    versions = TableResult.objects.filter(round=round1, pod=pod, table=2).order_by("version")
    assert [(v.version, v.winner, v.is_current) for v in versions] == [(1, 1, False), (2, 0, True)]
    assert versions[1].supersedes == versions[0]

    after = tables_from_seats(round2.seats.filter(pod=pod), pod.tables)
    assert after != before
    round1_tables = tables_from_seats(round1.seats.filter(pod=pod), pod.tables)
    engine_tables = [tuple(p if p > 0 else None for p in t) for t in round1_tables]
    expected = next_seating(engine_tables, [0, 0, 0], stage.rules["movement"])
    assert [tuple(p if p > 0 else None for p in t) for t in after] == expected


def test_stale_version_is_a_conflict_not_an_overwrite(stage, organiser):
    pod = stage.pods.get(number=1)
    round1 = rounds.start_next_round(stage, actor=organiser)
    record_result(
        round_=round1,
        pod=pod,
        table=1,
        entry=ResultEntry(winner=0),
        actor=organiser,
        base_version=0,
    )
    with pytest.raises(UserFacingError, match="while you were entering it"):
        record_result(
            round_=round1,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=1),
            actor=organiser,
            base_version=0,
        )
    assert current_result(round1, pod, 1).winner == 0


def test_correcting_a_played_round_leaves_the_played_seats(stage, organiser):
    round1 = rounds.start_next_round(stage, actor=organiser)
    for pod in stage.pods.all():
        record_pod(pod, round1, organiser, [0] * pod.tables)
    rounds.close_round(round1, actor=organiser)
    rounds.start_next_round(stage, actor=organiser)
    round2 = stage.rounds.get(number=2)
    before = seats_of(round2)
    pod = stage.pods.get(number=1)
    with pytest.raises(UserFacingError, match="Say why"):
        record_result(
            round_=round1,
            pod=pod,
            table=1,
            entry=ResultEntry(winner=1),
            actor=organiser,
            base_version=1,
        )
    recorded = record_result(
        round_=round1,
        pod=pod,
        table=1,
        entry=ResultEntry(winner=1, reason="Card re-checked"),
        actor=organiser,
        base_version=1,
    )
    assert recorded.next_round == "frozen"
    assert seats_of(round2) == before


def test_close_round_lists_pods_still_to_report(stage, organiser):
    round1 = rounds.start_next_round(stage, actor=organiser)
    record_pod(stage.pods.get(number=1), round1, organiser, [0, 0, 0])
    with pytest.raises(UserFacingError, match="pod 2 \\(0/3\\)"):
        rounds.close_round(round1, actor=organiser)
