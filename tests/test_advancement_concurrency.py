"""Two organisers pressing the same advancement button at once, on real PostgreSQL
connections: the roll-off, saving the qualifiers, drawing the semi-final, seating the final
table, the order roll and a final throw.

Each step locks its parent row (the stage, the tournament, the final table) and re-checks
under the lock, so the second organiser waits, sees what the first did and is told; the
unique constraints behind them would otherwise turn the second into a database error.
Events are played with the advancement builders in tests/support/events.py.
"""

from functools import partial

import pytest

from tests.support.events import TIES_SEED, played_qualifying, semi_played
from tests.support.factories import member
from tests.support.races import one_wins
from tournaments.models import (
    FinalSeat,
    FinalTable,
    FinalThrow,
    Pod,
    Qualifier,
    RollOff,
    Seat,
    Stage,
)
from tournaments.services import advancement, final_table
from tournaments.services.rehearsal import settle_roll_offs

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def co_organiser(tournament):
    return member(tournament, "organiser", "bob-organiser")


def test_the_cut_raced_step_by_step():
    event = played_qualifying(24, TIES_SEED, slug="race-the-cut")
    stage, ann, bob = event.stage, event.organiser, co_organiser(event.tournament)

    # Both type in the dice of pod 1's roll-off for most wins.
    record, told = one_wins(
        partial(advancement.record_roll_off, stage, "1", "wins", actor=ann, faces=[3, 3, 2, 5]),
        partial(advancement.record_roll_off, stage, "1", "wins", actor=bob, faces=[6, 1]),
    )
    assert told == ["That roll-off is not needed (or is already recorded)."]
    assert list(RollOff.objects.filter(stage=stage)) == [record]

    settle_roll_offs(stage, organiser=ann)
    rows, told = one_wins(
        partial(advancement.save_qualifiers, stage, actor=ann),
        partial(advancement.save_qualifiers, stage, actor=bob),
    )
    assert told == ["The qualifiers of this stage are already saved."]
    assert sorted(Qualifier.objects.values_list("pk", flat=True)) == sorted(r.pk for r in rows)

    semi, told = one_wins(
        partial(advancement.draw_semi_final, event.tournament, actor=ann),
        partial(advancement.draw_semi_final, event.tournament, actor=bob),
    )
    assert told == ["The semi-final pods are already drawn."]
    assert list(Stage.objects.filter(kind=Stage.Kind.SEMI_FINAL)) == [semi]
    assert Pod.objects.filter(stage__kind=Stage.Kind.SEMI_FINAL).count() == semi.pods.count()
    tables = sum(semi.pods.values_list("tables", flat=True))
    assert Seat.objects.filter(round__stage=semi).count() == 4 * tables  # round 1 only
    assert Seat.objects.filter(round__stage=semi, player__isnull=False).count() == len(rows)


def test_the_final_table_raced_step_by_step():
    event = played_qualifying(24, 7, slug="race-the-final")
    semi = semi_played(event)
    settle_roll_offs(semi, organiser=event.organiser)
    ann, bob = event.organiser, co_organiser(event.tournament)

    final, told = one_wins(
        partial(final_table.seat_final, event.tournament, actor=ann),
        partial(final_table.seat_final, event.tournament, actor=bob),
    )
    assert told == ["The final table is already seated."]
    assert list(FinalTable.objects.all()) == [final]
    assert FinalSeat.objects.count() == 4

    ordered, told = one_wins(
        partial(final_table.roll_for_order, final, actor=ann, faces=[1, 2, 3, 4]),
        partial(final_table.roll_for_order, final, actor=bob, faces=[4, 3, 2, 1]),
    )
    assert told == ["The order of play is already decided."]
    final.refresh_from_db()
    assert final.order == ordered.order and len(final.order) == 4

    # Both phones record the first finalist's throw: it is stored once, not also as the
    # second finalist's.
    made, told = one_wins(
        partial(final_table.throw, final, actor=ann, dice=(1, 2, 3), number=1),
        partial(final_table.throw, final, actor=bob, dice=(1, 2, 4), number=1),
    )
    assert told == ["Throw 1 is already recorded; the next is throw 2."]
    assert list(FinalThrow.objects.all()) == [made]
    assert (made.number, made.player_id) == (1, final.order[0])
