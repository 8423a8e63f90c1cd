"""Event night under the whole room's load: two gunicorn instances, a Celery worker, PostgreSQL
and Redis, driven through the real pages for a bounded time, then every accepted result is
checked in the database.

Run from the repository root: `make bench-event-night` (or `python bench/event_night.py`). It
needs a PostgreSQL server (--pg, user with CREATEDB) and a Redis server (--redis, one database
it may flush); it creates and finally drops its own database, so nothing else is touched.

1. Creates the database, migrates, collects static files into a temporary data folder.
2. Rehearses a 600-player event through the services up to the end of round --round - 1,
   rings the bell for round --round, creates the staff accounts (two staff per pod, so two
   phones sometimes save the same table at once) and an admin, through the services.
3. Starts two gunicorn instances on two 127.0.0.1 ports and one Celery worker; every
   process shares the database, Redis and the data folder, and nothing else.
4. For --duration seconds: each staff client (its own session, each request to the other
   instance in turn) walks to a table (--walk), opens its form, fills it in (--fill), posts a
   result or a correction with the version the form showed, follows the redirect; the seat
   finder phones search a name or code every 2-5 s as the page's htmx does; the projectors
   poll `board/live/` every 5 s, each for its share of the pods; the admin asks for the
   pre-event packet, polls it every second to completion, downloads it, and again.
5. Prints requests/s, p50/p95/p99 per page, errors by type (any 5xx, unexpected status or
   connection error; a save refused as stale is counted apart, it is the site working), the
   printout times, where the CPU went (the site, PostgreSQL, the worker, the clients, and
   anything else running on the machine), and checks the database against the clients'
   ledger: every accepted save stored exactly once with the version the form implied, no
   refused save stored, each table's versions 1..n chained with one current. Exits 1 on any
   error, loss or duplicate.

Processes are stopped (also on Ctrl-C) and the database dropped on the way out. Clients are
threads on `http.client` from the standard library, mostly asleep, so the two cores go to
the site; they still share the machine, so the figures are the whole room on one laptop.
"""

from __future__ import annotations

import argparse
import datetime
import html
import http.client
import math
import os
import platform
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from itertools import pairwise
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SLUG = "event-night"
TIMEOUT = 30  # seconds a client waits for an answer before it counts a connection error
SAVE_PAGE = "result save"
TARGET_P95_MS = 300
# What the table page says when a save lost the race: the two-staff conflict, or the unique
# constraint when both reached the database together.
STALE = re.compile(r'id="conflict"|at the same moment|changed meanwhile')
CONFLICT = 409  # a stale save may also be answered so: still the site working


# --- the machine and the commit -------------------------------------------------------------


def machine() -> dict[str, str]:
    def first(path: str, key: str) -> str:
        with open(path) as handle:
            for line in handle:
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
        return "?"

    ram_kib = int(first("/proc/meminfo", "MemTotal").split()[0])
    commit = git("rev-parse", "--short", "HEAD")
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += " + uncommitted changes"
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": (
            f"{platform.machine()}, {len(os.sched_getaffinity(0))} CPUs "
            f"({first('/proc/cpuinfo', 'model name')}), {ram_kib / 2**20:.1f} GiB RAM"
        ),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "commit": commit,
    }


def git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# --- processes, database and Redis --------------------------------------------------------------


class Processes:
    """Every server this run starts, each in its own process group, stopped on the way out."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - the child keeps it open
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.started.append((name, process))

    def check_alive(self) -> None:
        for name, process in self.started:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}:\n{self.tail(name)}")

    def tail(self, name: str, lines: int = 30) -> str:
        path = self.logs / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        for _, process in self.started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for _, process in self.started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.started.clear()


# --- where the CPU went ---------------------------------------------------------------------


def process_cpu() -> dict[int, tuple[int, float]]:
    """{pid: (process group, CPU seconds used so far)} for every process on the machine."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        found[int(stat.parent.name)] = (int(fields[2]), (int(fields[11]) + int(fields[12])) / ticks)
    return found


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy since it booted (all cores)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


@dataclass
class CpuShare:
    """Core-seconds used during the load: by the web processes, the worker, this database's
    PostgreSQL backends, the clients, and everything else on the machine (other people's
    work on a shared machine shows up there, and slows every figure)."""

    web: float
    worker: float
    database: float
    clients: float
    machine: float

    @property
    def others(self) -> float:
        return max(0.0, self.machine - self.web - self.worker - self.database - self.clients)


class CpuMeter:
    def __init__(self, processes: Processes, backends: Callable[[], set[int]]) -> None:
        self.processes = processes
        self.backends = backends

    def snapshot(self) -> tuple[dict[int, tuple[int, float]], set[int], float, float]:
        return process_cpu(), self.backends(), time.process_time(), machine_busy()

    def share(self, before, after) -> CpuShare:
        (cpu0, pg0, own0, busy0), (cpu1, pg1, own1, busy1) = before, after
        groups = {name: process.pid for name, process in self.processes.started}

        def used(pids) -> float:
            return sum(cpu1[p][1] - cpu0.get(p, (0, 0.0))[1] for p in pids if p in cpu1)

        def group(prefix: str) -> float:
            wanted = {pgid for name, pgid in groups.items() if name.startswith(prefix)}
            return used(p for p, (pgid, _) in cpu1.items() if pgid in wanted)

        return CpuShare(
            web=group("gunicorn"),
            worker=group("celery"),
            database=used(pg0 | pg1),
            clients=own1 - own0,
            machine=busy1 - busy0,
        )


def admin_connection(pg: str):
    import psycopg

    return psycopg.connect(f"{pg.rstrip('/')}/postgres", autocommit=True)


def create_database(pg: str, name: str) -> None:
    with admin_connection(pg) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(pg: str, name: str) -> None:
    with admin_connection(pg) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def backends(pg: str, name: str) -> set[int]:
    """The PostgreSQL server processes serving this run's database."""
    with admin_connection(pg) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [name])
        return {pid for (pid,) in rows}


def flush_redis(url: str) -> None:
    """Empties this run's Redis database only (never FLUSHALL): leftover tasks of an earlier,
    interrupted run must not reach this run's worker."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


def wait_until_serving(port: int, processes: Processes, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        processes.check_alive()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", "/accounts/login/")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        finally:
            conn.close()
        if time.monotonic() > deadline:
            raise RuntimeError(f"Nothing answered on port {port} within {seconds:.0f} s")
        time.sleep(0.3)


# --- the event --------------------------------------------------------------------------------


@dataclass
class Event:
    round_number: int
    tables: int  # per pod
    pods_of: dict[str, list[int]]  # staff username -> pod numbers
    passwords: dict[str, str]
    admin: str
    searches: list[str]  # names and codes players type into the seat finder
    pods: int


def prepare_event(players: int, preset: str, seed: int, round_number: int, staff: int) -> Event:
    """The rehearsal up to the round before, the bell for this round, and the accounts, all
    through the services the pages use."""
    from tournaments.models import Player, Stage, UserProfile
    from tournaments.services import accounts, rounds, stages
    from tournaments.services.rehearsal import rehearse

    rehearsal = rehearse(
        players=players, preset=preset, seed=seed, slug=SLUG, stop_after_round=round_number - 1
    )
    tournament = rehearsal.tournament
    organiser = tournament.created_by
    stage = tournament.stages.get(kind=Stage.Kind.QUALIFYING)
    if round_number > stage.round_count:
        raise SystemExit(f"--round must be at most {stage.round_count} for this preset")
    current = rounds.start_next_round(stage, actor=organiser)
    assert current.number == round_number

    passwords: dict[str, str] = {}
    users = []
    for i in range(1, staff + 1):
        user, password = accounts.create_account(
            tournament,
            username=f"staff{i:02}",
            full_name=f"Staff {i}",
            role="staff",
            actor=organiser,
        )
        users.append(user)
        passwords[user.username] = password
    admin, passwords["admin"] = accounts.create_account(
        tournament, username="admin", full_name="Prize Admin", role="admin", actor=organiser
    )
    # The accounts chose their own passwords before the doors opened (a password change is
    # two more slow hashes per account, which the evening itself never sees).
    UserProfile.objects.filter(user__in=[*users, admin]).update(must_change_password=False)

    pods = list(stage.pods.order_by("number"))
    pods_of: dict[str, list[int]] = defaultdict(list)
    for i, pod in enumerate(pods):
        team = sorted({users[i % staff], users[(i + 1) % staff]}, key=lambda u: u.username)
        stages.assign_staff(pod, team, actor=organiser)
        for user in team:
            pods_of[user.username].append(pod.number)

    rng = random.Random(seed)
    registered = list(Player.objects.filter(tournament=tournament).values_list("name", "code"))
    searches = [name if rng.random() < 0.7 else code for name, code in registered]
    return Event(
        round_number=round_number,
        tables=pods[0].tables,
        pods_of=dict(pods_of),
        passwords=passwords,
        admin=admin.username,
        searches=searches,
        pods=len(pods),
    )


# --- measuring ----------------------------------------------------------------------------------


@dataclass
class Stats:
    """Latencies per page and problems by kind, shared by every client thread."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    stale: int = 0

    def record(self, page: str, seconds: float) -> None:
        with self.lock:
            self.latencies[page].append(seconds)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors[what] += 1

    def count_stale(self) -> None:
        with self.lock:
            self.stale += 1

    @property
    def requests(self) -> int:
        return sum(map(len, self.latencies.values()))


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile: a value some request really took."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


@dataclass
class Save:
    """One post of a table's result, as the client saw it."""

    pod: int
    table: int
    base: int
    winner: int
    note: str  # unique per post: how the database check finds the row


@dataclass
class Ledger:
    lock: threading.Lock = field(default_factory=threading.Lock)
    accepted: list[Save] = field(default_factory=list)
    refused: list[Save] = field(default_factory=list)

    def add(self, save: Save, accepted: bool) -> None:
        with self.lock:
            (self.accepted if accepted else self.refused).append(save)


# --- a client -------------------------------------------------------------------------------


class FormInputs(HTMLParser):
    """Every named input (and its value) inside the form with `form_id`, or the whole page."""

    def __init__(self, form_id: str | None) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = form_id is None
        self.values: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and self.form_id is not None:
            self.inside = attributes.get("id") == self.form_id
        elif tag == "input" and self.inside and attributes.get("name"):
            self.values[attributes["name"]] = attributes.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form" and self.form_id is not None:
            self.inside = False


def form_inputs(page: str, form_id: str | None = None) -> dict[str, str]:
    parser = FormInputs(form_id)
    parser.feed(page)
    return parser.values


@dataclass
class Response:
    status: int
    body: str
    location: str


class Client:
    """One phone or browser: its own cookies, each request to the next instance in turn."""

    def __init__(self, ports: list[int], stats: Stats, first: int = 0) -> None:
        self.ports = ports
        self.turn = first
        self.stats = stats
        self.cookies: dict[str, str] = {}

    def request(
        self, page: str, method: str, path: str, form: dict | None = None, htmx: bool = False
    ) -> Response | None:
        """The response, or None after counting a connection error or an unexpected status.

        A new connection per request, as a phone on the venue's Wi-Fi often makes; no
        keep-alive race decides whether a request counts as an error.
        """
        port = self.ports[self.turn % len(self.ports)]
        self.turn += 1
        headers = {"Host": f"127.0.0.1:{port}", "Connection": "close"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        body = None
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        start = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            raw = conn.getresponse()
            content = raw.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as exc:
            self.stats.error(f"{page}: {type(exc).__name__}")
            return None
        finally:
            conn.close()
        self.stats.record(page, time.perf_counter() - start)
        for header in raw.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        if raw.status >= 400 and raw.status != CONFLICT:
            self.stats.error(f"{page}: HTTP {raw.status}")
            return None
        return Response(raw.status, content, raw.headers.get("Location", ""))

    def get(self, page: str, path: str, htmx: bool = False) -> Response | None:
        return self.request(page, "GET", path, htmx=htmx)

    def log_in(self, username: str, password: str) -> bool:
        page = self.get("login", "/accounts/login/")
        if page is None:
            return False
        form = form_inputs(page.body)
        form.update(username=username, password=password)
        answer = self.request("login", "POST", "/accounts/login/", form)
        if answer is None or answer.status != 302:
            self.stats.error("login: refused")
            return False
        return True


def first_error(page: str) -> str:
    """The first message a refused form shows, for the error count."""
    found = re.search(r'id="form-errors"><div>([^<]+)<|class="text-danger[^"]*">([^<]+)<', page)
    return html.unescape(found.group(1) or found.group(2)) if found else "no message shown"


def pause(low: float, high: float, until: float, rng: random.Random) -> bool:
    """Thinks for a while; False once the load's time is up."""
    time.sleep(max(0.0, min(rng.uniform(low, high), until - time.monotonic())))
    return time.monotonic() < until


# --- the room -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pace:
    """Seconds a staff member spends walking to the next table (from the pod page to a
    table's form) and filling in the form (from the form to tapping the winner)."""

    walk: tuple[float, float]
    fill: tuple[float, float]


def staff_phone(
    client: Client,
    event: Event,
    pods: list[int],
    name: str,
    until: float,
    ledger: Ledger,
    pace: Pace,
) -> None:
    """Walks to a table of one of its pods, opens its form, fills it in, taps the winner (a
    correction when the table already has a result), follows the redirect back to the pod."""
    rng = random.Random(name)
    sent = 0
    while pause(*pace.walk, until, rng):
        pod, table = rng.choice(pods), rng.randint(1, event.tables)
        url = f"/t/{SLUG}/pods/{pod}/round/{event.round_number}/table/{table}/"
        form_page = client.get("result form", url)
        if form_page is None:
            continue
        form = form_inputs(form_page.body, "result-form")
        if "base_version" not in form:
            client.stats.error("result form: no form on the page")
            continue
        if not pause(*pace.fill, until, rng):
            break
        sent += 1
        base = int(form["base_version"])
        save = Save(pod, table, base, rng.randint(0, 1), f"bench {name} #{sent}")
        post = {k: v for k, v in form.items() if k in ("csrfmiddlewaretoken", "base_version")}
        high, low = rng.randint(21, 60), rng.randint(0, 20)
        post.update(
            winner=save.winner,
            points_13=high if save.winner == 0 else low,
            points_24=low if save.winner == 0 else high,
            reason=save.note,
        )
        rollers = [k for k in form if k.startswith("buncos_")]
        if rollers and rng.random() < 0.3:
            post[rng.choice(rollers)] = 1
        answer = client.request(SAVE_PAGE, "POST", url, post)
        if answer is None:
            continue
        if answer.status == 302:
            ledger.add(save, accepted=True)
            client.get("pod page", urlsplit(answer.location).path or url)
        elif answer.status == CONFLICT or STALE.search(answer.body):
            ledger.add(save, accepted=False)
            client.stats.count_stale()
        else:
            client.stats.error(f"{SAVE_PAGE}: refused ({first_error(answer.body)})")


def seat_finder(client: Client, event: Event, name: str, until: float) -> None:
    """A player's phone: the page once, then a name or code typed every 2-5 s (htmx)."""
    rng = random.Random(name)
    client.get("seat finder page", f"/t/{SLUG}/seat/")
    while pause(2.0, 5.0, until, rng):
        query = urlencode({"q": rng.choice(event.searches)})
        client.get("seat finder search", f"/t/{SLUG}/seat/?{query}", htmx=True)


def projector(client: Client, event: Event, name: str, until: float, pods: str) -> None:
    """The board once, then its live part every 5 s as htmx polls it."""
    rng = random.Random(name)
    query = f"?{urlencode({'pods': pods})}" if pods else ""
    client.get("board page", f"/t/{SLUG}/board/{query}")
    while pause(4.5, 5.5, until, rng):
        client.get("board live", f"/t/{SLUG}/board/live/{query}", htmx=True)


@dataclass
class PrintRun:
    seconds: float
    status: str
    pages: str


def admin_desk(client: Client, until: float, runs: list[PrintRun], stats: Stats) -> None:
    """Asks for the pre-event packet, polls its row every second until it is made, downloads
    it; again after a pause while the load lasts."""
    rng = random.Random("admin")
    base = f"/t/{SLUG}/manage/printouts/"
    while pause(3.0, 6.0, until, rng):
        page = client.get("printouts page", base)
        if page is None:
            continue
        form = form_inputs(page.body)
        post = {
            "csrfmiddlewaretoken": form.get("csrfmiddlewaretoken", ""),
            "kind": "packet",
            "stage": "qualifying",
            "pod": "",
            "pagesize": "letter",
        }
        start = time.monotonic()
        answer = client.request("printout request", "POST", base, post)
        found = re.search(r"#printout-(\d+)", answer.location) if answer else None
        if found is None:
            stats.error("printout request: no printout made")
            continue
        pk = found.group(1)
        client.get("printouts page", urlsplit(answer.location).path)
        status, row = "queued", ""
        while status not in ("done", "failed") and time.monotonic() < start + 120:
            time.sleep(1)
            reply = client.get("printout status", f"{base}{pk}/status/", htmx=True)
            if reply is not None:
                row = reply.body
                status = re.search(r'data-status="(\w+)"', row).group(1)
        seconds = time.monotonic() - start
        pages = re.search(r"(\d+) pages?", row)
        runs.append(PrintRun(seconds, status, pages.group(1) if pages else "?"))
        if status != "done":
            stats.error(f"printout: {status} after {seconds:.0f} s")
            continue
        pdf = client.get("printout download", f"{base}{pk}/download/")
        if pdf is not None and not pdf.body.startswith("%PDF"):
            stats.error("printout download: not a PDF")


# --- the database check ----------------------------------------------------------------------


@dataclass
class Check:
    accepted: int = 0
    refused: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # stored, but not as the client was told
    unacknowledged: list[str] = field(default_factory=list)  # stored, client saw no answer
    tables: int = 0
    versions: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.lost or self.duplicated or self.wrong)


def check_database(event: Event, ledger: Ledger) -> Check:
    """The clients' ledger against TableResult: each accepted save is exactly one row with the
    version the form implied (base + 1) and its winner; no refused save has a row; each
    table's versions run 1..n, each superseding the one before, with only the last current."""
    from scoring.models import TableResult

    rows = list(
        TableResult.objects.filter(
            round__stage__tournament__slug=SLUG, round__number=event.round_number
        ).values(
            "pk",
            "pod__number",
            "table",
            "version",
            "is_current",
            "winner",
            "reason",
            "supersedes_id",
        )
    )
    check = Check(accepted=len(ledger.accepted), refused=len(ledger.refused), versions=len(rows))
    by_note: dict[str, list[dict]] = defaultdict(list)
    by_table: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for row in rows:
        by_note[row["reason"]].append(row)
        by_table[(row["pod__number"], row["table"])].append(row)
    for save in ledger.accepted:
        found = by_note.pop(save.note, [])
        if not found:
            check.lost.append(save.note)
        elif len(found) > 1:
            check.duplicated.append(save.note)
        elif (
            found[0]["pod__number"],
            found[0]["table"],
            found[0]["version"],
            found[0]["winner"],
        ) != (save.pod, save.table, save.base + 1, save.winner):
            check.wrong.append(f"{save.note}: stored as {found[0]}")
    for save in ledger.refused:
        if by_note.pop(save.note, []):
            check.duplicated.append(f"{save.note} (refused as stale, yet stored)")
    check.unacknowledged = sorted(note for note in by_note if note.startswith("bench "))
    for (pod, table), versions in sorted(by_table.items()):
        versions.sort(key=lambda row: row["version"])
        numbers = [row["version"] for row in versions]
        chained = all(b["supersedes_id"] == a["pk"] for a, b in pairwise(versions))
        current = [row["version"] for row in versions if row["is_current"]]
        if numbers != list(range(1, len(versions) + 1)) or not chained or current != numbers[-1:]:
            check.duplicated.append(
                f"pod {pod} table {table}: versions {numbers}, current {current}"
            )
    check.tables = len(by_table)
    return check


# --- the run ----------------------------------------------------------------------------------


@contextmanager
def stopped_on_signals() -> Iterator[None]:
    """Ctrl-C or a kill of the bench still stops the servers and drops the database (SIGINT
    too is set here: a shell starting the bench in the background leaves it ignored)."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def timed(label: str, action: Callable[[], object]) -> object:
    start = time.perf_counter()
    result = action()
    print(f"  {label:<46}{time.perf_counter() - start:>7.1f} s", flush=True)
    return result


def site_env(args: argparse.Namespace, data: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bunco_site.settings",
        "DATABASE_URL": f"{args.pg.rstrip('/')}/{args.database}",
        "REDIS_URL": args.redis,
        "BUNCO_DATA_DIR": str(data),
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": f"http://127.0.0.1:{args.port}",
    }
    for name in ("STATIC_ROOT", "MEDIA_ROOT", "BUNCO_HTTPS", "BUNCO_PLAIN_STATIC"):
        env.pop(name, None)
    return env


def start_site(args: argparse.Namespace, env: dict, processes: Processes) -> list[int]:
    ports = [args.port + i for i in range(args.instances)]
    bin_dir = Path(sys.executable).parent
    for port in ports:
        processes.start(
            f"gunicorn-{port}",
            [
                str(bin_dir / "gunicorn"),
                "bunco_site.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--worker-class",
                "gthread",
                "--workers",
                str(args.workers),
                "--threads",
                str(args.threads),
                "--timeout",
                "60",
            ],
            env,
        )
    processes.start(
        "celery-worker",
        [
            str(bin_dir / "celery"),
            "-A",
            "bunco_site",
            "worker",
            "--loglevel",
            "WARNING",
            "--concurrency",
            "1",
            "--without-gossip",
            "--without-mingle",
        ],
        env,
    )
    for port in ports:
        wait_until_serving(port, processes)
    return ports


@dataclass
class Outcome:
    stats: Stats
    ledger: Ledger
    prints: list[PrintRun]
    elapsed: float
    cpu: CpuShare


def drive(args: argparse.Namespace, event: Event, ports: list[int], meter: CpuMeter) -> Outcome:
    """Logs everyone in, then lets the room loose for --duration seconds."""
    stats, warm_up, ledger, runs = Stats(), Stats(), Ledger(), []
    pace = Pace(walk=tuple(args.walk), fill=tuple(args.fill))
    staff = {name: Client(ports, stats, i) for i, name in enumerate(sorted(event.pods_of))}
    admin = Client(ports, stats, 1)
    people = [*staff.items(), (event.admin, admin)]
    # Logging in is one slow password hash each: done before the clock starts, as many at
    # once as there are worker processes (more would only queue, and time out on a busy box).
    for _, client in people:
        client.stats = warm_up
    with ThreadPoolExecutor(max_workers=len(ports) * args.workers) as pool:
        list(
            pool.map(lambda person: person[1].log_in(person[0], event.passwords[person[0]]), people)
        )
    for _, client in people:
        client.stats = stats
    if warm_up.errors:
        raise RuntimeError(f"Logging in failed: {dict(warm_up.errors)}")
    login = warm_up.latencies["login"]
    print(f"  {len(people)} logins, p50 {percentile(login, 50) * 1000:.0f} ms", flush=True)

    print(f"  load average before the load: {os.getloadavg()[0]:.2f}", flush=True)
    before = meter.snapshot()
    start = time.monotonic()
    until = start + args.duration
    threads = [
        threading.Thread(
            target=staff_phone,
            args=(c, event, event.pods_of[n], n, until, ledger, pace),
            daemon=True,
        )
        for n, c in staff.items()
    ]
    threads.append(
        threading.Thread(target=admin_desk, args=(admin, until, runs, stats), daemon=True)
    )
    for i in range(args.finders):
        client = Client(ports, stats, i)
        threads.append(
            threading.Thread(
                target=seat_finder, args=(client, event, f"finder{i}", until), daemon=True
            )
        )
    # One projector shows every pod; several share them out (`?pods=1-10`), as the board
    # suggests for a big room.
    span = -(-event.pods // args.boards) if args.boards else 0
    for i in range(args.boards):
        low = i * span % event.pods + 1
        pods = f"{low}-{min(low + span - 1, event.pods)}" if args.boards > 1 else ""
        client = Client(ports, stats, i)
        threads.append(
            threading.Thread(
                target=projector, args=(client, event, f"board{i}", until, pods), daemon=True
            )
        )
    for thread in threads:
        thread.start()
        time.sleep(0.5 / len(threads))  # doors open over half a second, not in one instant
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    cpu = meter.share(before, meter.snapshot())
    print(f"  load average at the end: {os.getloadavg()[0]:.2f}", flush=True)
    return Outcome(stats, ledger, runs, elapsed, cpu)


def report(outcome: Outcome) -> None:
    stats, ledger, elapsed, cpu = outcome.stats, outcome.ledger, outcome.elapsed, outcome.cpu
    print(
        f"\nload: {stats.requests:,} requests in {elapsed:.1f} s = "
        f"{stats.requests / elapsed:.1f} requests/s"
    )
    print(f"  {'page':<22}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for page, values in sorted(stats.latencies.items()):
        ms = [v * 1000 for v in values]
        print(
            f"  {page:<22}{len(ms):>9,}{percentile(ms, 50):>9.0f}{percentile(ms, 95):>9.0f}"
            f"{percentile(ms, 99):>9.0f}{max(ms):>9.0f}"
        )
    firsts = sum(1 for save in ledger.accepted if save.base == 0)
    print(
        f"saves: {len(ledger.accepted)} accepted ({firsts} first entries, "
        f"{len(ledger.accepted) - firsts} corrections), {stats.stale} refused as stale "
        "(another staff member saved the table first: not an error)"
    )
    print(f"errors: {sum(stats.errors.values())}")
    for what, count in stats.errors.most_common():
        print(f"  {count:>6}  {what}")
    for run in outcome.prints:
        print(f"printout: pre-event packet {run.status} in {run.seconds:.1f} s ({run.pages} pages)")
    if not outcome.prints:
        print("printout: none finished")
    cores = len(os.sched_getaffinity(0))
    print(
        f"CPU during the load, core-seconds ({cores} cores x {elapsed:.0f} s = "
        f"{cores * elapsed:.0f}): web "
        f"{cpu.web:.0f} ({cpu.web / stats.requests * 1000:.0f} ms per request), PostgreSQL "
        f"{cpu.database:.0f}, Celery {cpu.worker:.0f}, clients {cpu.clients:.0f}, "
        f"everything else on the machine {cpu.others:.0f}"
    )
    if cpu.others > 0.2 * cores * elapsed:
        print(
            "  the machine was busy with other work during the load: the latencies above are "
            "slower than this site alone would be"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60, help="seconds of load (60)")
    parser.add_argument("--players", type=int, default=600)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--round", type=int, default=3, help="the round being entered (3)")
    parser.add_argument("--staff", type=int, default=50)
    for option, default, what in (
        ("--walk", (3.0, 8.0), "from a staff member's pod page to the next table's form"),
        ("--fill", (0.5, 2.0), "from opening a table's form to tapping the winner"),
    ):
        parser.add_argument(
            option,
            type=float,
            nargs=2,
            default=default,
            metavar=("LOW", "HIGH"),
            help=f"seconds {what} ({default[0]:g} {default[1]:g})",
        )
    parser.add_argument("--finders", type=int, default=95, help="seat finder phones (95)")
    parser.add_argument("--boards", type=int, default=5, help="projectors on the board (5)")
    parser.add_argument("--instances", type=int, default=2, help="gunicorn instances (2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers each (2)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (4)")
    parser.add_argument("--port", type=int, default=8101, help="first instance's port")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="bench_event_night")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    parser.add_argument("--keep-logs", type=Path, help="copy the servers' logs here")
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database):
        parser.error("--database: lower-case letters, digits and underscores only")
    if args.round < 1 or args.staff < 1 or args.duration <= 0:
        parser.error("--round and --staff must be at least 1, --duration above 0")

    about = machine()
    print(f"date:    {about['date']}\nmachine: {about['machine']}")
    print(f"python:  {about['python']}\ncommit:  {about['commit']}")
    print(
        f"event:   {args.players} players, round {args.round} open; {args.staff} staff, "
        f"{args.finders} seat finders, {args.boards} projectors, 1 admin; {args.duration:.0f} s"
    )
    print(
        f"pace:    staff walk {args.walk[0]:g}-{args.walk[1]:g} s to a table, fill its form in "
        f"{args.fill[0]:g}-{args.fill[1]:g} s; seat finders every 2-5 s, boards every 5 s"
    )
    print(
        f"site:    {args.instances} gunicorn instances x {args.workers} gthread workers x "
        f"{args.threads} threads, 1 Celery worker; PostgreSQL {args.database}, Redis {args.redis}"
    )
    data = Path(tempfile.mkdtemp(prefix="bunco-event-night-"))
    env = site_env(args, data)
    os.environ.update(env)
    processes = Processes(data)
    created = False
    try:
        with stopped_on_signals():
            print("\nsetting up:")
            timed("database", lambda: create_database(args.pg, args.database))
            created = True
            flush_redis(args.redis)
            manage = [sys.executable, "manage.py"]
            timed(
                "migrate", lambda: subprocess.run([*manage, "migrate", "-v0"], env=env, check=True)
            )
            timed(
                "collectstatic",
                lambda: subprocess.run(
                    [*manage, "collectstatic", "--noinput", "-v0"], env=env, check=True
                ),
            )
            import django

            django.setup()
            event = timed(
                f"rehearse {args.players} players to round {args.round - 1}, accounts",
                lambda: prepare_event(args.players, args.preset, args.seed, args.round, args.staff),
            )
            from django.db import connections

            connections.close_all()
            ports = timed("start gunicorn and Celery", lambda: start_site(args, env, processes))
            print(f"  instances on ports {', '.join(map(str, ports))}")
            meter = CpuMeter(processes, lambda: backends(args.pg, args.database))
            outcome = drive(args, event, ports, meter)
            report(outcome)
            stats, ledger = outcome.stats, outcome.ledger
            check = check_database(event, ledger)
            print(
                f"database: {check.versions} result versions over {check.tables} tables; "
                f"{check.accepted} accepted saves, lost {len(check.lost)}, "
                f"duplicated {len(check.duplicated)}, stored otherwise {len(check.wrong)}, "
                f"stored without an answer {len(check.unacknowledged)}"
            )
            for problem in (check.lost + check.duplicated + check.wrong)[:20]:
                print(f"  {problem}")
            saves = stats.latencies.get(SAVE_PAGE, [])
            p95 = percentile(saves, 95) * 1000 if saves else float("inf")
            print(f"result save p95: {p95:.0f} ms (target < {TARGET_P95_MS})")
            failed = bool(stats.errors) or check.failed
            if stats.errors:
                for name, _ in processes.started:
                    print(f"\n--- last lines of {name}.log ---\n{processes.tail(name)}")
            if args.keep_logs:
                args.keep_logs.mkdir(parents=True, exist_ok=True)
                for log in data.glob("*.log"):
                    shutil.copy(log, args.keep_logs)
            print("\nFAILED" if failed else "\nno errors, nothing lost, nothing duplicated")
            return 1 if failed else 0
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the servers and dropping the database")
        return 130
    finally:
        processes.stop()
        if created:
            from django.db import connections

            connections.close_all()
            drop_database(args.pg, args.database)
            flush_redis(args.redis)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
