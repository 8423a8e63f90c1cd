"""Words and numbers on pages, printouts, messages and CSV files: "$1,234.50", "3rd",
"2 pods", "Pod 3" or "Overall", and whole numbers read from what people type or link.

Standard library only, so the engines, services, forms and views of both apps can all use
it without importing one another.
"""

from __future__ import annotations

import re
from decimal import Decimal

# Up to 18 ASCII digits: every value fits a 64-bit database integer.
_DIGITS = re.compile(r"[0-9]{1,18}")


def money(cents: int) -> str:
    """$1,234.50, and -$12.00 below zero: amounts as people read them."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${Decimal(abs(cents)) / 100:,.2f}"


def amount(cents: int) -> str:
    """1234.50 (no sign of the currency, no thousands separator): what a spreadsheet adds up
    and what an amount field shows to be typed again."""
    return f"{Decimal(cents) / 100:.2f}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def count(n: int, one: str, many: str | None = None) -> str:
    """ "1 pod", "2 pods": never "1 pods" or "pods 1 are"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def where(group: int | str, pod: int | None = None) -> str:
    """Pod 3, Overall, or the winning pod of a team prize.

    A prize's group is a pod number or the whole event's key; anything that is not a pod
    number is the whole event, so this needs nothing from the prize engine.
    """
    if pod is not None:
        return f"Pod {pod} (team)"
    return f"Pod {group}" if whole_number(str(group)) is not None else "Overall"


def whole_number(text: str) -> int | None:
    """The number `text` spells in ASCII digits, or None for anything else.

    `str.isdigit` says yes to "²" and "١٢" and to a 5000-digit string, and `int()` then
    raises ValueError on the first and refuses the last (Python caps int() at 4300 digits):
    a 500 from a typo or a crafted link. Pages read such numbers through this instead.
    """
    return int(text) if _DIGITS.fullmatch(text) else None


def first_error(form) -> str:
    """A bound form's first error as one line for a message: "Reason: This field is required."."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else None
        name = label or (field.replace("_", " ").capitalize() if field != "__all__" else "")
        return f"{name}: {errors[0]}" if name else errors[0]
    return "Please check the form."
