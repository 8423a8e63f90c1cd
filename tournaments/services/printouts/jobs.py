"""Asking for a printout, making it (the Celery task's body) and throwing it away later.

- `request_printout` saves a `Printout` row and sends `render_printout(pk)` only once the
  row is committed (`transaction.on_commit`), so a worker never looks for a row that is not
  there yet. If the broker cannot be reached the row stays queued, marked as waiting for
  the queue (`QUEUE_DOWN` in its error), and `send_waiting` sends it again when the printouts
  page or the row's poll is next viewed: the request is never lost and the page never breaks.
- `produce` is the task's body. It is safe to run twice: a finished row is left alone, and
  the file name is reserved on the row before rendering, so a run after a lost worker
  writes the same name again (through a temporary file and an atomic rename) and never
  leaves a second file behind.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.site import site_url

from ...models import Pod, Printout, Stage, Tournament
from ...models.printouts import FOLDER, KEEP_FOR, new_file_name
from . import documents
from .documents import (
    NEEDS_STAGE,
    TAKES_POD,
    WHOLE_EVENT,
    Kind,
    describe,
    page_count,
    printable_stages,
)

log = logging.getLogger(__name__)

QUEUE_DOWN = (
    "The print queue is not answering; your request is saved and will start when it is back."
)
# A page polls a waiting row every second; a process asks a dead broker about one row at most
# this often (seconds), so a Redis that hangs instead of refusing does not tie up every request.
RESEND_EVERY = 5
# Row -> when this process last asked the broker to take it (time.monotonic()). Kept in the
# process on purpose: a cache could live in the very Redis that is down.
_asked: dict[int, float] = {}
PROGRESS_STEP = 5  # percent between saves of the progress bar
PROGRESS_EVERY = 2.0  # ...or seconds, whichever comes first


def _may_ask(pk: int) -> bool:
    """False when this process asked the broker about the row less than RESEND_EVERY ago."""
    now = time.monotonic()
    for old in [row for row, at in _asked.items() if now - at >= RESEND_EVERY]:
        _asked.pop(old, None)
    if pk in _asked:
        return False
    _asked[pk] = now
    return True


def _send(pk: int) -> bool:
    """After commit: hand the row to the queue, or without Redis render it right here.
    False when the broker did not answer: the row then waits for the queue."""
    from celery import current_app
    from kombu.exceptions import OperationalError as BrokerError

    from ...tasks import render_printout

    if current_app.conf.task_always_eager:
        # In-process: `apply` with throw=False runs the task's own retries (a lost database
        # connection) instead of raising them into the request.
        result = render_printout.apply(args=[pk], throw=False)
        if result.failed():
            log.error("Printout %s failed in-process: %r", pk, result.result)
            _fail(
                pk, f"The printout could not be made ({type(result.result).__name__}). Try again."
            )
        return True
    try:
        # Bounded by the broker's socket timeouts and CELERY_TASK_PUBLISH_RETRY_POLICY.
        result = render_printout.delay(pk)
    except (BrokerError, OSError) as exc:
        # Redis down or unreachable: nothing was queued. The row keeps its place and says it
        # waits for the queue; `send_waiting` tries again.
        log.warning("Printout %s not queued: %s", pk, exc)
        Printout.objects.filter(pk=pk, status=Printout.Status.QUEUED).update(error=QUEUE_DOWN)
        _asked[pk] = time.monotonic()
        return False
    # A worker may have claimed the row already (it then set the task id itself).
    Printout.objects.filter(pk=pk, status=Printout.Status.QUEUED).update(
        task_id=result.id or "", error="", sent_at=timezone.now()
    )
    return True


def waiting_for_queue(printout: Printout) -> bool:
    """True for a request the broker did not take: saved, not sent yet."""
    return printout.status == Printout.Status.QUEUED and printout.error == QUEUE_DOWN


def send_waiting(tournament: Tournament, pk: int | None = None) -> int:
    """Sends again the tournament's printouts (or the one `pk`) that wait for the queue;
    returns how many the broker took.

    Called when the printouts page or a row's poll is viewed, so a request made while Redis
    was down starts once it is back. The row is locked while it is sent and skipped by
    anyone else holding it, so two pages polling at once send it once; and the task itself
    is safe to run twice, so even a second delivery leaves one file.
    """
    waiting = Printout.objects.filter(
        tournament=tournament, status=Printout.Status.QUEUED, error=QUEUE_DOWN
    )
    if pk is not None:
        waiting = waiting.filter(pk=pk)
    return send_each(waiting, (p for p in waiting.values_list("pk", flat=True) if _may_ask(p)))


def send_each(rows: QuerySet[Printout], pks: Iterable[int]) -> int:
    """Sends the rows `pks` of `rows` again, each locked while it is sent and skipped when
    someone else holds it (another page's poll, the sweep, a worker starting it); stops at
    the first the queue refuses, since asking about the others would only wait as long.
    Returns how many the queue took."""
    sent = 0
    for row_pk in pks:
        with transaction.atomic():
            if rows.select_for_update(skip_locked=True).filter(pk=row_pk).first() is None:
                continue
            if not _send(row_pk):
                break
            sent += 1
    return sent


def _check(tournament, kind, stage, pod, pagesize) -> None:
    if kind not in Kind.values:
        raise UserFacingError("Choose a document to print.")
    if pagesize not in Printout.PageSize.values:
        raise UserFacingError("Choose letter or A4.")
    if stage is not None and stage.tournament_id != tournament.pk:
        raise UserFacingError("That stage is not part of this tournament.")
    if kind in NEEDS_STAGE and stage is None:
        raise UserFacingError("Draw the pods first: this printout is made from the seating.")
    if pod is not None:
        if kind not in TAKES_POD:
            raise UserFacingError(f"{Kind(kind).label} covers every pod; choose all pods.")
        if stage is None or pod.stage_id != stage.pk:
            raise UserFacingError("That pod is not part of the chosen stage.")


@transaction.atomic
def request_printout(
    tournament: Tournament,
    kind: str,
    actor,
    *,
    stage: Stage | None = None,
    pod: Pod | None = None,
    pagesize: str = "letter",
    base_url: str = "",
    send: bool = True,
) -> Printout:
    """Saves the request; the task is sent once this transaction commits.

    Without a stage, documents made from the seating use the latest stage with pods.
    `send=False` leaves the sending to the caller (the rehearsal runs the task itself).

    Every request is a printout of its own, even when an identical one is still queued or
    rendering: a row records who asked, the address its QR codes use (each admin's own) and
    the data as of the request, and a PDF already rendering may miss a change the second
    admin just made. So two admins asking at once get two rows and two files, with nothing
    shared to lock; a failed or stuck one is tried again on its own row (`resend.py`).
    """
    if kind in NEEDS_STAGE and stage is None:
        stages = printable_stages(tournament)
        stage = stages[0] if stages else None
    if kind in WHOLE_EVENT:
        stage = None
    _check(tournament, kind, stage, pod, pagesize)
    printout = Printout.objects.create(
        tournament=tournament,
        kind=kind,
        stage=stage,
        pod=pod,
        pagesize=pagesize,
        base_url=base_url or site_url(),
        requested_by=actor if actor is not None and actor.is_authenticated else None,
    )
    audit.record(
        "printout.requested",
        f"Printout requested: {describe(printout)}",
        actor=actor,
        tournament=tournament,
        target=printout,
    )
    if send:
        transaction.on_commit(lambda: _send(printout.pk))
    return printout


# --- making it (the task's body) -------------------------------------------------------------


@dataclass
class _Progress:
    """Saves the percentage every PROGRESS_STEP % or PROGRESS_EVERY s, never on each page."""

    pk: int
    delay: float = 0.0
    last: int = 0
    saved_at: float = field(default_factory=time.monotonic)

    def __call__(self, done: int, total: int) -> None:
        percent = min(99, done * 100 // total) if total else 99
        now = time.monotonic()
        if percent - self.last >= PROGRESS_STEP or (
            percent > self.last and now - self.saved_at >= PROGRESS_EVERY
        ):
            Printout.objects.filter(pk=self.pk, status=Printout.Status.RUNNING).update(
                progress=percent
            )
            self.last, self.saved_at = percent, now
        if self.delay:
            time.sleep(self.delay)


def _write(storage, name: str, data: bytes) -> None:
    """Writes to a temporary file beside the final one, then renames it into place: a crash
    leaves the old state or the new one, never half a PDF under the real name. Temporary
    files an earlier run left behind are removed first."""
    path = Path(storage.path(name))
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f"{path.name}.part-*"):
        stale.unlink(missing_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f"{path.name}.part-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, settings.FILE_UPLOAD_PERMISSIONS or 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _claim(printout_id: int, task_id: str) -> Printout | None:
    """Marks the row running and reserves its file name; None when there is nothing to do
    (the row is gone, or already done with its file)."""
    with transaction.atomic():
        printout = (
            Printout.objects.select_for_update(of=("self",))
            .select_related("tournament__preset", "stage__tournament", "pod")
            .filter(pk=printout_id)
            .first()
        )
        if printout is None:
            return None
        done = printout.status == Printout.Status.DONE and printout.file.name
        if done and printout.file.storage.exists(printout.file.name):
            return None
        if not printout.file.name:
            printout.file.name = new_file_name()
        printout.status = Printout.Status.RUNNING
        printout.progress = 0
        printout.error = ""
        printout.task_id = task_id or printout.task_id
        printout.attempts += 1
        printout.started_at = timezone.now()
        printout.finished_at = None
        printout.save(
            update_fields=[
                "file",
                "status",
                "progress",
                "error",
                "task_id",
                "attempts",
                "started_at",
                "finished_at",
            ]
        )
        return printout


def _fail(printout_id: int, message: str) -> None:
    Printout.objects.filter(pk=printout_id).exclude(status=Printout.Status.DONE).update(
        status=Printout.Status.FAILED, error=message[:2000], finished_at=timezone.now()
    )


def produce(printout_id: int, *, task_id: str = "", delay: float = 0.0) -> dict[str, Any]:
    """Renders the row's PDF into its reserved file. Lost database connections propagate
    (the task retries them); any other error marks the row failed with a message."""
    try:
        printout = _claim(printout_id, task_id)
    except (OperationalError, InterfaceError):
        raise
    except Exception as exc:
        log.exception("Printout %s could not start", printout_id)
        _fail(printout_id, f"The printout could not start ({type(exc).__name__}). Try again.")
        return {"printout": printout_id, "status": "failed"}
    if printout is None:
        return {"printout": printout_id, "status": "skipped"}
    try:
        data = documents.render(printout, _Progress(printout.pk, delay))
        _write(printout.file.storage, printout.file.name, data)
    except (OperationalError, InterfaceError):
        raise
    except UserFacingError as exc:
        _fail(printout.pk, exc.message)
        return {"printout": printout_id, "status": "failed"}
    except Exception as exc:
        log.exception("Printout %s failed", printout_id)
        _fail(
            printout.pk,
            f"The printout could not be made ({type(exc).__name__}: {exc}). Try again; if it "
            "fails again, tell the organiser.",
        )
        return {"printout": printout_id, "status": "failed"}
    now = timezone.now()
    pages = page_count(data)
    Printout.objects.filter(pk=printout.pk).update(
        status=Printout.Status.DONE,
        progress=100,
        error="",
        pages=pages,
        bytes=len(data),
        finished_at=now,
        expires_at=now + KEEP_FOR,
    )
    return {"printout": printout_id, "status": "done", "pages": pages, "bytes": len(data)}


# --- clean-up --------------------------------------------------------------------------------


def purge_expired(now=None) -> int:
    """Deletes printouts past their expiry (each row's file goes with it, see post_delete),
    then files nobody refers to: a temporary file an hour old, any other a day old."""
    now = now or timezone.now()
    with transaction.atomic():
        count, _ = Printout.objects.filter(expires_at__lte=now).delete()
    storage = Printout._meta.get_field("file").storage
    folder = Path(storage.path(FOLDER))
    if folder.is_dir():
        known = {Path(name).name for name in Printout.objects.values_list("file", flat=True)}
        moment = now.timestamp()
        for path in folder.iterdir():
            age = moment - path.stat().st_mtime
            temporary = ".part-" in path.name
            if (
                path.is_file()
                and path.name not in known
                and (age > 3600 if temporary else age > KEEP_FOR.total_seconds())
            ):
                path.unlink(missing_ok=True)
    return count
