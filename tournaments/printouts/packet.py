"""The pre-event packet: score cards, tally sheets and seating charts in one PDF.

One file to print before the doors open. The three parts are drawn on one canvas in that
order, so the pages that need cutting (cards, then tallies) form two runs a guillotine can
take as stacks, and the seating charts follow whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.pdfgen.canvas import Canvas

from .inputs import CardInfo, EventInfo, PodSeating, TableInfo
from .layout import Counter, PageSize, Progress, canvas_document
from .score_cards import draw_score_cards
from .seating_charts import draw_seating_charts
from .tally_sheets import draw_tally_sheets, sheet_count


def packet(
    event: EventInfo,
    cards: Sequence[CardInfo],
    tables: Sequence[TableInfo],
    pods: Sequence[PodSeating],
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
) -> bytes:
    """One PDF of cards, tallies and charts; progress counts cards + sheets + pods."""

    def draw(canvas: Canvas, size: tuple[float, float]) -> None:
        counter = Counter(progress, len(cards) + sheet_count(event, tables) + len(pods))
        draw_score_cards(canvas, event, cards, size, counter)
        draw_tally_sheets(canvas, event, tables, size, counter)
        draw_seating_charts(canvas, event, pods, size, counter)

    nothing = "Nothing to print yet: there are no players, tables or pods."
    return canvas_document(
        f"{event.name} - pre-event packet",
        pagesize,
        compress,
        draw,
        None if cards or tables or pods else nothing,
    )
