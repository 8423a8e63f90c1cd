"""Printouts as a pure rendering layer: plain frozen values in, PDF bytes out.

No Django here: a service turns models into the values in `inputs`, and a Celery task calls
one of these functions with the page size ("letter", "A4" or a reportlab size) and a
`progress(done, total)` callback. Each function returns the whole PDF as bytes.

- `score_cards`: cut-apart cards, six a page (four for long stages), each with a QR code
- `tally_sheets`: a half-page tally per table per set
- `seating_charts`: a page per pod with starting seats and the movement guide
- `results_sheet`, `payout_sheet`: ruled tables over as many pages as needed
- `charity_summary`: the night's money figures for the charity, on one page
- `packet`: cards, tallies and charts in one PDF
"""

from .charity_summary import charity_summary
from .inputs import (
    CardInfo,
    EventInfo,
    FinalistRow,
    PayoutLine,
    PodResults,
    PodSeating,
    QualifierRow,
    ResultRow,
    ResultsInfo,
    TableInfo,
)
from .packet import packet
from .payout_sheet import payout_sheet
from .results import results_sheet
from .score_cards import score_cards
from .seating_charts import seating_charts
from .tally_sheets import tally_sheets

__all__ = [
    "CardInfo",
    "EventInfo",
    "FinalistRow",
    "PayoutLine",
    "PodResults",
    "PodSeating",
    "QualifierRow",
    "ResultRow",
    "ResultsInfo",
    "TableInfo",
    "charity_summary",
    "packet",
    "payout_sheet",
    "results_sheet",
    "score_cards",
    "seating_charts",
    "tally_sheets",
]
