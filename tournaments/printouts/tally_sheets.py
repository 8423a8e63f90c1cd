"""Table tally sheets: one half-page sheet per table per set, two to a page.

The scorekeeper writes each team's running total as turns end; the last figure decides the
round, and the winner is ticked so staff can check the players' W/L marks against it. The
ruled grid is a form XObject shared by every sheet; each sheet adds its pod, table, set, the
head-table badge and, for the first set, who starts in which seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from scoring.rules.table import pair_seats

from .inputs import EventInfo, TableInfo
from .layout import (
    SANS,
    SANS_BOLD,
    Counter,
    PageSize,
    Progress,
    canvas_document,
    cells,
    draw_cut_lines,
    draw_fitted,
    subtitle,
)

FORM = "bunco-tally-sheet"
PAD = 12.0
TITLE_BLOCK = 74.0
FOOTER = 34.0
HEADER_ROW = 22.0
SLOTS = 6  # running-total spaces per line; two lines per team per round
# Column widths as shares of the sheet: round, Us running, Us final, Them running, Them final,
# winner.
PARTNERS_TEXT = ", ".join(pair_seats(pair) for pair in (0, 1))
SHARES = (56, 150, 38, 150, 38, 84)


@dataclass(frozen=True)
class SheetGeometry:
    width: float
    height: float
    columns: tuple[float, ...]  # x of every column edge, left to right
    grid_top: float
    row_height: float

    @property
    def left(self) -> float:
        return PAD

    @property
    def right(self) -> float:
        return self.width - PAD

    @property
    def top(self) -> float:
        return self.height - PAD


def sheet_geometry(event: EventInfo, pagesize: tuple[float, float]) -> SheetGeometry:
    _, _, width, height = cells(pagesize, 1, 2)[0]
    inner = width - 2 * PAD
    edges = [PAD]
    for share in SHARES:
        edges.append(edges[-1] + inner * share / sum(SHARES))
    grid_top = height - PAD - TITLE_BLOCK
    room = grid_top - PAD - FOOTER - HEADER_ROW
    row_height = min(44.0, room / len(event.targets))
    if row_height < 20:
        raise ValueError("Too many rounds in a set to fit on a tally sheet.")
    return SheetGeometry(width, height, tuple(edges), grid_top, row_height)


def _footer_lines(event: EventInfo) -> list[str]:
    lines = [
        "After each turn write the new total of the team that rolled. When the round ends the "
        "higher total wins; tick the winner.",
        f"Ties are settled as the rule sheet says ({event.preset_label}).",
    ]
    if event.snake_eyes:
        lines[1] += " Three 1s are snake eyes: that team's total goes back to 0."
    return lines


def _draw_static_sheet(canvas: Canvas, event: EventInfo, g: SheetGeometry) -> None:
    left, right, top = g.left, g.right, g.top
    canvas.setFillGray(0)
    draw_fitted(canvas, left, top - 9, event.name, SANS_BOLD, 10, right - left - 120, 7)
    canvas.setFillGray(0.35)
    title = subtitle(event, "Table tally")
    draw_fitted(canvas, left, top - 19, title, SANS, 7, right - left - 120, 5.5)

    cols = g.columns
    rounds = len(event.targets)
    header_bottom = g.grid_top - HEADER_ROW
    bottom = header_bottom - rounds * g.row_height
    canvas.setFillGray(0.92)
    canvas.rect(left, header_bottom, right - left, HEADER_ROW, stroke=0, fill=1)
    # Shade the "final" boxes so the deciding figure stands out.
    canvas.setFillGray(0.96)
    for i in (2, 4):
        canvas.rect(
            cols[i], bottom, cols[i + 1] - cols[i], header_bottom - bottom, stroke=0, fill=1
        )

    # Faint slots for running totals: two lines of SLOTS per team and round.
    canvas.setStrokeGray(0.78)
    canvas.setLineWidth(0.4)
    canvas.setDash(1, 2)
    for i in (1, 3):
        step = (cols[i + 1] - cols[i]) / SLOTS
        for k in range(1, SLOTS):
            canvas.line(cols[i] + k * step, bottom, cols[i] + k * step, header_bottom)
        for r in range(rounds):
            y = header_bottom - r * g.row_height - g.row_height / 2
            canvas.line(cols[i], y, cols[i + 1], y)
    canvas.setDash()

    canvas.setStrokeGray(0.2)
    canvas.setLineWidth(0.6)
    for x in cols[1:-1]:
        canvas.line(x, g.grid_top, x, bottom)
    for r in range(rounds + 1):
        y = header_bottom - r * g.row_height
        canvas.line(left, y, right, y)
    canvas.setLineWidth(1.2)
    canvas.rect(left, bottom, right - left, g.grid_top - bottom, stroke=1, fill=0)
    canvas.line(cols[3], g.grid_top, cols[3], bottom)

    canvas.setFillGray(0)
    canvas.setFont(SANS_BOLD, 8.5)
    heads = ("Round", "Us - running total", "Us", "Them - running total", "Them", "Winner")
    for i, text in enumerate(heads):
        canvas.drawCentredString((cols[i] + cols[i + 1]) / 2, g.grid_top - 10, text)
    canvas.setFont(SANS, 6)
    canvas.setFillGray(0.35)
    for i, text in ((2, "final"), (4, "final"), (5, "tick one")):
        canvas.drawCentredString((cols[i] + cols[i + 1]) / 2, g.grid_top - 18, text)

    box = 7.0
    winner_mid = (cols[5] + cols[6]) / 2
    for r, target in enumerate(event.targets):
        y_top = header_bottom - r * g.row_height
        middle = y_top - g.row_height / 2
        canvas.setFillGray(0)
        canvas.setFont(SANS_BOLD, 15)
        canvas.drawString(cols[0] + 5, middle - 5, f"{target}s")
        canvas.setFont(SANS, 6)
        canvas.setFillGray(0.35)
        canvas.drawString(cols[0] + 5, y_top - 7.5, f"round {r + 1}")
        canvas.setFillGray(0)
        canvas.setFont(SANS, 8)
        canvas.setLineWidth(0.7)
        for k, label in enumerate(("Us", "Them")):
            x = cols[5] + 6 + k * (winner_mid - cols[5])
            canvas.rect(x, middle - box / 2, box, box, stroke=1, fill=0)
            canvas.drawString(x + box + 3, middle - 3, label)

    canvas.setFillGray(0.2)
    for k, line in enumerate(_footer_lines(event)):
        draw_fitted(canvas, left, bottom - 10 - 9 * k, line, SANS, 7, right - left, 5)
    canvas.setFont(SANS, 8)
    canvas.setFillGray(0)
    canvas.drawString(left, bottom - 30, "Scorekeepers' initials: ______________________")
    canvas.drawRightString(right, bottom - 30, "Staff check: ______________")


def _draw_sheet(
    canvas: Canvas, event: EventInfo, table: TableInfo, set_number: int, g: SheetGeometry
) -> None:
    left, right, top = g.left, g.right, g.top
    canvas.setFillGray(0)
    canvas.setFont(SANS_BOLD, 20)
    ident = f"Pod {table.pod} · Table {table.table}"
    canvas.drawString(left, top - 44, ident)
    canvas.setFont(SANS_BOLD, 16)
    canvas.drawRightString(right, top - 16, f"Set {set_number}")
    canvas.setFont(SANS, 8)
    canvas.drawRightString(right, top - 27, f"of {event.sets}")
    if table.head:
        x = left + stringWidth(ident, SANS_BOLD, 20) + 12
        label = "HEAD TABLE - rings the bell"
        canvas.rect(x, top - 48, stringWidth(label, SANS_BOLD, 10) + 12, 18, stroke=0, fill=1)
        canvas.setFillGray(1)
        canvas.setFont(SANS_BOLD, 10)
        canvas.drawString(x + 6, top - 43, label)
        canvas.setFillGray(0)
    if set_number == 1:
        seats = "   ".join(f"{n} {name}" for n, name in enumerate(table.seats, start=1))
        text = f"Starting seats (partners {PARTNERS_TEXT}):   {seats}"
    else:
        text = f"Seats carry on from the last round of set {set_number - 1} (nobody is reseated)."
    draw_fitted(canvas, left, top - 63, text, SANS, 8.5, right - left, 5.5)


def _order(table: TableInfo) -> tuple[int, int]:
    return (table.pod, table.table)


def sheet_count(event: EventInfo, tables: Sequence[TableInfo]) -> int:
    return len(tables) * event.sets


def draw_tally_sheets(
    canvas: Canvas,
    event: EventInfo,
    tables: Sequence[TableInfo],
    pagesize: tuple[float, float],
    counter: Counter,
) -> None:
    """Sheets pod by pod, table by table, a table's sets together (one pile per table)."""
    if not tables:
        return
    g = sheet_geometry(event, pagesize)
    canvas.beginForm(FORM, 0, 0, g.width, g.height)
    _draw_static_sheet(canvas, event, g)
    canvas.endForm()
    slots = cells(pagesize, 1, 2)
    jobs = [(t, s) for t in sorted(tables, key=_order) for s in range(1, event.sets + 1)]
    for start in range(0, len(jobs), len(slots)):
        page = jobs[start : start + len(slots)]
        for (table, set_number), (x, y, _, _) in zip(page, slots, strict=False):
            canvas.saveState()
            canvas.translate(x, y)
            canvas.doForm(FORM)
            _draw_sheet(canvas, event, table, set_number, g)
            canvas.restoreState()
        draw_cut_lines(canvas, pagesize, 1, len(slots))
        canvas.showPage()
        counter.advance(len(page))


def tally_sheets(
    event: EventInfo,
    tables: Sequence[TableInfo],
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
) -> bytes:
    """A PDF with a tally sheet for every table in every set; progress counts sheets."""
    return canvas_document(
        f"{event.name} - table tallies",
        pagesize,
        compress,
        lambda canvas, size: draw_tally_sheets(
            canvas, event, tables, size, Counter(progress, sheet_count(event, tables))
        ),
        None if tables else "No tally sheets to print: there are no tables.",
    )
