"""The payout sheet the cash table works from: every prize, its winner, and room to sign.

A line the site already shows as paid prints who paid it and when, and what the winner gave
back (it stayed in the box), with the ID box ticked (the site records a payment only after
the ID check); a voided line is greyed and says why, so nobody pays it from the paper.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.platypus import Flowable, Spacer, Table, TableStyle

from .flow import CheckBox, Tick, build, content_width, data_table, para, title_block
from .inputs import EventInfo, PayoutLine
from .layout import SANS, SANS_BOLD, Counter, PageSize, Progress, page_size

HEADER = ("Prize", "Winner", "Code", "Amount", "ID\nchecked", "Paid by")
SHARES = (29, 22, 10, 10, 8, 21)


def _prize(line: PayoutLine) -> str:
    return f"{line.category} ({line.scope}, {line.place})"


def _paid_by(line: PayoutLine) -> Flowable:
    if line.voided:
        return para(f"VOID: {line.voided}", SANS_BOLD, 8.5, 0.3)
    if line.paid_by:
        when = f", {line.paid_at}" if line.paid_at else ""
        back = f"; gave back {line.given_back}" if line.given_back else ""
        return para(f"{line.paid_by}{when}{back}", SANS, 8.5)
    return para("________________", SANS, 9, 0.4)


def _signatures(width: float) -> Flowable:
    cells = [
        [
            "Paid out by: ____________________",
            "Counted by: ____________________",
            "Date: __________",
        ]
    ]
    table = Table(cells, colWidths=[width * 0.4, width * 0.4, width * 0.2])
    table.setStyle(
        TableStyle([("FONT", (0, 0), (-1, -1), SANS, 9.5), ("LEFTPADDING", (0, 0), (0, 0), 0)])
    )
    return table


def payout_sheet(
    event: EventInfo,
    lines: Sequence[PayoutLine],
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
) -> bytes:
    """A PDF of every prize line to pay, with "ID checked" boxes and "Paid by" space."""
    size = page_size(pagesize)
    width = content_width(size)
    counter = Counter(progress, len(lines))
    story: list[Flowable] = [
        *title_block(event, "Prize payouts"),
        Spacer(0, 4),
        para(
            "Pay only a winner who is present with a valid photo ID matching the name. "
            "Tick the box, sign, and enter the payment on the site.",
            SANS,
            8.5,
            0.25,
        ),
        Spacer(0, 10),
    ]
    rows = []
    voided = []
    for index, line in enumerate(lines):
        rows.append(
            (
                _prize(line),
                line.winner,
                line.code,
                line.amount_text,
                "-" if line.voided else CheckBox(ticked=bool(line.paid_by), size=10),
                _paid_by(line),
            )
        )
        if line.voided:
            voided.append(index)
    if rows:
        story.append(data_table(HEADER, rows, SHARES, width, greyed=voided, padding=6))
    else:
        story.append(para("No prizes to pay.", SANS, 10))
    story += [Tick(counter, len(lines)), Spacer(0, 24), _signatures(width)]
    return build(event, "Prize payouts", story, size, compress)
