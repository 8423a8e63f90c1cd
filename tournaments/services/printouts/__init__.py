"""Printouts: models in, the plain values of `tournaments.printouts` out; asking for a PDF,
making it (from a Celery task) and throwing it away a day later.

- `documents`: a printout row's PDF from the database (cards, tallies, charts, results,
  payout sheet); `render` is what the task calls.
- `jobs`: `request_printout` (the task is sent after commit; if the broker is down the row
  waits and `send_waiting` sends it later), `produce` (the task's body: safe to run twice,
  one file) and `purge_expired`.
- `resend`: a printout whose message the queue lost (Redis restarted empty) is sent again by
  a periodic sweep (`resend_stuck`) or an admin's Try again (`retry_printout`).
- `links`: the signed link a score card's QR code opens.
"""

from .documents import (
    NEEDS_STAGE,
    TAKES_POD,
    card_infos,
    describe,
    event_info,
    file_name,
    page_count,
    payout_lines,
    pod_seatings,
    printable_stages,
    render,
    results_info,
    table_infos,
)
from .jobs import (
    KEEP_FOR,
    QUEUE_DOWN,
    UserFacingError,
    produce,
    purge_expired,
    request_printout,
    send_waiting,
    waiting_for_queue,
)
from .links import card_token, card_url, read_card_token
from .resend import STUCK_AFTER, resend_stuck, retry_printout, stuck

__all__ = [
    "KEEP_FOR",
    "NEEDS_STAGE",
    "QUEUE_DOWN",
    "STUCK_AFTER",
    "TAKES_POD",
    "UserFacingError",
    "card_infos",
    "card_token",
    "card_url",
    "describe",
    "event_info",
    "file_name",
    "page_count",
    "payout_lines",
    "pod_seatings",
    "printable_stages",
    "produce",
    "purge_expired",
    "read_card_token",
    "render",
    "request_printout",
    "resend_stuck",
    "results_info",
    "retry_printout",
    "send_waiting",
    "stuck",
    "table_infos",
    "waiting_for_queue",
]
