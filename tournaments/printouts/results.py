"""The results sheet of a stage: who won and who goes on first, then every pod's standings.

Rows are printed in the order the service gives them (it ranks them); this module adds no
arithmetic, so the paper shows exactly the numbers the site shows.
"""

from __future__ import annotations

from reportlab.platypus import Flowable, KeepTogether, Spacer, Table, TableStyle

from .flow import Tick, build, content_width, data_table, para, title_block
from .inputs import EventInfo, FinalistRow, PodResults, QualifierRow, ResultRow, ResultsInfo
from .layout import SANS, SANS_BOLD, Counter, PageSize, Progress, page_size


def _heading(text: str) -> Flowable:
    return para(text, SANS_BOLD, 12.5)


def _winner(name: str, width: float) -> Flowable:
    box = Table([[para(f"Winner: {name}", SANS_BOLD, 15)]], colWidths=[width])
    box.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 1.2, (0, 0, 0)),
                ("BACKGROUND", (0, 0), (-1, -1), (0.95, 0.95, 0.85)),
                ("TOPPADDING", (0, 0), (-1, -1), 7),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 9),
            ]
        )
    )
    return box


def _section_count(results: ResultsInfo) -> int:
    sections = (results.finalists, results.qualifiers, results.roll_offs)
    return len(results.pods) + sum(1 for s in sections if s)


def results_sheet(
    event: EventInfo,
    results: ResultsInfo,
    pagesize: PageSize = "letter",
    progress: Progress | None = None,
    *,
    compress: bool = True,
) -> bytes:
    """A PDF of a stage's results; progress counts sections (each pod is one)."""
    size = page_size(pagesize)
    width = content_width(size)
    counter = Counter(progress, _section_count(results))
    document = f"Results: {results.stage_label}"
    story: list[Flowable] = [*title_block(event, document, venue=True), Spacer(0, 12)]
    if results.winner:
        story += [_winner(results.winner, width), Spacer(0, 12)]
    if results.finalists:
        rows = [tuple(FinalistRow(*r)) for r in results.finalists]
        story += [
            KeepTogether(
                [
                    _heading("Final table"),
                    Spacer(0, 5),
                    data_table(("Seat", "Player", "Why", "Path"), rows, (8, 34, 30, 40), width),
                ]
            ),
            Tick(counter, 1),
            Spacer(0, 12),
        ]
    if results.qualifiers:
        rows = [
            (q.name, f"Pod {q.pod}", q.reason)
            for q in (QualifierRow(*r) for r in results.qualifiers)
        ]
        story += [
            _heading("Going on"),
            Spacer(0, 5),
            data_table(("Player", "Pod", "Why"), rows, (40, 12, 48), width),
            Tick(counter, 1),
            Spacer(0, 12),
        ]
    if results.roll_offs:
        story += [_heading("Roll-offs"), Spacer(0, 4)]
        story += [para(f"• {line}", SANS, 9.5) for line in results.roll_offs]
        story += [Tick(counter, 1), Spacer(0, 12)]
    header = ["Player", "Wins", "Losses", "Buncos", "Minis"]
    shares = [40, 10, 10, 10, 10]
    if event.snake_eyes:
        header.append("Snake\neyes")
        shares.append(11)
    header.append("Status")
    shares.append(22)
    numeric = range(1, len(header) - 1)
    for raw in sorted(results.pods, key=lambda pod: pod[0]):
        pod = PodResults(*raw)
        rows = []
        for row in (ResultRow(*r) for r in pod.rows):
            cells: list[object] = [row.name, row.wins, row.losses, row.buncos, row.minis]
            if event.snake_eyes:
                cells.append(row.snake_eyes)
            cells.append(row.status)
            rows.append(cells)
        table = data_table(header, rows, shares, width, numeric=numeric)
        story += [
            KeepTogether([_heading(f"Pod {pod.pod}"), Spacer(0, 5), table]),
            Tick(counter, 1),
            Spacer(0, 12),
        ]
    return build(event, document, story, size, compress)
