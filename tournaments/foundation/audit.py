"""The one way anything writes to the audit log, so entries always look alike.

Every write a service makes comes with its audit entry in the same transaction, so the
entries committed during a request say what that request stored: `watch_commits` collects
their summaries, and the database-unavailable page (bunco_site/outages.py) uses them to say
that a save went through when only the page after it failed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import models, transaction

from ..models import AuditEntry, Tournament

_committed: ContextVar[list[str] | None] = ContextVar("bunco_committed", default=None)


@contextmanager
def watch_commits() -> Iterator[list[str]]:
    """The summaries of the audit entries committed while the block runs, in order. An
    entry whose transaction rolls back is never listed."""
    seen: list[str] = []
    token = _committed.set(seen)
    try:
        yield seen
    finally:
        _committed.reset(token)


def record(
    action: str,
    summary: str,
    *,
    actor=None,
    tournament: Tournament | None = None,
    target: models.Model | None = None,
    data: dict[str, Any] | None = None,
) -> AuditEntry:
    entry = AuditEntry.objects.create(
        tournament=tournament,
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        target_type=target._meta.label_lower if target is not None else "",
        target_id=str(target.pk) if target is not None else "",
        summary=summary[:300],
        data=data or {},
    )
    seen = _committed.get()
    if seen is not None:
        transaction.on_commit(lambda: seen.append(entry.summary))
    return entry
