"""Whether the prizes fit the money taken: a pure check, in cents.

It takes totals, not the tournament, so the entry fees counted at the door today and a
full cash book later can both feed it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PrizeBudget:
    money_in_cents: int
    prizes_cents: int
    share_percent: int | None = None  # None: every cent taken may go to prizes

    @property
    def cap_cents(self) -> int:
        if self.share_percent is None:
            return self.money_in_cents
        return self.money_in_cents * self.share_percent // 100

    @property
    def over_cents(self) -> int:
        return max(self.prizes_cents - self.cap_cents, 0)

    @property
    def over(self) -> bool:
        return self.over_cents > 0

    @property
    def charity_cents(self) -> int:
        """What the charity keeps once these prizes are paid (negative: it pays in)."""
        return self.money_in_cents - self.prizes_cents


def prize_budget(
    money_in_cents: int, prizes_cents: int, share_percent: int | None = None
) -> PrizeBudget:
    if money_in_cents < 0 or prizes_cents < 0:
        raise ValueError("Money in and prizes are amounts, never below zero.")
    if share_percent is not None and not 0 < share_percent <= 100:
        raise ValueError("The prizes' share is a percentage from 1 to 100.")
    return PrizeBudget(money_in_cents, prizes_cents, share_percent)
