"""The table documents (results, payouts): platypus flowables, page footers, cell text.

These are a few pages of rows whose length is not known in advance, which is what platypus
is for: `LongTable` splits across pages and repeats its header row. The per-card documents
stay on the bare canvas for speed.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)

from .inputs import EventInfo
from .layout import (
    MARGIN,
    SANS,
    SANS_BOLD,
    Counter,
    binary_streams,
    draw_fitted,
    font_for,
    subtitle,
)


@lru_cache(maxsize=64)
def style(font: str, size: float = 9.0, grey: float = 0.0) -> ParagraphStyle:
    return ParagraphStyle(
        f"{font}-{size}-{grey}",
        fontName=font,
        fontSize=size,
        leading=size * 1.22,
        textColor=(grey, grey, grey),
    )


def para(text: object, base: str = SANS, size: float = 9.0, grey: float = 0.0) -> Paragraph:
    """A wrapping cell or line in a font that can show `text` (escaped: names are data)."""
    shown = str(text)
    return Paragraph(escape(shown), style(font_for(shown, base), size, grey))


def title_block(event: EventInfo, document: str, venue: bool = False) -> list[Flowable]:
    """The event's name over the document's subtitle, as every table document opens."""
    return [
        para(event.name, SANS_BOLD, 17),
        Spacer(0, 4),
        para(subtitle(event, document, venue), SANS, 9, 0.35),
    ]


class Tick(Flowable):
    """Zero-size marker that reports progress when platypus places it on a page."""

    def __init__(self, counter: Counter, items: int) -> None:
        super().__init__()
        self.counter = counter
        self.items = items
        self.width = self.height = 0

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        self.counter.advance(self.items)


class CheckBox(Flowable):
    """An empty box to tick by hand, or a ticked one when the site recorded the check."""

    def __init__(self, ticked: bool = False, size: float = 9.0) -> None:
        super().__init__()
        self.ticked = ticked
        self.size = size

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        c = self.canv
        c.setLineWidth(0.8)
        c.rect(0, 0, self.size, self.size, stroke=1, fill=0)
        if self.ticked:
            c.setLineWidth(1.4)
            s = self.size
            c.line(s * 0.2, s * 0.5, s * 0.42, s * 0.22)
            c.line(s * 0.42, s * 0.22, s * 0.85, s * 0.85)


def data_table(
    header: Sequence[str],
    rows: Sequence[Sequence[object]],
    widths: Sequence[float],
    total_width: float,
    numeric: Sequence[int] = (),
    greyed: Sequence[int] = (),
    padding: float = 3.0,
) -> LongTable:
    """A ruled table whose header repeats on every page; `widths` are relative shares."""
    scale = total_width / sum(widths)
    cells: list[list[object]] = [list(header)]  # plain strings: "\n" breaks a long heading
    right = set(numeric)
    for row in rows:
        # Numbers and the numeric columns' text ("$20.00") stay plain strings, which the ALIGN
        # command right-aligns under their heading; a paragraph would keep its own left edge.
        cells.append(
            [
                c
                if isinstance(c, Flowable)
                else str(c)
                if isinstance(c, int) or col in right
                else para(c)
                for col, c in enumerate(row)
            ]
        )
    table = LongTable(cells, colWidths=[w * scale for w in widths], repeatRows=1)
    commands = [
        ("BACKGROUND", (0, 0), (-1, 0), (0.88, 0.88, 0.88)),
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, (0.2, 0.2, 0.2)),
        ("LINEBELOW", (0, 1), (-1, -1), 0.25, (0.6, 0.6, 0.6)),
        ("BOX", (0, 0), (-1, -1), 0.8, (0.2, 0.2, 0.2)),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("FONT", (0, 1), (-1, -1), SANS, 9),
        ("FONT", (0, 0), (-1, 0), SANS_BOLD, 8.5),
        ("VALIGN", (0, 0), (-1, 0), "BOTTOM"),
        ("TOPPADDING", (0, 0), (-1, -1), padding),
        ("BOTTOMPADDING", (0, 0), (-1, -1), padding + 1),
    ]
    for col in numeric:
        commands.append(("ALIGN", (col, 0), (col, -1), "RIGHT"))
    for index in greyed:
        commands.append(("BACKGROUND", (0, index + 1), (-1, index + 1), (0.93, 0.93, 0.93)))
    for index in range(1, len(cells), 2):
        if index - 1 not in greyed:
            commands.append(("BACKGROUND", (0, index), (-1, index), (0.975, 0.975, 0.975)))
    table.setStyle(TableStyle(commands))
    return table


def build(
    event: EventInfo,
    document: str,
    story: list[Flowable],
    pagesize: tuple[float, float],
    compress: bool,
) -> bytes:
    """Lay out `story` with a footer naming the event, the document and the page."""
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        pagesize=pagesize,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN + 14,
        title=f"{event.name} - {document}",
        creator="Bunco tournament site",
        pageCompression=1 if compress else 0,
        invariant=1,
    )

    def footer(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        canvas.saveState()
        canvas.setFillGray(0.4)
        width = pagesize[0] - 2 * MARGIN - 60
        draw_fitted(canvas, MARGIN, MARGIN, f"{event.name} · {document}", SANS, 7, width, 5)
        canvas.setFont(SANS, 7)
        canvas.drawRightString(pagesize[0] - MARGIN, MARGIN, f"Page {doc.page}")
        canvas.restoreState()

    with binary_streams():
        doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()


def content_width(pagesize: tuple[float, float]) -> float:
    return pagesize[0] - 2 * MARGIN
