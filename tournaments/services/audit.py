"""The one way anything writes to the audit log, so entries always look alike."""

from __future__ import annotations

from typing import Any

from django.db import models

from ..models import AuditEntry, Tournament


def record(
    action: str,
    summary: str,
    *,
    actor=None,
    tournament: Tournament | None = None,
    target: models.Model | None = None,
    data: dict[str, Any] | None = None,
) -> AuditEntry:
    return AuditEntry.objects.create(
        tournament=tournament,
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        target_type=target._meta.label_lower if target is not None else "",
        target_id=str(target.pk) if target is not None else "",
        summary=summary[:300],
        data=data or {},
    )
