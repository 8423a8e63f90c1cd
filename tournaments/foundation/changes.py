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

A change is the whole room's unless its service says it is confined to pods
(`bump(..., pods_only=True)`), having counted the change on each pod it touched
(`Pod.own_changes`, in the statement that locks the pod). Only a result save says so. A pod's
page then knows it is unchanged while `whole_room` (the count at the last change of the whole
room) and its pod's own count are: a save at pod 7 moves every poll's count but leaves pod 3's
page a 304. Any bump not marked, in a transaction, makes the transaction's change the whole
room's, so forgetting to mark one costs only renders, never a stale page.
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

# Tournament id -> whether the transaction changed the whole room (else only pods).
_pending: ContextVar[dict[int, bool] | None] = ContextVar("bunco_changes", default=None)


def _count(tournament_id: int, whole_room: bool) -> None:
    moved = F("count") + 1
    values = {"count": moved, "whole_room": moved} if whole_room else {"count": moved}
    if not ChangeCounter.objects.filter(tournament_id=tournament_id).update(**values):
        # The tournament's first change: its row is made on demand.
        ChangeCounter.objects.get_or_create(tournament_id=tournament_id)
        ChangeCounter.objects.filter(tournament_id=tournament_id).update(**values)


def bump(tournament_id: int, *, pods_only: bool = False) -> None:
    """Counts one change of the tournament: at the end of the outermost `@announces` service
    running, else at once (then it must be the transaction's last statement). `pods_only`:
    the change is confined to pods whose `own_changes` the service counted."""
    pending = _pending.get()
    if pending is None:
        _count(tournament_id, not pods_only)
    else:
        pending[tournament_id] = pending.get(tournament_id, False) or not pods_only


def announces(service: Callable[P, R]) -> Callable[P, R]:
    """`@transaction.atomic` for a service that bumps: the bumps of the outermost one (and of
    every service it calls) run last, just before its transaction ends."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if _pending.get() is not None:  # called by another service: it counts at its end
            with transaction.atomic():
                return service(*args, **kwargs)
        pending: dict[int, bool] = {}
        token = _pending.set(pending)
        try:
            with transaction.atomic():
                result = service(*args, **kwargs)
                for tournament_id, whole_room in sorted(pending.items()):
                    _count(tournament_id, whole_room)
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


def pod_version(pod) -> str:
    """What a pod's page shows changes only with this: the count at the whole room's last
    change and the pod's own changes since. `pod.stage.tournament` should come with its
    `change_counter` (as `pod_for_request` loads it)."""
    try:
        whole_room = pod.stage.tournament.change_counter.whole_room
    except ChangeCounter.DoesNotExist:
        whole_room = 0
    return f"{whole_room}.{pod.own_changes}"


def seen(tournament: Tournament) -> int:
    """The count as loaded with the tournament (`select_related("change_counter")`: no query
    of its own), else read now; 0 before the first change."""
    try:
        return tournament.change_counter.count
    except ChangeCounter.DoesNotExist:
        return 0
