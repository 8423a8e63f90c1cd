"""The tournament's change counter: one number that moves whenever what the room sees moves.

Every service that changes the board, the seat finder, round progress or a pod's next seats
calls `bump` in its own transaction, so the count and the change commit together (a rolled
back save moves nothing). Pages then answer a poll by comparing counts (tournaments/
http_cache.py) instead of reading the room again.

The counter's row lock comes last of all (locks.py): it is held until the commit, so a
transaction holding it must wait for nothing else, or two saves could each hold what the
other waits for. So a service that bumps wears `@announces` instead of
`@transaction.atomic`: its bumps, and those of any service it calls, are counted as its
transaction's last statement, however early in the body `bump` was called. The update is
`count + 1` in the database, never a count read and written back, so two saves both count.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from django.core.cache import cache
from django.db import transaction
from django.db.models import F

from ..models import ChangeCounter, Tournament

P = ParamSpec("P")
R = TypeVar("R")

_pending: ContextVar[set[int] | None] = ContextVar("bunco_changes", default=None)


def _count(tournament_id: int) -> None:
    moved = ChangeCounter.objects.filter(tournament_id=tournament_id).update(count=F("count") + 1)
    if not moved:  # the tournament's first change: its row is made on demand
        ChangeCounter.objects.get_or_create(tournament_id=tournament_id)
        ChangeCounter.objects.filter(tournament_id=tournament_id).update(count=F("count") + 1)


def bump(tournament_id: int) -> None:
    """Counts one change of the tournament: at the end of the outermost `@announces` service
    running, else at once (then it must be the transaction's last statement)."""
    pending = _pending.get()
    if pending is None:
        _count(tournament_id)
    else:
        pending.add(tournament_id)


def announces(service: Callable[P, R]) -> Callable[P, R]:
    """`@transaction.atomic` for a service that bumps: the bumps of the outermost one (and of
    every service it calls) run last, just before its transaction ends."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if _pending.get() is not None:  # called by another service: it counts at its end
            with transaction.atomic():
                return service(*args, **kwargs)
        pending: set[int] = set()
        token = _pending.set(pending)
        try:
            with transaction.atomic():
                result = service(*args, **kwargs)
                for tournament_id in sorted(pending):
                    _count(tournament_id)
        finally:
            _pending.reset(token)
        return result

    return run


def count_now(tournament_id: int) -> int:
    """The count read from the database now; 0 before the first change."""
    count = (
        ChangeCounter.objects.filter(tournament_id=tournament_id)
        .values_list("count", flat=True)
        .first()
    )
    return count or 0


def remembered(tournament_id: int, key: str, compute: Callable[[], R], seconds: int = 600) -> R:
    """`compute()`, kept in the cache until the tournament's count moves: for what a page
    reads of the room (a stage's cards, the buncos recorded) and an organiser opens again and
    again between saves. `key` names the value and whatever else it depends on. Inside a
    transaction it is always computed: that is a write deciding something, and it must read
    the database, not what a page read before the write's lock."""
    if transaction.get_connection().in_atomic_block:
        return compute()
    full_key = f"room:{tournament_id}:{count_now(tournament_id)}:{key}"
    value = cache.get(full_key)
    if value is None:
        value = compute()
        cache.set(full_key, value, seconds)
    return value


def seen(tournament: Tournament) -> int:
    """The count as loaded with the tournament (`select_related("change_counter")`: no query
    of its own), else read now; 0 before the first change."""
    try:
        return tournament.change_counter.count
    except ChangeCounter.DoesNotExist:
        return 0
