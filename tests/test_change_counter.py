"""The tournament's change counter: every write the room sees counts once, as the last
statement of its transaction (locks.py), and a write rolled back or refused counts nothing."""

import re

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from scoring.models import TableResult
from scoring.services import cards as card_service
from scoring.services import rounds as round_service
from tests.support.events import charging, seated_final
from tests.support.factories import (
    OrganiserFactory,
    PlayerFactory,
    TournamentFactory,
    drawn_stage,
    member,
    record_pod,
    table_result,
)
from tests.support.races import at_once
from tournaments.foundation.errors import UserFacingError
from tournaments.models import ChangeCounter
from tournaments.services import cashbook, checkin, final_table, players, stage_end
from tournaments.services import stages as stage_service
from tournaments.services import tournaments as tournament_service
from tournaments.services.final_undo import void_last_throw

pytestmark = pytest.mark.django_db

# A statement that writes or locks a row: after the counter's update there must be none.
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b|\bFOR (NO KEY )?UPDATE\b|\bFOR SHARE\b", re.I)


def count(tournament) -> int:
    row = ChangeCounter.objects.filter(tournament_id=tournament.pk).first()
    return row.count if row else 0


def counted(tournament, call):
    """Runs `call`, a service's write: the count moves by one, and the counter's update is the
    last row the transaction writes or locks."""
    before = count(tournament)
    with CaptureQueriesContext(connection) as seen:
        result = call()
    assert count(tournament) == before + 1
    writes = [q["sql"] for q in seen.captured_queries if WRITES.search(q["sql"])]
    assert "changecounter" in writes[-1] and writes[-1].lstrip().upper().startswith("UPDATE"), (
        writes[-3:]
    )
    return result


def test_a_tournament_is_made_with_its_counter(organiser):
    made = tournament_service.create_tournament(
        TournamentFactory.build(preset=TournamentFactory().preset), actor=organiser
    )
    assert ChangeCounter.objects.get(tournament=made).count == 0


def test_every_write_of_a_round_counts_once_and_last(tournament, organiser):
    stage = counted(tournament, lambda: drawn_stage(tournament, organiser, 24, start=False))
    staff = member(tournament, "staff", "floor")
    pod = stage.pods.get(number=1)
    pod.staff.add(staff)
    round_ = counted(tournament, lambda: round_service.start_next_round(stage, actor=organiser))
    for table in (1, 2, 3):
        counted(
            tournament, lambda table=table: table_result(pod, round_, staff, table=table, winner=0)
        )
    # The pod's last table seated its round 2 in the same transaction: still counted last.
    assert pod.seats.filter(round__number=2).exists()
    counted(tournament, lambda: table_result(pod, round_, staff, winner=1, base_version=1))
    other = stage.pods.get(number=2)
    record_pod(other, round_, organiser, [0, 0, 0])
    hostess = pod.seats.filter(player__isnull=False).first().player
    counted(tournament, lambda: stage_service.set_hostess(pod, hostess, actor=organiser))
    late = PlayerFactory(tournament=tournament, name="Late Lou")
    leaver = other.seats.filter(round=round_, player__isnull=False).first().player
    counted(tournament, lambda: stage_service.player_leaves(stage, leaver, actor=organiser))
    counted(tournament, lambda: stage_service.seat_late_arrival(stage, late, actor=organiser))
    counted(tournament, lambda: round_service.close_round(round_, actor=organiser))
    counted(tournament, lambda: stage_service.set_hostess(pod, None, actor=organiser))
    counted(
        tournament, lambda: stage_end.end_stage_early(stage, "Hall closes early", actor=organiser)
    )


def test_the_desk_and_the_players_list_count(tournament, organiser):
    charging(tournament)
    ann = PlayerFactory(tournament=tournament, name="Ann")
    counted(tournament, lambda: checkin.check_in(ann, organiser))
    counted(tournament, lambda: checkin.undo_check_in(ann, organiser))
    # The fee checks her in on the same tap: one count for both, after both.
    counted(tournament, lambda: cashbook.pay_fee(ann, method="cash", actor=organiser))
    counted(tournament, lambda: players.withdraw(ann, actor=organiser, reason="ill"))
    counted(tournament, lambda: players.reinstate(ann, actor=organiser))
    counted(
        tournament,
        lambda: tournament_service.set_switch(tournament, "standings", True, actor=organiser),
    )


def test_cards_count(tournament, organiser):
    stage = drawn_stage(tournament, organiser, 12)
    round_ = stage.rounds.get(number=1)
    pod = stage.pods.get()
    record_pod(pod, round_, organiser, [0, 0, 0])
    cards = card_service.load_stage(stage)
    pid = cards.in_pod(1)[0]
    player = cards.players[pid]
    entry = counted(
        tournament,
        lambda: card_service.enter_card(
            stage, player, cards.records[pid], actor=organiser, base_version=0
        ),
    )
    second = member(tournament, "staff", "checker")
    pod.staff.add(second)
    counted(
        tournament,
        lambda: card_service.confirm_card(stage, player, actor=second, version=entry.version),
    )


def test_the_final_table_counts():
    event, final = seated_final()
    tournament, organiser = event.tournament, event.organiser
    final = counted(
        tournament, lambda: final_table.roll_for_order(final, actor=organiser, faces=[1, 2, 3, 4])
    )
    counted(tournament, lambda: final_table.throw(final, actor=organiser, dice=(1, 2, 3)))
    counted(
        tournament, lambda: void_last_throw(final, actor=organiser, number=1, reason="mistyped")
    )


def test_a_write_rolled_back_or_refused_counts_nothing(tournament, organiser):
    stage = drawn_stage(tournament, organiser, 12)
    round_, pod = stage.rounds.get(number=1), stage.pods.get()
    before = count(tournament)

    class Undone(Exception):
        pass

    with pytest.raises(Undone), transaction.atomic():
        table_result(pod, round_, organiser, winner=0)
        raise Undone
    with pytest.raises(UserFacingError):
        table_result(pod, round_, organiser, winner=0, base_version=3)
    with pytest.raises(UserFacingError):
        round_service.start_next_round(stage, actor=organiser)  # round 1 is still open
    assert count(tournament) == before
    assert not TableResult.objects.filter(pod=pod).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_saves_at_once_both_count():
    organiser = OrganiserFactory()
    tournament = TournamentFactory(organiser=organiser)
    stage = drawn_stage(tournament, organiser, 24)
    round_ = stage.rounds.get(number=1)
    before = count(tournament)

    def save(number):
        pod = stage.pods.get(number=number)
        return lambda: table_result(pod, round_, organiser, winner=0)

    outcomes = at_once(save(1), save(2))
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert count(tournament) == before + 2


def whole_room(tournament) -> int:
    return ChangeCounter.objects.get(tournament_id=tournament.pk).whole_room


def test_a_result_save_is_confined_to_its_pod_and_anything_else_is_the_whole_rooms(
    tournament, organiser
):
    """A pod's page is unchanged while the counter's whole_room and the pod's own_changes
    are (`changes.pod_version`): a result save counts on its pod alone; a write not marked
    as confined, alone or in the same transaction as a save, moves whole_room."""
    from tournaments.foundation import changes

    stage = drawn_stage(tournament, organiser, players=24)
    one, two = stage.pods.order_by("number")
    round_ = stage.rounds.get(number=1)
    room = whole_room(tournament)

    counted(tournament, lambda: table_result(one, round_, organiser))
    one.refresh_from_db()
    two.refresh_from_db()
    assert (whole_room(tournament), one.own_changes, two.own_changes) == (room, 1, 0)

    @changes.announces
    def save_and_more():
        table_result(one, round_, organiser, table=2)
        changes.bump(tournament.pk)  # e.g. a name edited in the same transaction

    counted(tournament, save_and_more)
    assert whole_room(tournament) == count(tournament)

    # A refused save counts nothing, on the counter or its pod.
    before = count(tournament)
    with pytest.raises(UserFacingError):
        table_result(one, round_, organiser)  # base version 0 again: a conflict
    one.refresh_from_db()
    assert (count(tournament), one.own_changes) == (before, 2)
