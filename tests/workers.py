"""Real Celery workers for tests: this process sends to a broker, `Worker` processes render.

Used by the worker tests (tests/test_printout_worker.py) and the fault tests
(tests/test_faults.py). A worker is a separate process on the test database (DATABASE_URL
built from the test connection), so these tests need PostgreSQL and `transaction=True`.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.urls import reverse

from bunco_site.celery import app as celery_app
from tournaments.models import Printout
from tournaments.tasks import TEST_DELAY_ENV

BASE_DIR = Path(__file__).resolve().parents[1]
HTMX = {"HX-Request": "true"}
VISIBILITY_TIMEOUT = 3


def database_url() -> str:
    """The test database, as a URL the worker's settings read (dj-database-url)."""
    d = connection.settings_dict
    auth = quote(d["USER"] or "")
    if d["PASSWORD"]:
        auth += ":" + quote(d["PASSWORD"])
    host = d["HOST"] or "127.0.0.1"
    return f"postgres://{auth}@{host}:{d['PORT'] or 5432}/{quote(d['NAME'])}"


def use_broker(url: str | None, eager: bool) -> None:
    """Points this process's Celery app at another broker, dropping pooled connections."""
    if url is not None:
        celery_app.conf.broker_url = url
    celery_app.conf.task_always_eager = eager
    celery_app._pool = None
    amqp = celery_app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None


class Worker:
    """One `celery -A bunco_site worker --pool solo` process with its own log file."""

    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        self.name, self.env, self.log = name, env, log
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 30) -> Worker:
        command = [sys.executable, "-m", "celery", "-A", "bunco_site", "worker"]
        command += ["--pool", "solo", "--concurrency", "1", "-l", "info", "-n", f"{self.name}@%h"]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command, cwd=BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if " ready." in self.output():
                return self
            if self.process.poll() is not None:
                pytest.fail(f"The worker exited:\n{self.output()}")
            time.sleep(0.1)
        pytest.fail(f"The worker was not ready after {timeout} s:\n{self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-task without acknowledging anything."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


class Queue:
    """Workers on one broker, sharing MEDIA_ROOT with this process."""

    def __init__(self, env: dict[str, str], folder: Path, media: Path) -> None:
        self.env, self.folder = env, folder
        self.media_dir = media / "printouts"
        self.workers: list[Worker] = []

    def worker(self, name: str, **extra: str) -> Worker:
        made = Worker(name, {**self.env, **extra}, self.folder / f"{name}.log")
        self.workers.append(made)
        return made


@contextmanager
def printing_through(url: str, settings, tmp_path: Path):
    """This process sends printouts to the broker at `url`; workers made with
    `queue.worker(...)` take them, and are stopped at the end."""
    media = tmp_path / "media"
    media.mkdir(exist_ok=True)
    settings.MEDIA_ROOT = media
    saved = (celery_app.conf.broker_url, celery_app.conf.task_always_eager)
    use_broker(url, eager=False)
    env = {k: v for k, v in os.environ.items() if k != TEST_DELAY_ENV}
    env.update(
        DATABASE_URL=database_url(),
        REDIS_URL=url,
        MEDIA_ROOT=str(media),
        SECRET_KEY=django_settings.SECRET_KEY,  # the same signed QR links
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        CONN_MAX_AGE="0",
    )
    queue = Queue(env, tmp_path, media)
    try:
        yield queue
    finally:
        for worker in queue.workers:
            worker.stop()
        use_broker(saved[0], eager=saved[1])


def ask(client, tournament, **data) -> Printout:
    fields = {"kind": "score_cards", "stage": "qualifying", "pod": "", "pagesize": "letter"}
    response = client.post(reverse("printouts", args=[tournament.slug]), {**fields, **data})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Printout.objects.latest("pk")


def follow(
    client, printout, worker: Worker, *, until: str, timeout: float = 40
) -> list[tuple[str, int]]:
    """Polls the status view (as htmx does) until the row's status is `until`; returns every
    (status, progress) seen."""
    url = reverse("printout-status", args=[printout.tournament.slug, printout.pk])
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = client.get(url, headers=HTMX).content.decode()
        status = re.search(r'data-status="(\w+)"', row)[1]
        progress = int(re.search(r'data-progress="(\d+)"', row)[1])
        if not seen or seen[-1] != (status, progress):
            seen.append((status, progress))
        if status == until or status == "failed":
            return seen
        time.sleep(0.2)
    pytest.fail(f"Still {seen[-1]} after {timeout} s. The worker said:\n{worker.output()}")
