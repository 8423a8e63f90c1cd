"""What each event-night page costs as the room grows: CPU and queries at 24, 240 and 1,200
players, and the ratio 1,200 / 24 (at most 1.5 for a page that does not list every player).

Run from the repository root: `make bench-pages` (or `python bench/pages.py`). It needs
PostgreSQL (--pg, a user with CREATEDB) and Redis (--redis, a database it may flush), creates
and finally drops its own database. For each --sizes it seats a room (drawn, round 1 open,
pod 1 reported) for the stage page, a projector's slice of the board, the seat finder and
the staff pages; for each --played size it plays a classic qualifying stage with every card
verified (the tests' `played_qualifying`) and loads the rule sheet's prize list, for
advancement and the prize winners. Each page is asked through Django's test client in this
process, as the organiser (the seat finder and the board anonymously), and the smallest CPU
time of --repeat requests is kept, so other work on a shared machine inflates the figures
less. One core; no gunicorn. Needs the dev requirements (the tests' factories).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.event_night import timed  # noqa: E402
from bench.night_machine import create_database, drop_database, flush_redis, print_machine  # noqa: E402

# Pages that list every pod or player may grow with the room: advancement shows every pod's
# cut; the prize winners page offers every player as the traveling item's next holder (and a
# judged prize lists its eligible players). The others must not (the 1.5).
LISTS_EVERYONE = {"advancement", "prize winners"}
# Pages whose stage is cached per change of the room (load_stage): their first request after a
# save reads it; the best of the repeats is what an organiser reopening the page costs.
CACHED = {"advancement", "prize winners"}
LIMIT = 1.5


def room(players: int):
    """Checked in, drawn, round 1 open, pod 1 reported: the room at the start of the night."""
    from tests.support.factories import OrganiserFactory, TournamentFactory, drawn_stage, record_pod

    organiser = OrganiserFactory()
    tournament = TournamentFactory(organiser=organiser, capacity=players, slug=f"room-{players}")
    stage = drawn_stage(tournament, organiser, players=players)
    record_pod(stage.pods.get(number=1), stage.rounds.get(number=1), organiser, [0, 1, 0])
    return tournament, organiser


def played(players: int):
    """Qualifying played and every card verified, the rule sheet's prizes loaded."""
    from tests.support.events import played_qualifying
    from tournaments.services import prizes

    event = played_qualifying(players, 7, slug=f"played-{players}")
    prizes.load_template(event.tournament, "classic", actor=event.organiser)
    return event.tournament, event.organiser


def room_pages(slug: str, name: str) -> dict[str, tuple[str, dict, bool]]:
    """{label: (path, headers, as organiser)} in the room at the start of the night."""
    from django.urls import reverse

    htmx = {"HTTP_HX_REQUEST": "true"}
    finder = reverse("seat-finder", args=[slug]) + "?q=" + name.split()[0][:5]
    return {
        "stage page": (reverse("stage-control", args=[slug]), {}, True),
        "board live (pods 1-2)": (reverse("board-live", args=[slug]) + "?pods=1-2", htmx, False),
        "seat finder search": (finder, htmx, False),
        "pod page": (reverse("pod-detail", args=[slug, 1]), {}, True),
        "result form": (reverse("table-result", args=[slug, 1, 1, 1]), {}, True),
    }


def played_pages(slug: str) -> dict[str, tuple[str, dict, bool]]:
    from django.urls import reverse

    return {
        "advancement": (reverse("advancement", args=[slug]), {}, True),
        "prize winners": (reverse("prize-winners", args=[slug]), {}, True),
    }


def measure(get: Callable[[], object], repeat: int) -> tuple[float, int, int, float]:
    """(smallest CPU seconds of `repeat` requests, queries of a request once the page has
    been opened, bytes, CPU seconds of the first request with nothing in the cache: a page
    that keeps what it read shows the difference)."""
    from django.core.cache import cache
    from django.db import connection

    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    cache.clear()
    start = time.process_time()
    response = get()
    first = time.process_time() - start
    assert response.status_code == 200, (response.status_code, response.content[:300])
    with connection.execute_wrapper(count):
        get()
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        get()
        best = min(best, time.process_time() - start)
    return best, queries, len(response.content), first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[24, 240, 1200])
    parser.add_argument(
        "--played",
        type=int,
        nargs="*",
        default=[24, 240],
        help="sizes played to the end of qualifying for advancement and prize winners "
        "(24 240: playing 1,200 through the services takes most of an hour)",
    )
    parser.add_argument("--repeat", type=int, default=7, help="requests per page (7)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="bench_pages")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database):
        parser.error("--database: lower-case letters, digits and underscores only")

    print_machine()
    data = Path(tempfile.mkdtemp(prefix="bunco-pages-"))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bunco_site.settings",
        DATABASE_URL=f"{args.pg.rstrip('/')}/{args.database}",
        REDIS_URL=args.redis,
        BUNCO_DATA_DIR=str(data),
        SECRET_KEY=secrets.token_urlsafe(50),
        DEBUG="0",
        ALLOWED_HOSTS="testserver",
        BUNCO_PLAIN_STATIC="1",  # no collected files: the pages, not whitenoise, are measured
    )
    create_database(args.pg, args.database)
    try:
        flush_redis(args.redis)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], check=True)
        import django

        django.setup()
        from django.test import Client

        figures: dict[str, dict[int, tuple[float, int, int, float]]] = {}

        def visit(size: int, tournament, organiser, pages: dict) -> None:
            signed_in, public = Client(), Client()
            signed_in.force_login(organiser)
            for label, (path, headers, as_organiser) in pages.items():
                client = signed_in if as_organiser else public
                figures.setdefault(label, {})[size] = measure(
                    lambda c=client, p=path, h=headers: c.get(p, **h), args.repeat
                )
            print(f"  {size} players measured, load average {os.getloadavg()[0]:.2f}", flush=True)

        for size in args.sizes:
            tournament, organiser = timed(f"{size} players: drawn, round 1", lambda n=size: room(n))
            name = tournament.players.order_by("pk").values_list("name", flat=True)[5]
            visit(size, tournament, organiser, room_pages(tournament.slug, name))
        for size in args.played:
            tournament, organiser = timed(
                f"{size} players: qualifying played, verified", lambda n=size: played(n)
            )
            visit(size, tournament, organiser, played_pages(tournament.slug))

        print(f"\nCPU ms a request (best of {args.repeat}), queries; ratio largest/smallest size:")
        failed = []
        for label, by_size in figures.items():
            sizes = sorted(by_size)
            cells = "".join(
                f"  {n:>5}: {by_size[n][0] * 1000:6.1f} ms {by_size[n][1]:>3}q" for n in sizes
            )
            ratio = by_size[sizes[-1]][0] / by_size[sizes[0]][0]
            bound = " (lists the room)" if label in LISTS_EVERYONE else ""
            bound = bound or (" ok" if ratio <= LIMIT else " OVER")
            if bound == " OVER":
                failed.append(label)
            print(f"  {label:<22}{cells}  ratio {ratio:.2f}{bound}")
            if label in CACHED:
                firsts = "".join(f"  {n:>5}: {by_size[n][3] * 1000:6.1f} ms     " for n in sizes)
                print(f"  {'  its first request':<22}{firsts}")
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
        if failed:
            print(f"above {LIMIT}: {', '.join(failed)}")
        return 1 if failed else 0
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(args.pg, args.database)
        flush_redis(args.redis)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
