"""The charity's summary of the night on one page: money in by method, fees, donations,
prizes paid and given back, expenses, the net raised, and a thank-you line.

The figures arrive as text already summed from the cash book, so the paper shows exactly
what the summary page shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.platypus import Flowable, Spacer

from .flow import Tick, build, content_width, data_table, para, title_block
from .inputs import EventInfo
from .layout import SANS, SANS_BOLD, Counter, PageSize, Progress, page_size

HEADER = ("", "Amount")
SHARES = (70, 30)


def charity_summary(
    event: EventInfo,
    figures: Sequence[tuple[str, str]],
    thank_you: str,
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
) -> bytes:
    """A PDF of the night's figures (label, amount) in a ruled table, and the thanks."""
    size = page_size(pagesize)
    width = content_width(size)
    counter = Counter(progress, len(figures))
    rows = [(label, amount) for label, amount in figures]
    story: list[Flowable] = [
        *title_block(event, "Charity summary"),
        Spacer(0, 10),
        data_table(HEADER, rows, SHARES, width, numeric=(1,), padding=5),
        Spacer(0, 14),
        para(thank_you, SANS_BOLD, 11),
        Spacer(0, 8),
        para(
            "Every figure is a sum of the cash book's entries, or a cash box's count against "
            "them; the CSV lists each entry.",
            SANS,
            8.5,
            0.35,
        ),
        Tick(counter, len(figures)),
    ]
    return build(event, "Charity summary", story, size, compress)
