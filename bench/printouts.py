"""How fast the pre-event printouts render, so a big event's packet stays a short Celery task.

Run from the repository root: `python bench/printouts.py --players 600`. It makes fake data
(pods of twelve, three tables each) and renders every document with and without page
compression. The QR codes are judged against the same document without them: the packet is
rendered a second time with the cards' QR corner left blank, and the requirement's ratio is
packet / packet-without-QR (under 1.5), so the difference is exactly what the codes cost.
The score cards alone with and without QR codes are still printed, as the older yardstick.
Each figure is the best of --repeat runs on one core, all in one process; no Django.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import platform
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import reportlab  # noqa: E402

from scoring.rules.seating import draw_pods  # noqa: E402
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


@contextmanager
def cards_without_qr(cards: int) -> Iterator[None]:
    """While active, the packet draws its score cards with `qr_codes=False`.

    `packet()` has no QR switch and its signature belongs to the Celery tasks, so the packet
    module's reference to `draw_score_cards` is swapped for the same function with the
    switch off; everything else in the document is what `packet()` draws. Checking that the
    swap saw every card makes a refactor of `packet()` that bypasses it fail loudly instead
    of quietly timing the QR codes in both columns.
    """
    # `tournaments.printouts.packet` as an attribute is the function; this is the module.
    module = importlib.import_module("tournaments.printouts.packet")
    original = module.draw_score_cards
    seen: list[int] = []

    def without_qr(canvas, event, cards, *args, **kwargs):
        seen.append(len(cards))
        return original(canvas, event, cards, *args, **kwargs, qr_codes=False)

    with mock.patch.object(module, "draw_score_cards", without_qr):
        yield
    if sum(seen) != cards:
        raise RuntimeError("packet() no longer draws its cards through draw_score_cards")


def packet_without_qr(
    event: EventInfo, cards: list, tables: list, pods: list, size: str, compress: bool
) -> bytes:
    """The packet with every card's QR corner blank: the same pages, text and layout."""
    with cards_without_qr(len(cards)):
        return packet(event, cards, tables, pods, size, compress=compress)


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
        "packet without QR": (
            lambda: packet_without_qr(event, cards, tables, pods, size, compress),
            0,
            "",
        ),
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


def best_of_rounds(
    renders: dict[str, Callable[[], bytes]], repeat: int
) -> dict[str, tuple[float, bytes]]:
    """Fastest of `repeat` runs of each, with its output; one run of every render per round.

    Taking turns means a busy spell on the machine slows both sides of a ratio, not just
    whichever happened to run then (the packet with and without QR codes, above all).
    """
    times: dict[str, list[float]] = {name: [] for name in renders}
    outputs: dict[str, bytes] = {}
    for _ in range(repeat):
        for name, render in renders.items():
            start = time.perf_counter()
            outputs[name] = render()
            times[name].append(time.perf_counter() - start)
    return {name: (min(times[name]), outputs[name]) for name in renders}


def qr_cost(seconds_with: float, seconds_without: float, codes: int) -> tuple[float, float]:
    """How many times slower the QR codes make a render, and the milliseconds each code adds."""
    return seconds_with / seconds_without, (seconds_with - seconds_without) / codes * 1000


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
        results = best_of_rounds({name: job[0] for name, job in jobs.items()}, args.repeat)
        for name, (_, items, unit) in jobs.items():
            took, pdf = results[name]
            seconds[name] = took
            rate = f"{items / took:,.0f} {unit}/s" if items else ""
            pages = len(PAGE.findall(pdf))
            print(f"  {name:<18}{took:>9.3f}{rate:>18}{pages:>7}{len(pdf):>12,}")
        ratio, per_code = qr_cost(seconds["packet"], seconds["packet without QR"], len(cards))
        print(f"  packet seconds: {seconds['packet']:.3f} (target < 5)")
        print(
            f"  packet / packet without QR: {ratio:.2f} (target < 1.5); "
            f"{per_code:.3f} ms per QR code"
        )
        old_ratio = seconds["packet"] / seconds["cards without QR"]
        card_ratio, card_code = qr_cost(
            seconds["score_cards"], seconds["cards without QR"], len(cards)
        )
        print(f"  older yardsticks: packet / cards without QR: {old_ratio:.2f}")
        print(
            f"                    cards with QR / without QR: {card_ratio:.2f} "
            f"({card_code:.3f} ms per QR code)"
        )
        targets_met &= seconds["packet"] < 5 and ratio < 1.5
    if args.widget_codes:
        ms = widget_ms(cards[0].url, args.widget_codes)
        print(
            f"\nreference: reportlab QrCodeWidget {ms:.1f} ms per code ({args.widget_codes} codes)"
        )
    print("\ntargets met" if targets_met else "\ntargets MISSED")


if __name__ == "__main__":
    main()
