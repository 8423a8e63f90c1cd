"""Ways to set up an event in a given state, shared by the test modules."""

import threading

from django.db import connection
from django.utils import timezone

from scoring.services.results import ResultEntry, record_result
from tests.factories import PlayerFactory
from tournaments.prizes import OVERALL
from tournaments.services import prizes
from tournaments.services.errors import UserFacingError
from tournaments.services.rounds import start_next_round
from tournaments.services.stages import draw_qualifying


def checked_in(tournament, n, **kwargs):
    return PlayerFactory.create_batch(
        n, tournament=tournament, checked_in_at=timezone.now(), **kwargs
    )


def drawn_stage(tournament, organiser, players=12, *, staff=None, start=True, seed=1, names=()):
    """Checked-in players drawn into pods; `staff` assigned to pod 1; round 1 started."""
    for name in names:
        PlayerFactory(tournament=tournament, name=name, checked_in_at=timezone.now())
    checked_in(tournament, players - len(names))
    stage = draw_qualifying(tournament, actor=organiser, seed=seed)
    if staff is not None:
        stage.pods.get(number=1).staff.add(staff)
    if start:
        start_next_round(stage, actor=organiser)
    return stage


def record_pod(pod, round_, actor, winners):
    """Records every table of a pod with just the winning pairs, as staff tapping would."""
    for table, winner in enumerate(winners, start=1):
        record_result(
            round_=round_,
            pod=pod,
            table=table,
            entry=ResultEntry(winner=winner),
            actor=actor,
            base_version=0,
        )


def at_once(*calls):
    """Runs each call in its own thread (so on its own database connection), released
    together by a barrier so they really race; returns each result or the exception it
    raised, in order."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            outcomes[i] = call()
        except Exception as exc:  # noqa: BLE001 - the caller sorts them out
            outcomes[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive(), "a racing call hung"
    return outcomes


def one_wins(*calls):
    """Races the calls with `at_once`: exactly one succeeds and every other is refused with a
    message for the person (a UserFacingError, never a database error). Returns the winner's
    result and the others' messages."""
    outcomes = at_once(*calls)
    refused = [o for o in outcomes if isinstance(o, Exception)]
    unexpected = [o for o in refused if not isinstance(o, UserFacingError)]
    assert not unexpected, f"not a user-facing refusal: {unexpected!r}"
    done = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(done) == 1, outcomes
    return done[0], [r.message for r in refused]


def award_everything(tournament, actor):
    """The mesquite sheet loaded, judges' picks made, roll-offs rolled, prizes awarded."""
    prizes.load_template(tournament, "mesquite", actor=actor)
    totals = [t for t in prizes.player_totals(tournament, "qualifying") if t.eligible]
    for category in tournament.prize_categories.filter(measure="judged"):
        if category.scope == "pod":
            for pod in sorted({t.pod for t in totals}):
                first = next(t.player for t in totals if t.pod == pod)
                prizes.nominate(category, str(pod), [first], actor=actor)
        else:
            prizes.nominate(category, OVERALL, [1], actor=actor)
    while pending := prizes.plan_prizes(tournament).pending:
        for tie in pending:
            prizes.record_prize_roll_off(tournament, tie.key, actor=actor)
    return prizes.award(tournament, actor=actor)
