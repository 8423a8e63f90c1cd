"""Calls raced against each other, each on its own database connection."""

import threading

from django.db import connection

from tournaments.foundation.errors import UserFacingError


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
