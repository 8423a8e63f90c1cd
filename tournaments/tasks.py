"""Celery tasks: printouts, the sweep that sends again those the queue lost, and the clean-up
that throws them away when they expire.

Tasks take primary keys only and read everything else from the database when they run.
`render_printout` is acknowledged late (a worker lost mid-task leaves the message to be
delivered again) and is safe to run twice: see `services.printouts.produce`. A lost
database connection is retried with backoff, on a fresh connection.
"""

from __future__ import annotations

import os

from celery import shared_task
from django.db import InterfaceError, OperationalError, connections

from .services import printouts as service

# Tests only: seconds to sleep at each progress report, so a test can stop a worker while it
# is rendering. Unset in production.
TEST_DELAY_ENV = "BUNCO_TEST_PRINTOUT_DELAY"


def _drop_broken_connections() -> None:
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()


@shared_task(
    bind=True,
    # The page polls the printout row, never the result backend: nothing to store there, and
    # sending does not wait on the result store when Redis is down.
    ignore_result=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
)
def render_printout(self, printout_id: int) -> dict:
    """Makes one printout's PDF and saves it on the row; progress is saved on the row."""
    try:
        return service.produce(
            printout_id,
            task_id=self.request.id or "",
            delay=float(os.environ.get(TEST_DELAY_ENV) or 0),
        )
    except (OperationalError, InterfaceError):
        _drop_broken_connections()
        raise


@shared_task(
    ignore_result=True,
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    max_retries=3,
)
def purge_expired_printouts() -> int:
    """Deletes printouts past their expiry, and their files (scheduled by celery beat)."""
    return service.purge_expired()


@shared_task(ignore_result=True)
def resend_stuck_printouts() -> int:
    """Sends again the printouts queued long ago and never started (scheduled by celery beat):
    their message was lost with a Redis restarted empty."""
    return service.resend_stuck()


EMAIL_RETRIES = 4


@shared_task(bind=True, ignore_result=True, acks_late=True, max_retries=EMAIL_RETRIES)
def send_email(self, entry_id: int) -> None:
    """Sends one logged e-mail; a refusing or unreachable server is tried again with backoff,
    then the row is marked failed for the organiser's e-mail log."""
    from smtplib import SMTPException

    from .services import mail

    try:
        mail.deliver(entry_id)
    except (SMTPException, OSError, OperationalError, InterfaceError) as exc:
        if self.request.retries >= self.max_retries or self.request.is_eager:
            mail.give_up(entry_id)
            return
        raise self.retry(exc=exc, countdown=min(2 ** (self.request.retries + 2), 300)) from exc


@shared_task(ignore_result=True, autoretry_for=(OperationalError, InterfaceError), max_retries=3)
def lapse_waitlist_offers() -> int:
    """Every few minutes: offers past their time go to the next on the waitlist, and offers
    in their last stretch are reminded of, once."""
    from .services import waitlist

    return waitlist.sweep_offers() + waitlist.remind_offers()
