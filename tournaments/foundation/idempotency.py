"""Writes a phone may send twice: each carries an idempotency key, and a key is written once.

A phone on the venue Wi-Fi does not know whether a save that timed out was stored, so it
sends it again (its queue does, and so does a double tap or a browser retry). The form
carries a key (a UUID made when it was shown); the write stores a `WriteReceipt` under that
key in its own transaction, and the same key sent again answers with the first outcome and
writes nothing new.

The receipt is claimed first, before the write takes any lock (locks.py): on PostgreSQL a
second request with the same key then waits on the key's unique index until the first
commits, and finds its receipt, instead of racing it to the rows and being told of a
conflict with itself. If the first write fails, its claim rolls back with it and the key is
free: a refused save (a conflict, a closed round) never uses a key up.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TypeVar

from django.db import IntegrityError, transaction

from tournaments.foundation.errors import UserFacingError

from ..models.idempotency import WriteReceipt

T = TypeVar("T")
Kind = WriteReceipt.Kind
STALE = "This page is out of date: reload it."


def parse_key(value) -> uuid.UUID | None:
    """The form's key; None when none was sent. A garbled one is a crafted post or a
    broken page, refused rather than written without protection."""
    if value is None or value == "":
        return None
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        raise UserFacingError(STALE, field="idempotency_key") from None


def _refusal(receipt: WriteReceipt, *, kind: str, actor, subject: str) -> str:
    if receipt.account_id != actor.pk:
        return (
            "This form was already sent from another account, so it was not saved again. "
            "Open the page afresh."
        )
    if receipt.kind != kind:
        return (
            f"This form's key was already used for {receipt.get_kind_display()}, so nothing "
            "was saved. Open the page afresh."
        )
    if receipt.subject != subject:
        return "This form's key was already used for another save, so nothing was saved."
    return ""


def once(
    key,
    *,
    kind: str,
    actor,
    tournament_id: int,
    pod_id: int | None = None,
    subject: str,
    write: Callable[[], T],
    remember: Callable[[T], dict],
    replay: Callable[[dict], T],
) -> T:
    """Runs `write` unless `key` was written before; then `replay` rebuilds the first answer
    from what `remember` stored. Call it inside the service's transaction, before any lock.

    Without a key, or without an account to hold it to, this is just `write()`: scripts and
    old pages still work, they only lose the protection.
    """
    key = parse_key(key)
    if key is None or actor is None or not actor.is_authenticated:
        return write()
    try:
        with transaction.atomic():
            receipt = WriteReceipt.objects.create(
                key=key,
                account=actor,
                kind=kind,
                subject=subject[:100],
                tournament_id=tournament_id,
                pod_id=pod_id,
            )
    except IntegrityError:
        first = WriteReceipt.objects.get(key=key)
        refusal = _refusal(first, kind=kind, actor=actor, subject=subject[:100])
        if refusal:
            raise UserFacingError(refusal, field="idempotency_key") from None
        return replay(first.outcome)
    value = write()
    WriteReceipt.objects.filter(pk=receipt.pk).update(outcome=remember(value))
    return value
