"""How fast the pre-event printouts render, so a big event's packet stays a short Celery task.

Run from the repository root: `python bench/printouts.py --players 600`. It makes fake data
(pods of twelve, three tables each), renders every document with and without page
compression, and the score cards a second time without QR codes, which is the yardstick the
QR drawing is judged by. Each figure is the best of --repeat runs on one core; no Django.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import reportlab  # noqa: E402

from tournaments.printouts import (  # noqa: E402
    CardInfo,
    EventInfo,
    PodSeating,
    TableInfo,
    packet,
    score_cards,
    seating_charts,
    tally_sheets,
)
from tournaments.seating import draw_pods  # noqa: E402

FIRST = ("Alice", "Bea", "Carol", "Dana", "Edith", "Fran", "Gloria", "Hannah", "Irene", "Joy")
LAST = ("Smith", "Lopez-Hernández", "Nguyen", "O'Brien", "Kowalski", "Jones", "Worthington")
PAGE = re.compile(rb"/Type /Page\b(?!s)")


def fake_event(players: int, sets: int, seed: int = 1) -> tuple[EventInfo, list, list, list]:
    """An event of `players` seated by the site's own pod draw (pods of 12, ghosts as needed)."""
    rng = random.Random(seed)
    event = EventInfo(
        name="Spring Fling Bunco for the Northside Food Bank",
        charity="Northside Food Bank",
        date_text="Saturday 14 March 2026",
        venue="St Mary's Parish Hall",
        preset_label="Classic Bunco",
        targets=(1, 2, 3, 4, 5, 6),
        sets=sets,
        movement="progressive",
        movement_text=(
            "Head table winners stay; head table losers move to table 2; winners of the other "
            "tables move up one table, losers move down one; bottom table losers stay."
        ),
        snake_eyes=True,
    )
    cards, tables, pods = [], [], []
    for pod, seating in enumerate(draw_pods(range(players), rng), start=1):
        pod_tables = []
        for table, seats in enumerate(seating, start=1):
            names = []
            for seat, player in enumerate(seats, start=1):
                if player is None:
                    names.append("Ghost")
                    continue
                name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
                code = f"{rng.randrange(36**6):06X}"[:6]
                url = (
                    "https://bunco.example.org/t/spring-fling-2026/cards/check/"
                    f"{code}/?sig={code}:1vXyZq:{rng.getrandbits(200):051x}"
                )
                cards.append(CardInfo(name, code, pod, table, seat, url))
                names.append(name)
            pod_tables.append(TableInfo(pod, table, table == 1, tuple(names)))
        tables += pod_tables
        hostess = next(name for name in pod_tables[0].seats if name != "Ghost")
        pods.append(PodSeating(pod, hostess, ("Staff Sam",), tuple(pod_tables)))
    return event, cards, tables, pods


def documents(
    event: EventInfo, cards: list, tables: list, pods: list, size: str, compress: bool
) -> dict[str, tuple[Callable[[], bytes], int, str]]:
    """What to time: name -> (render, items it makes, unit)."""
    return {
        "score_cards": (
            lambda: score_cards(event, cards, size, compress=compress),
            len(cards),
            "cards",
        ),
        "cards without QR": (
            lambda: score_cards(event, cards, size, compress=compress, qr_codes=False),
            len(cards),
            "cards",
        ),
        "tally_sheets": (
            lambda: tally_sheets(event, tables, size, compress=compress),
            len(tables) * event.sets,
            "sheets",
        ),
        "seating_charts": (
            lambda: seating_charts(event, pods, size, compress=compress),
            len(pods),
            "pods",
        ),
        "packet": (lambda: packet(event, cards, tables, pods, size, compress=compress), 0, ""),
    }


def widget_ms(url: str, codes: int) -> float:
    """Milliseconds per code with reportlab's own QR widget, the approach we avoid."""
    from reportlab.graphics import renderPDF
    from reportlab.graphics.barcode.qr import QrCodeWidget
    from reportlab.graphics.shapes import Drawing
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(io.BytesIO())
    start = time.perf_counter()
    for i in range(codes):
        drawing = Drawing(76, 76)
        drawing.add(QrCodeWidget(f"{url}{i}", barLevel="M", barWidth=76, barHeight=76))
        renderPDF.draw(drawing, canvas, 10, 10)
    return (time.perf_counter() - start) / codes * 1000


def best(render: Callable[[], bytes], repeat: int) -> tuple[float, bytes]:
    """Fastest of `repeat` runs, with its output."""
    times, out = [], b""
    for _ in range(repeat):
        start = time.perf_counter()
        out = render()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=600)
    parser.add_argument("--sets", type=int, default=3)
    parser.add_argument("--pagesize", default="letter", choices=("letter", "A4"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--widget-codes", type=int, default=20, help="0 skips the reference")
    args = parser.parse_args()

    event, cards, tables, pods = fake_event(args.players, args.sets)
    size = args.pagesize
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs (one used)")
    print(f"python:  {platform.python_version()}, reportlab {reportlab.Version}")
    print(
        f"data:    {len(cards)} players, {len(tables)} tables, {len(pods)} pods, "
        f"{event.sets} sets, {size}; best of {args.repeat}"
    )
    targets_met = True
    for compress in (True, False):
        jobs = documents(event, cards, tables, pods, size, compress)
        print(f"\npageCompression={int(compress)}")
        print(f"  {'document':<18}{'seconds':>9}{'rate':>18}{'pages':>7}{'bytes':>12}")
        seconds = {}
        for name, (render, items, unit) in jobs.items():
            took, pdf = best(render, args.repeat)
            seconds[name] = took
            rate = f"{items / took:,.0f} {unit}/s" if items else ""
            pages = len(PAGE.findall(pdf))
            print(f"  {name:<18}{took:>9.3f}{rate:>18}{pages:>7}{len(pdf):>12,}")
        ratio = seconds["packet"] / seconds["cards without QR"]
        qr_cost = seconds["score_cards"] / seconds["cards without QR"]
        print(f"  packet seconds: {seconds['packet']:.3f} (target < 5)")
        print(f"  packet / cards-without-QR: {ratio:.2f} (target < 1.5)")
        per_code = (seconds["score_cards"] - seconds["cards without QR"]) / len(cards) * 1000
        print(f"  cards with QR / without QR: {qr_cost:.2f} ({per_code:.2f} ms per QR code)")
        targets_met &= seconds["packet"] < 5 and ratio < 1.5
    if args.widget_codes:
        ms = widget_ms(cards[0].url, args.widget_codes)
        print(
            f"\nreference: reportlab QrCodeWidget {ms:.1f} ms per code ({args.widget_codes} codes)"
        )
    print("\ntargets met" if targets_met else "\ntargets MISSED")


if __name__ == "__main__":
    main()
