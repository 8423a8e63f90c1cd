"""Reading printed PDFs back the way a checker would: text by where it sits on the page."""

from collections import defaultdict

import pypdf

from tournaments.printouts.layout import cells
from tournaments.printouts.score_cards import card_geometry


def placed_text(page: pypdf.PageObject) -> list[tuple[float, float, str]]:
    """(x, y, text) of the text drawn for one card or sheet, in page coordinates.

    Per-card text is drawn under the cell's translation; the text of the shared form XObject
    comes back once, in the form's own coordinates (no translation), and is left out.
    """
    found = []

    def visit(text, cm, tm, font, size):
        if text.strip() and (cm[4], cm[5]) != (0, 0):
            found.append((cm[4] + tm[4] * cm[0], cm[5] + tm[5] * cm[3], text.strip()))

    page.extract_text(visitor_text=visit)
    return found


def cards_by_cell(reader: pypdf.PdfReader, event, pagesize) -> list[list[str]]:
    """The per-player texts of every card cell that has any, page by page, cell by cell."""
    geometry = card_geometry(event, pagesize)
    slots = cells(pagesize, geometry.cols, geometry.rows)
    found = []
    for page in reader.pages:
        by_slot = defaultdict(list)
        for x, y, text in placed_text(page):
            for i, (sx, sy, w, h) in enumerate(slots):
                if sx <= x < sx + w and sy <= y < sy + h:
                    by_slot[i].append(text)
        found += [by_slot[i] for i in sorted(by_slot)]
    return found
