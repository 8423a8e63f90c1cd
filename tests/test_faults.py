"""Faults on event night: Redis stopped while an admin prints, PostgreSQL restarted mid-event.

Redis: a private `redis-server` on a free port is killed before an admin asks for a printout;
the request answers at once with a clear message and the row waits for the queue; once Redis
is back on the same port and a real worker runs, the page's poll sends it and it finishes
with one file. A hung Redis (SIGSTOP) answers within its socket timeout instead of hanging.

PostgreSQL: a private cluster (initdb in a temporary folder, a free port) under the site on
gunicorn, seeded by `manage.py rehearse`. Pages keep answering after `pg_ctl restart`; while
it is stopped, pages, htmx polls and a staff result entry get a clean 503 and nothing is
stored; once it is started again the same gunicorn processes serve the pages and the result
is stored once. The shared servers are never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from http.cookiejar import CookieJar
from pathlib import Path
from unittest import mock
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, HTTPRedirectHandler, Request, build_opener

import pytest
from django.db import OperationalError
from django.test import Client
from django.urls import reverse
from kombu.exceptions import OperationalError as BrokerError

from bunco_site.celery import app as celery_app
from bunco_site.outages import HTMX_EVENT, MESSAGE
from tests.support.factories import drawn_stage
from tests.workers import BASE_DIR, HTMX, follow, printing_through
from tournaments.models import Printout
from tournaments.services import printouts as service
from tournaments.services.printouts import jobs
from tournaments.tasks import render_printout
from tournaments.views.home import HomeView

REDIS_SERVER = shutil.which("redis-server")
PG_BIN = Path(os.environ.get("BUNCO_PG_BIN", "/usr/lib/postgresql/15/bin"))
PRINT = {"kind": "score_cards", "stage": "qualifying", "pod": "", "pagesize": "letter"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"{what} after {timeout} s")


# --- Redis ------------------------------------------------------------------------------------


class RedisServer:
    """A private redis-server (no persistence) that the test can kill, hang and restart on the
    same port."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder = free_port(), folder
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> RedisServer:
        import redis

        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        command += ["--dir", str(self.folder)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)

        def answers() -> bool:
            try:
                return client.ping()
            except redis.ConnectionError:
                return False

        wait_for(answers, "redis-server did not answer")
        return self

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a hung one must be able to exit
            self.kill()


@pytest.fixture
def private_redis(tmp_path, monkeypatch):
    if not REDIS_SERVER:
        pytest.skip("needs redis-server (apt-get install redis-server)")
    monkeypatch.setattr(jobs, "_asked", {})  # no "asked a moment ago" from another test
    monkeypatch.setattr(jobs, "RESEND_EVERY", 1)
    server = RedisServer(tmp_path).start()
    yield server
    server.stop()


@pytest.fixture
def printing(private_redis, settings, tmp_path, tournament, organiser):
    """Pods drawn, and this process sending printouts to the private Redis."""
    drawn_stage(tournament, organiser, players=12, start=False)
    with printing_through(private_redis.url(), settings, tmp_path) as queue:
        yield queue


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_printout_asked_for_while_redis_is_down_starts_once_it_is_back(
    private_redis, printing, tournament, admin_user, client_for
):
    admin = client_for(admin_user)
    page = reverse("printouts", args=[tournament.slug])
    private_redis.kill()

    started = time.monotonic()
    response = admin.post(page, PRINT, follow=True)
    took = time.monotonic() - started
    assert response.status_code == 200 and took < 3, took
    body = response.content.decode()
    printout = Printout.objects.get()
    assert f"Score cards · Qualifying · Letter: {service.QUEUE_DOWN}" in body
    assert f'id="queue-down-{printout.pk}"' in body and f'id="retry-{printout.pk}"' not in body
    assert (printout.status, printout.error) == ("queued", service.QUEUE_DOWN)
    assert (printout.task_id, printout.attempts, printout.file.name) == ("", 0, "")

    # Still down: the poll answers (asking the broker again), and the request keeps waiting.
    time.sleep(jobs.RESEND_EVERY)
    status = reverse("printout-status", args=[tournament.slug, printout.pk])
    row = admin.get(status, headers=HTMX)
    assert row.status_code == 200 and 'data-status="queued"' in row.content.decode()
    assert service.QUEUE_DOWN in row.content.decode()

    private_redis.start()  # the same port, and empty: nothing was queued while down
    worker = printing.worker("w1").start()
    seen = follow(admin, printout, worker, until="done", timeout=40)
    printout.refresh_from_db()
    assert seen[-1] == ("done", 100), (seen, printout.error, worker.output())
    assert printout.error == "" and printout.task_id and printout.attempts == 1
    assert f"render_printout[{printout.task_id}] succeeded" in worker.output()

    # Viewing the page again sends nothing: the request is no longer waiting.
    time.sleep(jobs.RESEND_EVERY)
    body = admin.get(page).content.decode()
    assert f'id="download-{printout.pk}"' in body and service.QUEUE_DOWN not in body
    assert worker.output().count("render_printout[") == 2  # received, succeeded: once
    assert Printout.objects.count() == 1
    assert [p.name for p in printing.media_dir.iterdir()] == [Path(printout.file.name).name]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_hung_redis_does_not_hang_the_request(
    private_redis, printing, tournament, admin_user, client_for
):
    """Redis that accepts connections but never answers (stopped with SIGSTOP)."""
    admin = client_for(admin_user)
    private_redis.process.send_signal(signal.SIGSTOP)
    started = time.monotonic()
    response = admin.post(reverse("printouts", args=[tournament.slug]), PRINT)
    took = time.monotonic() - started
    private_redis.process.send_signal(signal.SIGCONT)
    assert response.status_code == 302 and took < 5, took
    assert service.waiting_for_queue(Printout.objects.get())


@pytest.fixture
def with_a_queue(monkeypatch):
    """As with Redis: `delay` sends the task (patched in the test) instead of running it."""
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    monkeypatch.setattr(jobs, "_asked", {})
    yield
    celery_app.conf.task_always_eager = saved


@pytest.mark.django_db
def test_a_waiting_printout_is_sent_once_when_the_queue_answers_again(
    tournament, organiser, with_a_queue, django_capture_on_commit_callbacks
):
    drawn_stage(tournament, organiser, players=12, start=False)
    with mock.patch.object(render_printout, "delay", side_effect=BrokerError("refused")):
        with django_capture_on_commit_callbacks(execute=True):
            printout = service.request_printout(tournament, "score_cards", organiser)
        # A poll right after the refusal does not ask the broker again.
        assert service.send_waiting(tournament) == 0
    with mock.patch.object(render_printout, "delay") as delay:
        delay.return_value.id = "task-1"
        assert service.send_waiting(tournament, printout.pk) == 0  # still pausing
        jobs._asked.clear()  # RESEND_EVERY later
        assert service.send_waiting(tournament) == 1
        jobs._asked.clear()
        assert service.send_waiting(tournament) == 0  # it is no longer waiting
    delay.assert_called_once_with(printout.pk)
    printout.refresh_from_db()
    assert (printout.status, printout.task_id, printout.error) == ("queued", "task-1", "")


# --- the 503 page, in-process -----------------------------------------------------------------


def assert_clean_503(response, *, htmx: bool = False) -> str:
    body = response.content.decode()
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert MESSAGE in body and "Traceback" not in body and "OperationalError" not in body
    if htmx:
        assert response["HX-Trigger"] == HTMX_EVENT and not body.lstrip().startswith("<!doctype")
    else:
        assert body.startswith("<!doctype html>") and 'id="database-unavailable"' in body
    return body


@pytest.mark.django_db
def test_a_database_error_in_a_view_is_a_clean_503():
    lost = OperationalError("server closed the connection unexpectedly")
    with mock.patch.object(HomeView, "get_context_data", side_effect=lost):
        assert_clean_503(Client().get("/"))
        assert_clean_503(Client().get("/", headers=HTMX), htmx=True)
    with mock.patch.object(HomeView, "get_context_data", side_effect=ValueError("a bug")):
        response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500  # anything else is still a server error


@pytest.mark.django_db
def test_a_database_error_in_a_middleware_is_a_clean_503(admin_user):
    """The signed-in user is read by a middleware, before any view runs (the session itself
    may come from the shared cache, so the user's row is the read that fails)."""
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    refused = OperationalError('connection to server at "127.0.0.1", port 5432 failed')
    with mock.patch("tournaments.lockout.SignInLimitBackend.get_user", side_effect=refused):
        assert_clean_503(client.get("/"))
    assert client.get("/").status_code == 200


# --- PostgreSQL restarted under gunicorn ------------------------------------------------------


class PostgresCluster:
    """A throwaway cluster: initdb, pg_ctl start / restart / stop. As root the server runs as
    the postgres account (PostgreSQL refuses root), which must own the folder."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="bunco-faults-pg-"))
        self.data, self.port = self.root / "data", free_port()
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else os.environ.get("USER", "postgres")
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")

    def run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        done = subprocess.run(prefix + list(command), capture_output=True, text=True)
        assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"

    def initdb(self) -> None:
        self.run(str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user, "-N")

    def pg_ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run(
            str(PG_BIN / "pg_ctl"),
            action,
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "server.log"),
            "-w",
            *extra,
        )

    def url(self, name: str) -> str:
        return f"postgres://{self.user}@127.0.0.1:{self.port}/{name}"

    def query(self, sql: str, *params):
        import psycopg

        with psycopg.connect(self.url("bunco"), autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.pg_ctl("stop", "-m", "fast")
        shutil.rmtree(self.root, ignore_errors=True)


class NoRedirects(HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Visitor:
    """A browser without a browser: cookies, CSRF, no redirects followed."""

    def __init__(self, base: str) -> None:
        self.base, self.jar = base, CookieJar()
        self.opener = build_opener(HTTPCookieProcessor(self.jar), NoRedirects())

    def send(self, path: str, data: dict | None = None, headers: dict | None = None):
        body = None
        if data is not None:
            body = urlencode({**data, "csrfmiddlewaretoken": self.cookie("csrftoken")}).encode()
        request = Request(self.base + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.headers, response.read().decode()
        except HTTPError as error:
            return error.code, error.headers, error.read().decode()

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    def log_in(self, username: str, password: str) -> None:
        self.send("/accounts/login/")
        status, headers, _ = self.send(
            "/accounts/login/", {"username": username, "password": password}
        )
        assert status == 302 and "login" not in headers["Location"], status


@dataclass
class Site:
    cluster: PostgresCluster
    process: subprocess.Popen
    base: str
    log: Path

    def worker_pids(self) -> set[int]:
        """The gunicorn workers: the processes whose parent is the master."""
        pids = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                pids.add(int(stat.parent.name))
        return pids


SLUG = "faults"
STAFF_PASSWORD = "faults-Staff-pass-91"
SEED = f"""
from django.contrib.auth import get_user_model
from django.core.management import call_command
from tournaments.models import Stage
from scoring.services.rounds import start_next_round
call_command("rehearse", "--players", "24", "--stop-after-round", "1", "--slug", "{SLUG}")
staff = get_user_model().objects.get(username="{SLUG}-staff1")
staff.set_password("{STAFF_PASSWORD}")
staff.save()
stage = Stage.objects.get(tournament__slug="{SLUG}", kind="qualifying")
start_next_round(stage, actor=stage.tournament.created_by)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site on gunicorn (two workers) over a private PostgreSQL cluster, seeded with a
    24-player event whose round 2 is being played; staff1 looks after pod 1."""
    if not (PG_BIN / "initdb").exists():
        pytest.skip(f"needs PostgreSQL's initdb in {PG_BIN} (apt-get install postgresql)")
    folder = tmp_path_factory.mktemp("site")
    cluster = PostgresCluster()
    process = None
    try:
        cluster.initdb()
        cluster.pg_ctl("start")
        pg_port = str(cluster.port)
        cluster.run(
            str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", pg_port, "-U", cluster.user, "bunco"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_URL", "DATABASE_"))}
        env.update(
            DATABASE_URL=cluster.url("bunco"),
            BUNCO_DATA_DIR=str(folder / "data"),
            BUNCO_PLAIN_STATIC="1",
            SECRET_KEY="faults-" + "k" * 50,
            DEBUG="0",
        )

        def manage(*args: str) -> None:
            done = subprocess.run(
                [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True
            )
            assert done.returncode == 0, done.stderr.decode()[-3000:]

        manage("migrate", "--noinput", "-v", "0")
        manage("shell", "-c", SEED)
        port = str(free_port())
        log = folder / "gunicorn.log"
        command = [str(Path(sys.executable).parent / "gunicorn"), "bunco_site.wsgi"]
        command += ["--bind", f"127.0.0.1:{port}", "--workers", "2", "--timeout", "30"]
        with open(log, "wb") as out:
            process = subprocess.Popen(
                command, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        found = Site(cluster, process, f"http://127.0.0.1:{port}", log)

        def serving() -> bool:
            try:
                return Visitor(found.base).send("/")[0] == 200
            except URLError:
                return False

        wait_for(lambda: serving() and len(found.worker_pids()) == 2, "gunicorn is not serving")
        yield found
    finally:
        if process is not None:
            process.send_signal(signal.SIGINT)  # gunicorn's quick shutdown
            process.wait(timeout=20)
        cluster.remove()


def pages(visitor: Visitor) -> dict[str, int]:
    paths = ["/", f"/t/{SLUG}/seat/", f"/t/{SLUG}/pods/", f"/t/{SLUG}/pods/1/"]
    # Several each, so both gunicorn workers (each with its persistent connection) answer.
    return {f"{path} #{i}": visitor.send(path)[0] for path in paths for i in range(3)}


def table_results(site: Site) -> int:
    """Versions stored for round 2, pod 1, table 1 of the qualifying stage."""
    return site.cluster.query(
        """SELECT count(*) FROM scoring_tableresult r
           JOIN tournaments_round ro ON ro.id = r.round_id
           JOIN tournaments_pod p ON p.id = r.pod_id
           JOIN tournaments_stage s ON s.id = ro.stage_id
           JOIN tournaments_tournament t ON t.id = s.tournament_id
           WHERE t.slug = %s AND s.kind = 'qualifying' AND ro.number = 2 AND p.number = 1
             AND r."table" = 1""",
        SLUG,
    )[0][0]


def test_the_site_answers_a_postgres_restart_and_an_outage_without_restarting(site):
    staff = Visitor(site.base)
    staff.log_in(f"{SLUG}-staff1", STAFF_PASSWORD)
    assert set(pages(staff).values()) == {200}
    workers = site.worker_pids()

    # A restart between requests: each worker's persistent connection is dead; the health
    # check replaces it on the next request.
    site.cluster.pg_ctl("restart", "-m", "fast")
    assert set(pages(staff).values()) == {200}, site.log.read_text()[-3000:]

    # Stopped: every request fails cleanly, and a result sent meanwhile is not stored.
    entry = f"/t/{SLUG}/pods/1/round/2/table/1/"
    assert table_results(site) == 0
    site.cluster.pg_ctl("stop", "-m", "fast")
    try:
        for path in ["/", f"/t/{SLUG}/seat/", f"/t/{SLUG}/pods/1/"]:
            for visitor in (Visitor(site.base), staff):
                status, headers, body = visitor.send(path)
                assert status == 503 and MESSAGE in body and "Traceback" not in body, body
                assert headers["Retry-After"] == "5"
        status, headers, body = staff.send(f"/t/{SLUG}/seat/", headers=HTMX)
        assert status == 503 and headers["HX-Trigger"] == HTMX_EVENT
        assert re.fullmatch(r'\s*<div class="alert[^>]*>[^<]*</div>\s*', body), body
        status, _, body = staff.send(entry, {"winner": "0", "base_version": "0"})
        assert status == 503 and MESSAGE in body
    finally:
        site.cluster.pg_ctl("start")

    assert table_results(site) == 0
    assert set(pages(staff).values()) == {200}, site.log.read_text()[-3000:]
    status, headers, _ = staff.send(entry, {"winner": "0", "base_version": "0"})
    assert status == 302 and headers["Location"].startswith(f"/t/{SLUG}/pods/1/")
    assert table_results(site) == 1
    # The same two gunicorn workers served it all: nothing was restarted.
    assert site.worker_pids() == workers and site.process.poll() is None
