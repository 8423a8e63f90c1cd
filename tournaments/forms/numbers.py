"""Whole numbers read from a query string or a hand-made field (ids, pod and round numbers).

`str.isdigit` says yes to "²" and "١٢" and to a 5000-digit string, and `int()` then raises
ValueError on the first and refuses the last (Python caps int() at 4300 digits): a 500 from
a typo or a crafted link. Pages read such numbers through `whole_number` instead.
"""

from __future__ import annotations

import re

# Up to 18 ASCII digits: every value fits a 64-bit database integer.
_DIGITS = re.compile(r"[0-9]{1,18}")


def whole_number(text: str) -> int | None:
    """The number `text` spells in ASCII digits, or None for anything else."""
    return int(text) if _DIGITS.fullmatch(text) else None
