"""The night's cash boxes (the desk, the prize table): the opening float, the cash the book
expects, and the count at the end of the night by denomination, which closes the box. A
closed box refuses entries (`cashbook.open_box`), so its count stays true; what is still to
pay from a box, and where prizes are paid from once the prize table's box is counted.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError
from tournaments.rules import cashbook as book

from ..foundation.text import money
from ..models import CashBox, LedgerEntry, Tournament
from .cashbook import closed_boxes, entries, open_box
from .phase import paid_award_ids


def expected_cash(tournament: Tournament, key: str) -> int:
    box = CashBox.objects.filter(tournament=tournament, key=key).first()
    return book.expected_cash(entries(tournament), key, box.float_cents if box else 0)


@transaction.atomic
def set_float(tournament: Tournament, key: str, cents: int, *, actor) -> CashBox:
    """The cash put in a box before the doors open (change, prize money): not money raised."""
    if not 0 <= cents <= book.MAX_CENTS:
        raise UserFacingError("Enter an amount of zero or more.", field="amount")
    box = open_box(tournament, key)
    was, box.float_cents = box.float_cents, cents
    box.save(update_fields=["float_cents"])
    audit.record(
        "cashbook.float",
        f"{box}: opening float {money(cents)} (was {money(was)})",
        actor=actor,
        tournament=tournament,
        target=box,
        data={"float_cents": cents, "was_cents": was},
    )
    return box


@transaction.atomic
def close_box(
    tournament: Tournament, key: str, counts: dict[int, int], *, reason: str, actor
) -> CashBox:
    """Records the count by denomination and closes the box; a difference needs a reason."""
    box = open_box(tournament, key)
    counted = book.counted_cents(counts)
    expected = book.expected_cash(entries(tournament), key, box.float_cents)
    reason = " ".join(reason.split())[:300]
    if counted != expected and not reason:
        raise UserFacingError(
            f"The count is {money(counted)} but the book expects "
            f"{money(expected)}: say why they differ.",
            field="reason",
        )
    box.counts = {str(value): n for value, n in counts.items() if n}
    box.counted_cents, box.expected_cents = counted, expected
    box.difference_reason = reason
    box.closed_at = timezone.now()
    box.closed_by = actor if actor is not None and actor.is_authenticated else None
    box.save()
    audit.record(
        "cashbook.box_closed",
        f"{box} closed: counted {money(counted)}, expected {money(expected)}"
        + (f" ({reason})" if reason else ""),
        actor=actor,
        tournament=tournament,
        target=box,
        data={"counted_cents": counted, "expected_cents": expected, "counts": box.counts},
    )
    return box


def paid_later(tournament: Tournament) -> bool:
    """Both boxes counted: no prize is paid in cash tonight, the treasurer pays it later."""
    return book.payout_box(closed_boxes(tournament)) == ""


def payout_note(tournament: Tournament) -> str:
    """What the pay page says about where the cash comes from, "" in the usual case."""
    key = book.payout_box(closed_boxes(tournament))
    if key == book.PRIZE_TABLE:
        return ""
    if not key:
        return book.NO_BOX_TO_PAY_FROM
    return "The prize table's box was counted and closed: prizes are paid from the desk's box."


def unpaid_prizes(tournament: Tournament) -> tuple[int, int]:
    """The current awards not paid (`phase.paid_award_ids`): how many, and their cents."""
    found = (
        tournament.awards.current()
        .exclude(pk__in=paid_award_ids(tournament))
        .aggregate(n=Count("pk"), cents=Sum("amount_cents"))
    )
    return found["n"], found["cents"] or 0


def paid_from(award) -> str:
    """The box the award's newest payment came out of ("" for none)."""
    boxes = LedgerEntry.objects.filter(award=award, kind=book.PAYOUT).order_by("-pk")
    return boxes.values_list("box", flat=True).first() or ""
