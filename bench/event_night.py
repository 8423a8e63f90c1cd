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
   result or a correction with the version the form showed, follows the redirect, and while
   walking to the next table its pod page asks for the count every 2 s and fetches its live
   part again whenever the count moved (conditionally), as static/js/live.js does; the seat
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

This module starts, drives and reports a run; the processes and databases are `night_machine`,
the clients and their counters `night_client`, the people in the room and the database check
`night_room` (the `floor` and `dropout` benches share them).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.night_client import SAVE_PAGE, Client, Ledger, Stats, percentile  # noqa: E402
from bench.night_machine import (  # noqa: E402
    CpuMeter,
    CpuShare,
    Processes,
    backends,
    create_database,
    drop_database,
    flush_redis,
    print_machine,
    wait_until_serving,
)
from bench.night_room import (  # noqa: E402
    Event,
    Pace,
    PrintRun,
    admin_desk,
    check_database,
    prepare_event,
    projector,
    seat_finder,
    staff_phone,
)

if TYPE_CHECKING:
    from dropout import DropOut

# The result save's targets, ms: (p95, p99) in the default room, p95 alone in a bigger one.
DEFAULT_ROOM_PLAYERS = 600
TARGETS_MS = {"default": (300, 600), "bigger": (1000, None)}


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


def set_up(args: argparse.Namespace, env: dict[str, str]) -> Event:
    """This run's database created and migrated, its Redis database emptied, static files
    collected into its data folder, the room rehearsed (Django set up in this process)."""
    timed("database", lambda: create_database(args.pg, args.database))
    flush_redis(args.redis)
    manage = [sys.executable, "manage.py"]
    timed("migrate", lambda: subprocess.run([*manage, "migrate", "-v0"], env=env, check=True))
    timed(
        "collectstatic",
        lambda: subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=env, check=True),
    )
    import django
    from django.db import connections

    django.setup()
    event = timed(
        f"rehearse {args.players} players to round {args.round - 1}, accounts",
        lambda: prepare_event(args.players, args.preset, args.seed, args.round, args.staff),
    )
    connections.close_all()
    return event


def tear_down(args: argparse.Namespace, processes: Processes, data: Path, created: bool) -> None:
    """Servers stopped, then this run's database dropped and its Redis database emptied."""
    processes.stop()
    if created:
        from django.db import connections

        connections.close_all()
        drop_database(args.pg, args.database)
        flush_redis(args.redis)
    shutil.rmtree(data, ignore_errors=True)


@dataclass
class Run:
    """What a bench's body gets: the rehearsed room, the site's environment, its processes
    and the run's data folder."""

    event: Event
    env: dict[str, str]
    processes: Processes
    data: Path


def run_bench(
    args: argparse.Namespace, prefix: str, body: Callable[[Run], int], settings: str = ""
) -> int:
    """Sets the room up (with `settings` as the site's settings module, if given), runs
    `body`, and whatever happens (an error, Ctrl-C, a signal) stops the servers and drops the
    database on the way out. Returns `body`'s exit status, 130 when interrupted."""
    data = Path(tempfile.mkdtemp(prefix=prefix))
    env = site_env(args, data)
    if settings:
        env["DJANGO_SETTINGS_MODULE"] = settings
    os.environ.update(env)
    processes = Processes(data)
    created = False
    try:
        with stopped_on_signals():
            print("\nsetting up:")
            created = True  # from here on the database is dropped on the way out
            return body(Run(set_up(args, env), env, processes, data))
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the servers and dropping the database")
        return 130
    finally:
        tear_down(args, processes, data, created)


def start_gunicorn(args: argparse.Namespace, env: dict, processes: Processes) -> list[int]:
    """The site's gunicorn instances as deployed (bench/floor.py serves on the same ones)."""
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
    for port in ports:
        wait_until_serving(port, processes)
    return ports


def start_site(args: argparse.Namespace, env: dict, processes: Processes) -> list[int]:
    ports = start_gunicorn(args, env, processes)
    processes.start(
        "celery-worker",
        [
            str(Path(sys.executable).parent / "celery"),
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
    return ports


@dataclass
class Outcome:
    stats: Stats
    ledger: Ledger
    prints: list[PrintRun]
    elapsed: float
    cpu: CpuShare
    dropout: DropOut | None = None


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
    if args.drop_out:
        from dropout import DropOut  # it imports this module: not at the top

        dropout = DropOut.mid_round(start, args.duration)
    else:
        dropout = None
    threads = [
        threading.Thread(
            # --drop-out: every third phone loses the network mid-round (bench/dropout.py).
            target=dropout.phone if dropout and i % 3 == 0 else staff_phone,
            args=(c, event, event.pods_of[n], n, until, ledger, pace),
            daemon=True,
        )
        for i, (n, c) in enumerate(staff.items())
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
    return Outcome(stats, ledger, runs, elapsed, cpu, dropout)


def report(outcome: Outcome) -> None:
    stats, ledger, elapsed, cpu = outcome.stats, outcome.ledger, outcome.elapsed, outcome.cpu
    print(
        f"\nload: {stats.requests:,} requests in {elapsed:.1f} s = "
        f"{stats.requests / elapsed:.1f} requests/s"
    )
    print(
        f"  {'page':<22}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'304':>9}"
    )
    for page, values in sorted(stats.latencies.items()):
        ms = [v * 1000 for v in values]
        print(
            f"  {page:<22}{len(ms):>9,}{percentile(ms, 50):>9.0f}{percentile(ms, 95):>9.0f}"
            f"{percentile(ms, 99):>9.0f}{max(ms):>9.0f}{stats.not_modified[page]:>9,}"
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
    if outcome.dropout:
        outcome.dropout.report()
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
    parser.add_argument(
        "--drop-out",
        action="store_true",
        help="a third of the staff phones lose the network for 20 s mid-round and replay "
        "their queues (bench/dropout.py)",
    )
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database):
        parser.error("--database: lower-case letters, digits and underscores only")
    if args.round < 1 or args.staff < 1 or args.duration <= 0:
        parser.error("--round and --staff must be at least 1, --duration above 0")

    print_machine()
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

    def body(run: Run) -> int:
        ports = timed("start gunicorn and Celery", lambda: start_site(args, run.env, run.processes))
        print(f"  instances on ports {', '.join(map(str, ports))}")
        meter = CpuMeter(run.processes, lambda: backends(args.pg, args.database))
        outcome = drive(args, run.event, ports, meter)
        report(outcome)
        stats, ledger = outcome.stats, outcome.ledger
        check = check_database(run.event, ledger)
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
        p99 = percentile(saves, 99) * 1000 if saves else float("inf")
        room = "default" if args.players <= DEFAULT_ROOM_PLAYERS else "bigger"
        most_95, most_99 = TARGETS_MS[room]
        line = f"result save p95: {p95:.0f} ms (target < {most_95})"
        if most_99 is not None:
            line += f", p99: {p99:.0f} ms (target < {most_99})"
        print(f"{line}; {room} room")
        failed = bool(stats.errors) or check.failed
        if stats.errors:
            for name, _ in run.processes.started:
                print(f"\n--- last lines of {name}.log ---\n{run.processes.tail(name)}")
        if args.keep_logs:
            args.keep_logs.mkdir(parents=True, exist_ok=True)
            for log in run.data.glob("*.log"):
                shutil.copy(log, args.keep_logs)
        print("\nFAILED" if failed else "\nno errors, nothing lost, nothing duplicated")
        return 1 if failed else 0

    return run_bench(args, "bunco-event-night-", body)


if __name__ == "__main__":
    sys.exit(main())
