"""The event-night bench's machinery: the machine and commit, the processes, where the CPU went,
and the throwaway PostgreSQL database and Redis it runs against.

Split from `event_night` (the run itself) so the other benches (`pages`, `floor`) start and
measure the same way without reading the event night's room.
"""

from __future__ import annotations

import datetime
import http.client
import os
import platform
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


def print_machine() -> None:
    about = machine()
    print(f"date:    {about['date']}\nmachine: {about['machine']}")
    print(f"python:  {about['python']}\ncommit:  {about['commit']}")


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
