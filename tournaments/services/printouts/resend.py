"""Printouts that went to the print queue and were never made: sent again.

A Redis restarted empty loses the messages it held while their rows still say "queued", so
no worker would ever make them and the page would wait forever. Two ways out, both safe
because the task is (`jobs.produce`: a row already made is skipped, one made twice keeps one
file):

- Celery beat runs `resend_stuck` every half minute (CELERY_BEAT_SCHEDULE): a row queued for
  longer than STUCK_AFTER since the queue last took it is sent again. A message that was
  only slow (workers busy) then runs twice, and the second run does nothing.
- An admin's *Try again* (`retry_printout`) sends one row again: a failed one, or one queued
  longer than STUCK_AFTER. One being made right now, or already made, is left alone.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError

from ...models import Printout
from ...models.printouts import KEEP_FOR
from . import jobs
from .documents import describe

# Longer than a worker takes to pick up a message when it is free, short enough that nobody
# waits long after Redis came back.
STUCK_AFTER = timedelta(seconds=20)


def waiting_since(printout: Printout) -> datetime:
    """When the queue last took the row, or when it was asked for if it never did."""
    return printout.sent_at or printout.requested_at


def stuck(printout: Printout, now: datetime | None = None) -> bool:
    """Queued for longer than STUCK_AFTER: its message may be lost; sending it again is safe."""
    now = now or timezone.now()
    return printout.status == Printout.Status.QUEUED and (
        now - waiting_since(printout) >= STUCK_AFTER
    )


def resend_stuck(now: datetime | None = None) -> int:
    """Sends again every stuck printout (celery beat); returns how many the queue took.

    Each row is locked while it is sent, and skipped if someone holds it (a worker starting
    it, an admin pressing Try again), so it is sent once per sweep at most.
    """
    cutoff = (now or timezone.now()) - STUCK_AFTER
    queued = Printout.objects.filter(status=Printout.Status.QUEUED)
    due = queued.filter(Q(sent_at__lte=cutoff) | Q(sent_at__isnull=True, requested_at__lte=cutoff))
    return jobs.send_each(due, due.order_by("requested_at").values_list("pk", flat=True))


@transaction.atomic
def retry_printout(printout: Printout, actor) -> Printout:
    """Sends the printout again, for whoever asks: same row, same reserved file name."""
    printout = Printout.objects.select_for_update().get(pk=printout.pk)
    if printout.status == Printout.Status.RUNNING:
        raise UserFacingError("This printout is being made right now; wait for it to finish.")
    if printout.status == Printout.Status.DONE:
        raise UserFacingError("This printout is ready: download it, or ask for a new one.")
    if printout.status == Printout.Status.QUEUED and not stuck(printout):
        raise UserFacingError(
            "This printout was sent to the print queue a moment ago; give it a few seconds."
        )
    now = timezone.now()
    printout.status = Printout.Status.QUEUED
    printout.progress = 0
    printout.error = ""
    printout.task_id = ""
    printout.sent_at = None
    printout.requested_by = actor if actor is not None and actor.is_authenticated else None
    printout.requested_at = now
    printout.finished_at = None
    printout.expires_at = now + KEEP_FOR
    printout.save()
    audit.record(
        "printout.retried",
        f"Printout tried again: {describe(printout)}",
        actor=actor,
        tournament=printout.tournament,
        target=printout,
    )
    transaction.on_commit(lambda: jobs._send(printout.pk))
    return printout
