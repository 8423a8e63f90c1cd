"""Score cards: one cut-apart card per player, six to a page, pre-filled and with a QR code.

Everything that is the same on every card (event, labels, the W/L grid of every round of
every set, the tally boxes, the staff line) is drawn once into a form XObject; each card is
then a form reference plus the player's name, code, pod, starting seat and QR code. The
shared part then costs about 0.1 ms a card and is stored once in the file. The QR codes of
a page are drawn together when the page is finished, as one form XObject of their own (see
`qr`: a stream compressed once per page instead of text in the page stream).

Cards are printed pod by pod, by starting table and seat, and each pod starts a fresh page,
so after the stack is cut every pod's cards are a pile of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from .inputs import CardInfo, EventInfo
from .layout import (
    MONO_BOLD,
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
from .qr import draw_qr_codes

FORM = "bunco-score-card"
PAD = 9.0  # white inside each cell, so a cut a little off the line spares the print
QR_SIZE = 76.0
TOP_BLOCK = 80.0
FOOTER = 14.0
HEADER_ROW = 18.0
LABEL_COL = 30.0
MIN_ROW = 17.0  # below this a W or L no longer fits by hand
MAX_ROW = 30.0


@dataclass(frozen=True)
class CardGeometry:
    """Where things go on one card, in points from the card cell's lower-left corner."""

    cols: int
    rows: int
    width: float
    height: float
    grid_top: float
    row_height: float
    round_width: float
    tally_width: float
    tallies: tuple[str, ...]

    @property
    def left(self) -> float:
        return PAD

    @property
    def right(self) -> float:
        return self.width - PAD

    @property
    def top(self) -> float:
        return self.height - PAD

    @property
    def text_width(self) -> float:
        """Width beside the QR code, for the event and player lines."""
        return self.right - self.left - QR_SIZE - 6


def card_geometry(event: EventInfo, pagesize: tuple[float, float]) -> CardGeometry:
    """Two columns; three rows a page when the sets fit with writable boxes, else fewer."""
    tallies = ("Buncos", "Minis", "Snake eyes") if event.snake_eyes else ("Buncos", "Minis")
    tally_width = 36.0 if event.snake_eyes else 42.0
    for rows in (3, 2, 1):
        _, _, width, height = cells(pagesize, 2, rows)[0]
        grid_top = height - PAD - TOP_BLOCK - 4
        room = grid_top - (PAD + FOOTER + 4) - HEADER_ROW
        row_height = min(MAX_ROW, room / (event.sets + 1))
        if row_height >= MIN_ROW or rows == 1:
            break
    if row_height < 9:
        raise ValueError(f"{event.sets} sets do not fit on a score card; print fewer sets.")
    round_width = (width - 2 * PAD - LABEL_COL - len(tallies) * tally_width) / len(event.targets)
    return CardGeometry(
        cols=2,
        rows=rows,
        width=width,
        height=height,
        grid_top=grid_top,
        row_height=row_height,
        round_width=round_width,
        tally_width=tally_width,
        tallies=tallies,
    )


def _draw_static_card(canvas: Canvas, event: EventInfo, g: CardGeometry) -> None:
    """The part every card shares, in card-cell coordinates."""
    top, left, right = g.top, g.left, g.right
    canvas.setFillGray(0)
    draw_fitted(canvas, left, top - 8, event.name, SANS_BOLD, 9.5, g.text_width, 6.5)
    canvas.setFillGray(0.35)
    draw_fitted(canvas, left, top - 17, subtitle(event, "Score card"), SANS, 6.5, g.text_width, 5)
    canvas.setFont(SANS, 6)
    canvas.drawString(left, top - 58, "CODE")
    canvas.drawString(left + 92, top - 58, "POD")
    canvas.drawString(left, top - 72, "START")

    # The round grid: a header row, a row per set, a totals row.
    rounds_right = left + LABEL_COL + g.round_width * len(event.targets)
    header_bottom = g.grid_top - HEADER_ROW
    bottom = header_bottom - g.row_height * (event.sets + 1)
    canvas.setFillGray(0.92)
    canvas.rect(left, header_bottom, right - left, HEADER_ROW, stroke=0, fill=1)
    canvas.setStrokeGray(0.25)
    canvas.setLineWidth(0.5)
    columns = [left + LABEL_COL + i * g.round_width for i in range(len(event.targets) + 1)]
    columns += [rounds_right + (i + 1) * g.tally_width for i in range(len(g.tallies))]
    # Lines between rounds stop above the totals row, which has a wins and a losses box.
    inner_rounds = set(columns[1 : len(event.targets)])
    for x in columns[:-1]:
        canvas.line(x, g.grid_top, x, bottom + (g.row_height if x in inner_rounds else 0))
    for row in range(1, event.sets + 2):
        canvas.line(
            left, header_bottom - row * g.row_height, right, header_bottom - row * g.row_height
        )
    canvas.line(left, header_bottom, right, header_bottom)
    # Totals row: two boxes across the rounds (wins, losses), one per tally column.
    middle = left + LABEL_COL + (rounds_right - left - LABEL_COL) / 2
    canvas.line(middle, bottom, middle, bottom + g.row_height)
    canvas.setLineWidth(1)
    canvas.rect(left, bottom, right - left, g.grid_top - bottom, stroke=1, fill=0)

    canvas.setFillGray(0.35)
    canvas.setFont(SANS, 5.5)
    canvas.drawString(left + 2, g.grid_top - 7, "Round")
    canvas.drawString(left + 2, g.grid_top - 14, "rolls for")
    for i, target in enumerate(event.targets):
        x = left + LABEL_COL + i * g.round_width
        canvas.setFillGray(0.35)
        canvas.setFont(SANS, 5.5)
        canvas.drawCentredString(x + g.round_width / 2, g.grid_top - 7, f"{i + 1}")
        canvas.setFillGray(0)
        canvas.setFont(SANS_BOLD, 9)
        canvas.drawCentredString(x + g.round_width / 2, g.grid_top - 15.5, f"{target}s")
    for i, name in enumerate(g.tallies):
        x = rounds_right + i * g.tally_width
        canvas.setFillGray(0.35)
        canvas.setFont(SANS, 5.5)
        canvas.drawCentredString(x + g.tally_width / 2, g.grid_top - 7, "tally")
        canvas.setFillGray(0)
        draw_fitted(
            canvas, x + 1.5, g.grid_top - 15, name, SANS_BOLD, 7, g.tally_width - 3, 5, "center"
        )
    canvas.setFillGray(0)
    canvas.setFont(SANS_BOLD, 7)
    for number in range(1, event.sets + 1):
        y = header_bottom - number * g.row_height
        canvas.drawString(left + 3, y + g.row_height / 2 - 2.5, f"Set {number}")
    canvas.drawString(left + 3, bottom + g.row_height / 2 - 2.5, "Totals")
    canvas.setFillGray(0.35)
    canvas.setFont(SANS, 5.5)
    for x, label in ((left + LABEL_COL, "Wins"), (middle, "Losses")):
        canvas.drawString(x + 2, bottom + g.row_height - 6.5, label)
    for i in range(len(g.tallies)):
        canvas.drawString(
            rounds_right + i * g.tally_width + 2, bottom + g.row_height - 6.5, "total"
        )

    # Staff initials.
    canvas.setFillGray(0.2)
    canvas.setFont(SANS, 6.5)
    half = (right - left) / 2
    canvas.setStrokeGray(0.4)
    canvas.setLineWidth(0.5)
    for i, label in enumerate(("Verified by", "Confirmed by")):
        x = left + i * half
        canvas.drawString(x, PAD + 2, label)
        canvas.line(x + 40 + 4 * i, PAD + 1.5, x + half - 8, PAD + 1.5)


def _draw_player(canvas: Canvas, card: CardInfo, g: CardGeometry) -> None:
    top, left = g.top, g.left
    canvas.setFillGray(0)
    draw_fitted(canvas, left, top - 38, card.player_name, SANS_BOLD, 15, g.text_width, 8)
    draw_fitted(canvas, left + 20, top - 58.5, card.code, MONO_BOLD, 11, 68, 7)
    draw_fitted(canvas, left + 106, top - 58.5, str(card.pod), SANS_BOLD, 11, g.text_width - 106, 7)
    head = " (head table)" if card.table == 1 else ""
    start = f"Table {card.table}{head}, seat {card.seat}"
    draw_fitted(canvas, left + 22, top - 72.5, start, SANS, 9, g.text_width - 22, 6)


def _order(card: CardInfo) -> tuple[int, int, int]:
    return (card.pod, card.table, card.seat)


def draw_score_cards(
    canvas: Canvas,
    event: EventInfo,
    cards: Sequence[CardInfo],
    pagesize: tuple[float, float],
    counter: Counter,
    qr_codes: bool = True,
) -> None:
    """Draw the cards onto `canvas` (a page per batch), counting a card as done per page."""
    if not cards:
        return
    g = card_geometry(event, pagesize)
    canvas.beginForm(FORM, 0, 0, g.width, g.height)
    _draw_static_card(canvas, event, g)
    canvas.endForm()
    slots = cells(pagesize, g.cols, g.rows)
    codes: list[tuple[str, float, float]] = []  # this page's QR codes, in page coordinates

    def finish_page(count: int) -> None:
        draw_qr_codes(canvas, codes, QR_SIZE)
        codes.clear()
        draw_cut_lines(canvas, pagesize, g.cols, g.rows)
        canvas.showPage()
        counter.advance(count)

    on_page, pod = 0, None
    for card in sorted(cards, key=_order):
        if on_page and (on_page == len(slots) or card.pod != pod):
            finish_page(on_page)
            on_page = 0
        pod = card.pod
        x, y, _, _ = slots[on_page]
        canvas.saveState()
        canvas.translate(x, y)
        canvas.doForm(FORM)
        _draw_player(canvas, card, g)
        canvas.restoreState()
        if qr_codes:
            codes.append((card.url, x + g.right - QR_SIZE, y + g.top - QR_SIZE))
        on_page += 1
    finish_page(on_page)


def score_cards(
    event: EventInfo,
    cards: Sequence[CardInfo],
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
    qr_codes: bool = True,
) -> bytes:
    """A PDF of every player's score card; `qr_codes=False` leaves the QR corner blank.

    `progress(done, total)` counts cards, reported after each page.
    """
    return canvas_document(
        f"{event.name} - score cards",
        pagesize,
        compress,
        lambda canvas, size: draw_score_cards(
            canvas, event, cards, size, Counter(progress, len(cards)), qr_codes
        ),
        None if cards else "No score cards to print: there are no players.",
    )
