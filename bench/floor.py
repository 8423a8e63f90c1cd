"""The floor under a staff save: the save flow's throughput against a bare Django view's, in
one run on the same gunicorn instances, database and machine.

Run from the repository root: `make bench-floor` (or `python bench/floor.py`). Like
bench/event_night.py it needs PostgreSQL (--pg, a user with CREATEDB) and Redis (--redis, a
database it may flush), creates and finally drops its own database, and serves the site with
the same gunicorn settings (2 instances x 2 gthread workers x 4 threads) but with
bench/floor_settings.py, which adds one URL only this bench serves: a bare view making three
small queries through the site's middleware.

1. Rehearses the event-night room (600 players, round 3 open, staff accounts), as
   bench/event_night.py does, and starts gunicorn (no Celery: the save flow sends no task).
2. --clients clients, each its own thread and session, ask as fast as they are answered for
   --duration seconds: first the bare view, then the staff save flow (result form GET, save
   POST, the pod page it redirects to), with no pause between requests.
3. Prints requests/s and the load average for each, the CPU a request cost the web processes,
   PostgreSQL, the clients and the rest of the machine (the two cores are shared, so any of
   them bounds the ratio), and the save flow's throughput as a share of the bare view's (in
   requests, and in saves).
   Every accepted save is checked in the database as bench/event_night.py does.

On a shared machine the load average printed beside each figure says how much of the two
cores the site really had.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.event_night import Run, run_bench, start_gunicorn, timed  # noqa: E402
from bench.night_client import SAVE_PAGE, Client, Ledger, Stats, percentile  # noqa: E402
from bench.night_machine import CpuMeter, backends, print_machine  # noqa: E402
from bench.night_room import Pace, check_database, staff_phone  # noqa: E402

BARE_VIEW = "/bench/floor/"  # served by bench/floor_urls.py only
STILL = Pace(walk=(0.0, 0.0), fill=(0.0, 0.0))  # staff who never walk nor think


@dataclass
class Phase:
    name: str
    stats: Stats
    elapsed: float
    load: tuple[float, float]  # 1-minute load average at the start and at the end

    @property
    def rate(self) -> float:
        return self.stats.requests / self.elapsed


def bare_client(client: Client, until: float) -> None:
    while time.monotonic() < until:
        client.get("bare view", BARE_VIEW)


def run_phase(name: str, targets: list, meter: CpuMeter, stats: Stats, duration: float) -> Phase:
    load0 = os.getloadavg()[0]
    before = meter.snapshot()
    start = time.monotonic()
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    cpu = meter.share(before, meter.snapshot())
    phase = Phase(name, stats, min(elapsed, duration + 1e-9), (load0, os.getloadavg()[0]))
    ms = [v * 1000 for values in stats.latencies.values() for v in values]
    each = 1000 / max(stats.requests, 1)
    print(
        f"  {name:<12} {stats.requests:>6,} requests in {elapsed:.1f} s = {phase.rate:7.1f}/s, "
        f"p50 {percentile(ms, 50):.0f} ms; load average {load0:.2f} -> {phase.load[1]:.2f}\n"
        f"  {'':<12} CPU a request: web {cpu.web * each:.2f} ms, PostgreSQL "
        f"{cpu.database * each:.2f} ms, clients {cpu.clients * each:.2f} ms, rest of the "
        f"machine {cpu.others * each:.2f} ms",
        flush=True,
    )
    return phase


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20, help="seconds per phase (20)")
    parser.add_argument("--clients", type=int, default=16, help="clients at once (16)")
    parser.add_argument("--players", type=int, default=600)
    parser.add_argument("--staff", type=int, default=50)
    parser.add_argument("--instances", type=int, default=2, help="gunicorn instances (2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers each (2)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (4)")
    parser.add_argument("--port", type=int, default=8151, help="first instance's port")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="bench_floor")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    parser.set_defaults(preset="classic", seed=7, round=3)  # bench/event_night.py's room
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database):
        parser.error("--database: lower-case letters, digits and underscores only")
    if not 1 <= args.clients <= args.staff:
        parser.error("--clients must be between 1 and --staff")

    print_machine()
    print(
        f"site:    {args.instances} gunicorn instances x {args.workers} gthread workers x "
        f"{args.threads} threads; {args.clients} clients at once, {args.duration:.0f} s a phase"
    )

    def body(run: Run) -> int:
        ports = timed("start gunicorn", lambda: start_gunicorn(args, run.env, run.processes))
        meter = CpuMeter(run.processes, lambda: backends(args.pg, args.database))

        print("\nload, one phase after the other:")
        stats = Stats()
        clients = [Client(ports, stats, i) for i in range(args.clients)]
        until = time.monotonic() + args.duration
        bare = run_phase(
            "bare view",
            [lambda c=c: bare_client(c, until) for c in clients],
            meter,
            stats,
            args.duration,
        )

        stats, warm_up, ledger = Stats(), Stats(), Ledger()
        names = sorted(run.event.pods_of)[: args.clients]
        staff = {name: Client(ports, warm_up, i) for i, name in enumerate(names)}
        for name, client in staff.items():
            client.log_in(name, run.event.passwords[name])
            client.stats = stats
        if warm_up.errors:
            raise RuntimeError(f"Logging in failed: {dict(warm_up.errors)}")
        until = time.monotonic() + args.duration
        flow = run_phase(
            "save flow",
            [
                lambda n=n, c=c: staff_phone(
                    c, run.event, run.event.pods_of[n], n, until, ledger, STILL
                )
                for n, c in staff.items()
            ],
            meter,
            stats,
            args.duration,
        )
        saves = len(stats.latencies.get(SAVE_PAGE, []))
        print(
            f"\nsave flow / bare view: {flow.rate / bare.rate:.1%} in requests, "
            f"{saves / flow.elapsed / bare.rate:.1%} in saves "
            f"({saves} saves, {stats.stale} refused as stale)"
        )
        print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
        check = check_database(run.event, ledger)
        errors = sum(bare.stats.errors.values()) + sum(stats.errors.values())
        for what, count in (bare.stats.errors + stats.errors).most_common():
            print(f"  {count:>6}  {what}")
        print(
            f"errors {errors}; database: {check.accepted} accepted saves, lost "
            f"{len(check.lost)}, duplicated {len(check.duplicated)}, stored otherwise "
            f"{len(check.wrong)}"
        )
        return 1 if errors or check.failed else 0

    return run_bench(args, "bunco-floor-", body, settings="bench.floor_settings")


if __name__ == "__main__":
    sys.exit(main())
