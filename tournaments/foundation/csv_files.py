"""The one way the site writes a CSV file for a spreadsheet, and the formula guard.

Every export (players, score cards, the cash book, the prize ledger) goes through `to_csv`
and `csv_response`, so each starts with the byte-order mark Excel needs to read UTF-8
(without it "José" opens as "JosÃ©") and is served the same way. Cells people typed go
through `neutralise` first; the player import reads them back with `unneutralise`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from django.http import HttpResponse

# What a spreadsheet takes as the start of a formula (or, for tab and carriage return, as a
# cell break that can hide one).
FORMULA_STARTS: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


def neutralise(value: str) -> str:
    """Prefixes an apostrophe to a cell a spreadsheet would evaluate (CSV formula injection).

    Names and groups come from the public registration form; "=HYPERLINK(...)" in a name
    must reach the organiser's Excel as text, not as a live link or command. A value that
    already starts with apostrophes before such a character gets one more, so the import can
    always take exactly one off and get back what was stored.
    """
    return f"'{value}" if value.lstrip("'").startswith(FORMULA_STARTS) else value


def unneutralise(cell: str) -> str:
    """Undoes `neutralise`, so "+1 555 0100" survives an export and re-import unchanged."""
    if cell.startswith("'") and cell.lstrip("'").startswith(FORMULA_STARTS):
        return cell[1:]
    return cell


def to_csv(rows: Iterable[Iterable[object]]) -> str:
    """Rows as CSV text with a BOM; callers neutralise cells people typed (`neutralise`)."""
    out = io.StringIO()
    out.write(BOM)
    csv.writer(out).writerows(rows)
    return out.getvalue()


def csv_response(text: str, filename: str) -> HttpResponse:
    """`text` from `to_csv`, downloaded as `filename`."""
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
