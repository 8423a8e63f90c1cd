"""Printouts the print queue lost: the periodic sweep and Try again send them again.

A row queued longer than STUCK_AFTER since the queue took it may have lost its message (Redis
restarted empty); the sweep celery beat runs sends those again and nothing else, and Try
again works on any printout not being made (stuck in the queue, or failed). The same with a
real worker and a real Redis emptied: tests/test_printout_worker.py.
"""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from bunco_site.celery import app as celery_app
from tests.support.factories import drawn_stage
from tournaments.models import AuditEntry, Printout
from tournaments.services import printouts as service
from tournaments.tasks import render_printout

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

HTMX = {"HX-Request": "true"}
LONG_AGO = timedelta(minutes=1)


@pytest.fixture
def stage(tournament, organiser):
    return drawn_stage(tournament, organiser, players=12, start=False)


@pytest.fixture
def with_a_queue():
    """As with Redis: `delay` sends the task (patched in the tests) instead of running it."""
    celery_app.conf.task_always_eager = False


def row(tournament, actor, **fields) -> Printout:
    printout = service.request_printout(tournament, "tally_sheets", actor, send=False)
    Printout.objects.filter(pk=printout.pk).update(**fields)
    printout.refresh_from_db()
    return printout


def test_the_sweep_sends_again_only_what_waited_too_long(
    stage, tournament, organiser, with_a_queue
):
    now = timezone.now()
    lost = row(tournament, organiser, task_id="lost", sent_at=now - LONG_AGO)
    never_sent = row(tournament, organiser, requested_at=now - LONG_AGO, error=service.QUEUE_DOWN)
    fresh = row(tournament, organiser, task_id="fresh", sent_at=now)
    running = row(tournament, organiser, status="running", sent_at=now - LONG_AGO)
    failed = row(tournament, organiser, status="failed", sent_at=now - LONG_AGO)
    with mock.patch.object(render_printout, "delay") as delay:
        delay.return_value.id = "again"
        assert service.resend_stuck() == 2
        # Just sent again: the next sweep leaves them until they wait too long again.
        assert service.resend_stuck() == 0
    assert sorted(c.args for c in delay.call_args_list) == sorted([(lost.pk,), (never_sent.pk,)])
    for printout in (lost, never_sent):
        printout.refresh_from_db()
        assert (printout.status, printout.task_id, printout.error) == ("queued", "again", "")
        assert timezone.now() - printout.sent_at < timedelta(seconds=5)
    for printout, task in ((fresh, "fresh"), (running, ""), (failed, "")):
        printout.refresh_from_db()
        assert printout.task_id == task and printout.status in ("queued", "running", "failed")


def test_the_sweep_stops_when_the_queue_does_not_answer(stage, tournament, organiser, with_a_queue):
    old = timezone.now() - LONG_AGO
    first, second = (row(tournament, organiser, sent_at=old) for _ in range(2))
    with mock.patch.object(render_printout, "delay", side_effect=BrokerError("refused")) as delay:
        assert service.resend_stuck() == 0
    assert delay.call_count == 1  # asking again about the next row would only wait as long
    asked = delay.call_args.args[0]
    for printout in (first, second):
        printout.refresh_from_db()
        assert printout.sent_at == old and printout.status == "queued"
        assert service.waiting_for_queue(printout) == (printout.pk == asked)


def test_try_again_on_a_printout_stuck_in_the_queue(
    stage, tournament, admin_user, client_for, django_capture_on_commit_callbacks
):
    admin = client_for(admin_user)
    printout = row(tournament, admin_user, task_id="lost", sent_at=timezone.now() - LONG_AGO)
    status = reverse("printout-status", args=[tournament.slug, printout.pk])
    polled = admin.get(status, headers=HTMX).content.decode()
    assert f'id="retry-{printout.pk}"' in polled and 'data-status="queued"' in polled
    assert "it is sent again within a minute, or press Try again" in polled

    retry = reverse("printout-retry", args=[tournament.slug, printout.pk])
    with django_capture_on_commit_callbacks(execute=True):  # the task runs in-process
        response = admin.post(retry, follow=True)
    assert "Table tally sheets" in response.content.decode() and "trying again" in (
        response.content.decode()
    )
    printout.refresh_from_db()
    assert (printout.status, printout.attempts, printout.error) == ("done", 1, "")
    assert AuditEntry.objects.filter(action="printout.retried").count() == 1


def test_try_again_leaves_alone_what_was_just_sent_is_being_made_or_is_made(
    stage, tournament, organiser, admin_user, client_for
):
    admin = client_for(admin_user)
    refusals = {
        "queued": "This printout was sent to the print queue a moment ago; give it a few seconds.",
        "running": "This printout is being made right now; wait for it to finish.",
        "done": "This printout is ready: download it, or ask for a new one.",
    }
    for status, message in refusals.items():
        printout = row(tournament, organiser, status=status, sent_at=timezone.now())
        assert printout.status == status
        polled = admin.get(
            reverse("printout-status", args=[tournament.slug, printout.pk]), headers=HTMX
        ).content.decode()
        assert f'id="retry-{printout.pk}"' not in polled
        with pytest.raises(service.UserFacingError) as refused:
            service.retry_printout(printout, organiser)
        assert refused.value.message == message
    assert not AuditEntry.objects.filter(action="printout.retried").exists()


def test_celery_beat_runs_the_sweep_every_half_minute():
    entry = celery_app.conf.beat_schedule["resend-stuck-printouts"]
    assert entry["task"] in celery_app.tasks and entry["schedule"] == 30.0
    assert timedelta(seconds=entry["schedule"]) > service.STUCK_AFTER
