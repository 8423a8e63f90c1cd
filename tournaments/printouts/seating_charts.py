"""Seating charts: a page per pod to run it on paper if the Wi-Fi dies.

Each page has the pod's people (hostess, staff), the starting seat of every player with
partners marked, and a movement guide for the event's movement style: who goes where after
a round, who sits where at each table next, and a diagram. The guide is derived from
`scoring.rules.seating.plan_moves`, the function the site itself seats rounds with, so the
paper and the site cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from scoring.rules.ruleset import MOVEMENTS
from scoring.rules.seating import plan_moves
from scoring.rules.table import PAIR_LABELS, pair_of

from .inputs import EventInfo, PodSeating, TableInfo
from .layout import (
    MARGIN,
    SANS,
    SANS_BOLD,
    SANS_OBLIQUE,
    Counter,
    PageSize,
    Progress,
    canvas_document,
    draw_fitted,
    font_for,
    subtitle,
    wrap_words,
)

PAIR_COLOURS = ((0.80, 0.89, 1.0), (1.0, 0.88, 0.70))  # by `pair_of`, as PAIR_LABELS
GHOST = "Ghost"
PARTNERS = ", ".join(PAIR_LABELS).lower()


@dataclass(frozen=True)
class Arrival:
    """A pair that sits at `table` next round: the `side` ("winners"/"losers") of `source`."""

    table: int
    source: int
    side: str
    seats: tuple[int, int]


def movement_plan(tables: int, style: str) -> list[list[Arrival]]:
    """For each table (1-based numbers), the two pairs that sit there next round.

    Asks the seating engine with dummy players where pair 0 won everywhere; `pair_of` then
    tells winners from losers.
    """
    dummy = [tuple(4 * t + s for s in range(4)) for t in range(tables)]
    plan = plan_moves(dummy, [0] * tables, style)
    result = []
    for number, seats in enumerate(plan, start=1):
        (t1, s1), _, (t2, s2), _ = seats
        result.append(
            [
                Arrival(number, t1 + 1, "winners" if pair_of(s1) == 0 else "losers", (1, 2)),
                Arrival(number, t2 + 1, "winners" if pair_of(s2) == 0 else "losers", (3, 4)),
            ]
        )
    return result


def _table_name(number: int) -> str:
    return "the head table" if number == 1 else f"table {number}"


def movement_words(tables: int, style: str) -> tuple[list[str], list[str]]:
    """Two readings of the same plan: where each team goes, and who sits where next.

    e.g. progressive with three tables: "Head table: winners stay; losers go to table 2."
    """
    plan = movement_plan(tables, style)
    goes: dict[tuple[int, str], int] = {}
    for arrivals in plan:
        for a in arrivals:
            goes[(a.source, a.side)] = a.table
    where = []
    for t in range(1, tables + 1):
        label = "Head table" if t == 1 else f"Table {t}"
        parts = []
        for side in ("winners", "losers"):
            dest = goes[(t, side)]
            parts.append(f"{side} stay" if dest == t else f"{side} go to {_table_name(dest)}")
        where.append(f"{label}: {parts[0]}; {parts[1]}.")
    seats = []
    for t, (first, second) in enumerate(plan, start=1):
        label = "Head table" if t == 1 else f"Table {t}"

        def who(a: Arrival, t: int = t) -> str:
            if a.source == t:
                return f"its own {a.side}"
            return f"the {a.side} of {_table_name(a.source)}"

        seats.append(f"{label}: {who(first)} in seats 1 & 2, {who(second)} in seats 3 & 4.")
    return where, seats


class _Page:
    """A top-down cursor that starts a continuation page when the next block won't fit."""

    def __init__(self, canvas: Canvas, pagesize: tuple[float, float], pod: int) -> None:
        self.canvas = canvas
        self.width, self.height = pagesize
        self.pod = pod
        self.left = MARGIN
        self.right = self.width - MARGIN
        self.y = self.height - MARGIN

    def need(self, height: float) -> None:
        if self.y - height < MARGIN + 14:
            self.canvas.showPage()
            self.y = self.height - MARGIN
            self.canvas.setFillGray(0)
            self.canvas.setFont(SANS_BOLD, 14)
            self.canvas.drawString(self.left, self.y - 14, f"Pod {self.pod} (continued)")
            self.y -= 26


def _draw_header(p: _Page, event: EventInfo, pod: PodSeating) -> None:
    c = p.canvas
    width = p.right - p.left
    c.setFillGray(0)
    draw_fitted(c, p.left, p.y - 13, event.name, SANS_BOLD, 13, width - 110, 8)
    c.setFont(SANS_BOLD, 28)
    c.drawRightString(p.right, p.y - 24, f"Pod {pod.pod}")
    c.setFillGray(0.35)
    title = subtitle(event, "Seating chart", venue=True)
    draw_fitted(c, p.left, p.y - 25, title, SANS, 8, width - 110, 6)
    c.setFillGray(0)
    staff = ", ".join(pod.staff) if pod.staff else "-"
    draw_fitted(
        c, p.left, p.y - 44, f"Hostess: {pod.hostess or '-'}", SANS_BOLD, 10, width / 2 - 8, 7
    )
    draw_fitted(c, p.left + width / 2, p.y - 44, f"Staff: {staff}", SANS, 10, width / 2, 7)
    targets = " ".join(f"{t}s" for t in event.targets)
    rules = (
        f"{event.preset_label} · {event.sets} set{'s' if event.sets != 1 else ''} of "
        f"{len(event.targets)} rounds, rolling for {targets}"
    )
    draw_fitted(c, p.left, p.y - 58, rules, SANS, 9, width, 6)
    c.setStrokeGray(0.3)
    c.setLineWidth(0.8)
    c.line(p.left, p.y - 66, p.right, p.y - 66)
    p.y -= 76


def _draw_table_icon(c: Canvas, x: float, y: float, table: TableInfo) -> None:
    """A square table seen from above, seats 1-4 clockwise from the top, partners coloured."""
    size, seat = 26.0, 13.0
    centre_x, centre_y = x + 28, y + 28
    positions = (
        (centre_x, centre_y + size / 2 + seat / 2 + 1),
        (centre_x + size / 2 + seat / 2 + 1, centre_y),
        (centre_x, centre_y - size / 2 - seat / 2 - 1),
        (centre_x - size / 2 - seat / 2 - 1, centre_y),
    )
    c.setStrokeGray(0.3)
    c.setLineWidth(0.8)
    c.setFillGray(1 if not table.head else 0.15)
    c.rect(centre_x - size / 2, centre_y - size / 2, size, size, stroke=1, fill=1)
    c.setDash(2, 2)
    c.setStrokeGray(0.5 if not table.head else 0.9)
    c.line(*positions[0], *positions[2])
    c.line(*positions[1], *positions[3])
    c.setDash()
    c.setStrokeGray(0.3)
    for number, (sx, sy) in enumerate(positions, start=1):
        c.setFillColorRGB(*PAIR_COLOURS[pair_of(number - 1)])
        c.circle(sx, sy, seat / 2, stroke=1, fill=1)
        c.setFillGray(0)
        c.setFont(SANS_BOLD, 7.5)
        c.drawCentredString(sx, sy - 2.7, str(number))


def _draw_tables(p: _Page, tables: Sequence[TableInfo]) -> None:
    c = p.canvas
    c.setFont(SANS_BOLD, 12)
    c.setFillGray(0)
    p.need(20)
    c.drawString(p.left, p.y - 12, "Starting seats")
    c.setFont(SANS, 8)
    c.setFillGray(0.35)
    c.drawRightString(p.right, p.y - 12, f"Partners sit opposite: {PARTNERS}")
    p.y -= 20
    block = 62.0
    text_left = p.left + 66
    width = p.right - text_left
    for table in tables:
        p.need(block)
        top = p.y
        _draw_table_icon(c, p.left, top - 58, table)
        c.setFillGray(0)
        c.setFont(SANS_BOLD, 11)
        title = f"Table {table.table}"
        if table.head:
            title += " - head table, rings the bell"
        c.drawString(text_left, top - 13, title)
        for row, (first, second) in enumerate(((0, 2), (1, 3))):
            y = top - 31 - 15 * row
            c.setFillColorRGB(*PAIR_COLOURS[row])
            c.setStrokeGray(0.3)
            c.rect(text_left, y - 2, 9, 9, stroke=1, fill=1)
            c.setFillGray(0.35)
            c.setFont(SANS, 8)
            c.drawString(text_left + 14, y, f"seats {first + 1} & {second + 1}")
            x = text_left + 70
            half = (width - 70) / 2
            for k, seat in enumerate((first, second)):
                name = table.seats[seat]
                ghost = name == GHOST
                c.setFillGray(0.45 if ghost else 0)
                shown = f"{seat + 1}  {name}"
                base = SANS_OBLIQUE if ghost else SANS_BOLD
                draw_fitted(
                    c, x + k * half, y, shown, base if not ghost else SANS, 10, half - 8, 6.5
                )
        p.y -= block
    if any(GHOST in t.seats for t in tables):
        p.need(14)
        c.setFillGray(0.3)
        c.setFont(SANS_OBLIQUE, 8)
        c.drawString(
            p.left,
            p.y - 8,
            "A ghost's partner rolls for both and takes credit for the ghost's buncos.",
        )
        p.y -= 14
    p.y -= 6


def _arrow(c: Canvas, x1: float, x2: float, y: float, rise: float, label: str) -> None:
    """A curved arrow from x1 to x2 bowing by `rise` (negative = below), labelled mid-way."""
    c.bezier(x1, y, x1, y + rise, x2, y + rise, x2, y)
    # Arrowhead pointing along the curve's last tangent, which is vertical here.
    tip = -1 if rise > 0 else 1
    path = c.beginPath()
    path.moveTo(x2, y)
    path.lineTo(x2 - 3.5, y - tip * 7)
    path.lineTo(x2 + 3.5, y - tip * 7)
    path.close()
    c.drawPath(path, stroke=0, fill=1)
    mid_y = y + rise * 0.75
    c.setFillGray(1)
    c.rect((x1 + x2) / 2 - 6, mid_y - 5, 12, 10, stroke=0, fill=1)
    c.setFillGray(0)
    c.setFont(SANS_BOLD, 8)
    c.drawCentredString((x1 + x2) / 2, mid_y - 3, label)


def _draw_diagram(p: _Page, tables: int, style: str) -> None:
    """Tables in a row; winners' moves arc above, losers' moves below; stays inside boxes."""
    plan = movement_plan(tables, style)
    moves = [(a.source, a.table, a.side) for arrivals in plan for a in arrivals]

    def rise_for(source: int, dest: int) -> float:
        # Longer jumps arc higher, and leftward arcs sit a lane apart from rightward ones.
        return 16 + 13 * (abs(dest - source) - 1) + (7 if dest < source else 0)

    above = max([rise_for(s, d) for s, d, side in moves if side == "winners" and s != d] + [0])
    below = max([rise_for(s, d) for s, d, side in moves if side == "losers" and s != d] + [0])
    box_h = 34.0
    height = above + box_h + below + 30
    p.need(height)
    c = p.canvas
    gap = (p.right - p.left) / tables
    box_w = min(110.0, gap - 24)
    box_bottom = p.y - above - 8 - box_h
    centres = [p.left + gap * (i + 0.5) for i in range(tables)]
    stays: dict[int, list[str]] = {i: [] for i in range(1, tables + 1)}
    c.setLineWidth(0.9)
    for source, dest, side in moves:
        if source == dest:
            stays[source].append(f"{side} stay")
            continue
        # Leave a box near its centre and arrive further out on the side travelled from, so
        # an arrow arriving never meets one leaving the same box (losers walk wraps around).
        direction = 1 if dest > source else -1
        x1 = centres[source - 1] + 8 * direction
        x2 = centres[dest - 1] - min(24.0, box_w / 2 - 6) * direction
        rise = rise_for(source, dest)
        c.setStrokeGray(0)
        c.setFillGray(0)
        if side == "winners":
            c.setDash()
            _arrow(c, x1, x2, box_bottom + box_h, rise, "W")
        else:
            c.setDash(3, 2)
            _arrow(c, x1, x2, box_bottom, -rise, "L")
    c.setDash()
    for number, centre in enumerate(centres, start=1):
        head = number == 1
        c.setFillGray(0.15 if head else 0.95)
        c.setStrokeGray(0.2)
        c.rect(centre - box_w / 2, box_bottom, box_w, box_h, stroke=1, fill=1)
        c.setFillGray(1 if head else 0)
        c.setFont(SANS_BOLD, 10)
        c.drawCentredString(
            centre, box_bottom + box_h - 12, "Head table" if head else f"Table {number}"
        )
        c.setFont(SANS, 7.5)
        c.drawCentredString(centre, box_bottom + 7, ", ".join(stays[number]) or " ")
    c.setFillGray(0.35)
    c.setFont(SANS, 7.5)
    legend = "W = winners (solid, above)   L = losers (dashed, below)"
    c.drawString(p.left, box_bottom - below - 16, legend)
    p.y -= height


def _draw_movement(p: _Page, event: EventInfo, tables: int) -> None:
    c = p.canvas
    width = p.right - p.left
    p.need(40)
    c.setFillGray(0)
    c.setFont(SANS_BOLD, 12)
    c.drawString(p.left, p.y - 12, f"After each round: {MOVEMENTS[event.movement].name}")
    p.y -= 20
    for line in wrap_words(event.movement_text, font_for(event.movement_text), 9, width):
        p.need(12)
        c.setFont(font_for(line), 9)
        c.drawString(p.left, p.y - 9, line)
        p.y -= 12
    p.y -= 4
    where, seats = movement_words(tables, event.movement)
    for heading, lines in (("Where each team goes", where), ("Who sits where next round", seats)):
        p.need(14 + 12)
        c.setFont(SANS_BOLD, 9.5)
        c.drawString(p.left, p.y - 10, heading)
        p.y -= 14
        for line in lines:
            for k, part in enumerate(wrap_words(line, SANS, 9, width - 12)):
                p.need(12)
                c.setFont(SANS, 9)
                c.drawString(
                    p.left + (6 if k == 0 else 12), p.y - 9, ("• " if k == 0 else "") + part
                )
                p.y -= 12
        p.y -= 4
    p.y -= 4
    _draw_diagram(p, tables, event.movement)
    notes = (
        "Everyone has a new partner every round: of the two pairs at a table, one sits in "
        "seats 1 & 2 and the other in seats 3 & 4. Seats carry on from set to set.",
        "On paper: players mark W or L and their buncos on their score cards; scorekeepers keep "
        "the table tallies. Staff enter both on the site when it is back.",
    )
    p.y -= 6
    for note in notes:
        for line in wrap_words(note, SANS, 8.5, width):
            p.need(11)
            c.setFillGray(0.2)
            c.setFont(SANS, 8.5)
            c.drawString(p.left, p.y - 9, line)
            p.y -= 11
        p.y -= 3


def draw_seating_charts(
    canvas: Canvas,
    event: EventInfo,
    pods: Sequence[PodSeating],
    pagesize: tuple[float, float],
    counter: Counter,
) -> None:
    """A page (more only for unusually big pods) per pod, in pod order."""
    for raw in sorted(pods, key=lambda pod: pod[0]):
        pod = PodSeating(*raw)
        tables = sorted(pod.tables, key=lambda t: t.table)
        page = _Page(canvas, pagesize, pod.pod)
        _draw_header(page, event, pod)
        _draw_tables(page, tables)
        if tables:
            _draw_movement(page, event, len(tables))
        canvas.showPage()
        counter.advance(1)


def seating_charts(
    event: EventInfo,
    pods: Sequence[PodSeating | tuple[int, str, Sequence[str], Sequence[TableInfo]]],
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
) -> bytes:
    """A PDF with each pod's starting seats and movement guide; progress counts pods."""
    return canvas_document(
        f"{event.name} - seating charts",
        pagesize,
        compress,
        lambda canvas, size: draw_seating_charts(
            canvas, event, pods, size, Counter(progress, len(pods))
        ),
        None if pods else "No seating charts to print: there are no pods.",
    )
