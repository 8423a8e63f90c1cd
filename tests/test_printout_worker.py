"""Printouts on a real Celery worker (`celery -A bunco_site worker`) with Redis and PostgreSQL.

The worker is a separate process on the test database (DATABASE_URL built from the test
connection) and a Redis database of its own (BUNCO_TEST_REDIS_DB, 9 by default; flushed at
the start). A printout is asked for through the page, its progress followed through the
status view to 100 %, and the PDF downloaded. Then a worker is killed mid-task: with late
acknowledgement the task stays in Redis, a new worker gets it once the visibility timeout
(3 s here, CELERY_VISIBILITY_TIMEOUT) has passed, and it finishes with one file, not two.
A printout whose message was lost with Redis (emptied) is sent again by the periodic sweep,
or by Try again, and made.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/printouts REDIS_URL=redis://127.0.0.1:6379/9 \\
        python -m pytest tests/test_printout_worker.py --create-db
"""

from __future__ import annotations

import io
import os
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit, urlunsplit

import pypdf
import pytest
import redis
from django.conf import settings as django_settings
from django.urls import reverse

from tests.support.factories import drawn_stage
from tests.workers import ask, follow, printing_through, use_broker
from tournaments.models import Printout
from tournaments.services import printouts as service
from tournaments.tasks import TEST_DELAY_ENV, resend_stuck_printouts


def redis_url(db: str | None = None) -> str:
    parts = urlsplit(os.environ["REDIS_URL"])
    db = db or os.environ.get("BUNCO_TEST_REDIS_DB", "9")
    return urlunsplit(parts._replace(path=f"/{db}"))


@pytest.fixture
def queue(settings, tmp_path):
    """Redis DB 9 flushed, MEDIA_ROOT shared with the workers, this process sending to it;
    every worker started through `queue.worker(...)` is stopped at the end."""
    url = redis_url()
    redis.Redis.from_url(url).flushdb()
    with printing_through(url, settings, tmp_path) as queue:
        yield queue


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_renders_what_the_page_asked_for(
    queue, tournament, organiser, admin_user, client_for
):
    stage = drawn_stage(tournament, organiser, players=36, start=False)
    # A little slower than it would be (0.3 s a page of cards), so the bar has steps to show.
    worker = queue.worker("w1", **{TEST_DELAY_ENV: "0.3"}).start()
    admin = client_for(admin_user)
    page = admin.get(reverse("printouts", args=[tournament.slug])).content.decode()
    assert 'id="in-process"' not in page  # a worker renders here, not the request

    started = time.monotonic()
    printout = ask(admin, tournament, pagesize="A4")
    seen = follow(admin, printout, worker, until="done")
    took = time.monotonic() - started
    printout.refresh_from_db()
    assert seen[-1] == ("done", 100), (seen, printout.error, worker.output())
    assert any(s == "running" and 0 < p < 100 for s, p in seen), seen
    assert [p for _, p in seen] == sorted(p for _, p in seen)  # it only ever fills up
    assert printout.task_id and printout.attempts == 1 and printout.stage == stage
    assert f"Task tournaments.tasks.render_printout[{printout.task_id}] succeeded" in (
        worker.output()
    )

    response = admin.get(reverse("printout-download", args=[tournament.slug, printout.pk]))
    pdf = pypdf.PdfReader(io.BytesIO(b"".join(response.streaming_content)))
    assert len(pdf.pages) == printout.pages == 6
    text = "\n".join(page.extract_text() for page in pdf.pages)
    for player in tournament.players.all():
        assert player.name in text and player.code in text
    assert sorted(p.name for p in queue.media_dir.iterdir()) == [Path(printout.file.name).name]
    print(f"\nworker printout: {took:.1f} s from the request to the download link")


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_task_outlives_its_worker_and_leaves_one_file(
    queue, tournament, organiser, admin_user, client_for
):
    drawn_stage(tournament, organiser, players=36, start=False)
    # One second a page: six pages, so there is time to stop the worker in the middle.
    first = queue.worker("w1", **{TEST_DELAY_ENV: "1.0"}).start()
    admin = client_for(admin_user)
    printout = ask(admin, tournament)
    seen = follow(admin, printout, first, until="running", timeout=20)
    deadline = time.monotonic() + 10
    while printout.progress == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
        printout.refresh_from_db()
    assert 0 < printout.progress < 100, seen
    first.kill()
    killed_at = time.monotonic()

    printout.refresh_from_db()
    reserved = printout.file.name
    assert printout.status == "running" and printout.attempts == 1
    assert reserved and not (Path(django_settings.MEDIA_ROOT) / reserved).exists()

    second = queue.worker("w2").start()
    seen = follow(admin, printout, second, until="done", timeout=40)
    printout.refresh_from_db()
    assert seen[-1] == ("done", 100), (seen, printout.error, second.output())
    # The same message, delivered again after the visibility timeout; run twice in all.
    assert f"render_printout[{printout.task_id}]" in second.output()
    assert printout.attempts == 2 and printout.file.name == reserved
    assert sorted(p.name for p in queue.media_dir.iterdir()) == [Path(reserved).name]
    with printout.file.open("rb") as handle:
        assert len(pypdf.PdfReader(io.BytesIO(handle.read())).pages) == 6
    print(f"\nlost worker: done {time.monotonic() - killed_at:.1f} s after the kill")


@pytest.fixture
def lost(queue, tournament, organiser, admin_user, client_for):
    """A printout sent to the queue with no worker running, then Redis emptied (restarted
    without its data): the row says queued and no message anywhere will make it. The row is
    then made to have waited longer than STUCK_AFTER, and a worker started."""
    drawn_stage(tournament, organiser, players=12, start=False)
    admin = client_for(admin_user)
    printout = ask(admin, tournament)
    printout.refresh_from_db()
    assert printout.status == "queued" and printout.task_id and printout.sent_at
    redis.Redis.from_url(queue.env["REDIS_URL"]).flushdb()
    Printout.objects.filter(pk=printout.pk).update(
        sent_at=printout.sent_at - service.STUCK_AFTER - timedelta(seconds=1)
    )
    return SimpleNamespace(admin=admin, printout=printout, worker=queue.worker("w1").start())


def made_once(queue, lost) -> Printout:
    seen = follow(lost.admin, lost.printout, lost.worker, until="done")
    printout = Printout.objects.get(pk=lost.printout.pk)
    assert seen[-1] == ("done", 100), (seen, printout.error, lost.worker.output())
    assert printout.attempts == 1
    assert [p.name for p in queue.media_dir.iterdir()] == [Path(printout.file.name).name]
    return printout


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_printout_lost_with_redis_is_sent_again_by_the_sweep_and_made(queue, lost):
    time.sleep(2)  # a worker is there, but nothing is left to give it
    lost.printout.refresh_from_db()
    assert (lost.printout.status, lost.printout.attempts) == ("queued", 0)

    # What celery beat sends every half minute (CELERY_BEAT_SCHEDULE), run by the worker.
    sweep = resend_stuck_printouts.delay()
    printout = made_once(queue, lost)
    output = lost.worker.output()
    assert f"resend_stuck_printouts[{sweep.id}] succeeded" in output
    assert f"render_printout[{printout.task_id}] succeeded" in output
    assert output.count("render_printout[") == 2  # received and succeeded, once


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_try_again_sends_a_printout_lost_with_redis(queue, lost, tournament, admin_user):
    pk = lost.printout.pk
    page = lost.admin.get(reverse("printouts", args=[tournament.slug])).content.decode()
    assert f'id="retry-{pk}"' in page and f'id="no-worker-{pk}"' in page
    retried = lost.admin.post(reverse("printout-retry", args=[tournament.slug, pk]))
    assert retried.status_code == 302
    assert made_once(queue, lost).requested_by == admin_user


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_when_redis_is_unreachable_the_request_waits_with_a_message(
    queue, tournament, organiser, admin_user, client_for
):
    """Saved and waiting for the queue (tests/test_faults.py sees it start once Redis is back)."""
    drawn_stage(tournament, organiser, players=12, start=False)
    use_broker("redis://127.0.0.1:1/9", eager=False)  # nothing listens on port 1
    admin = client_for(admin_user)
    started = time.monotonic()
    printout = ask(admin, tournament)
    assert time.monotonic() - started < 10
    printout.refresh_from_db()
    assert (printout.status, printout.error) == ("queued", service.QUEUE_DOWN)
    page = admin.get(reverse("printouts", args=[tournament.slug])).content.decode()
    assert service.QUEUE_DOWN in page and f'id="queue-down-{printout.pk}"' in page
