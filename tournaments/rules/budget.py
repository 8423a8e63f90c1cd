"""Whether the prizes fit the money taken: a pure check, in cents; and what the prize list
pays when every place is paid, which the prize pages, the winners page and the cash planner
all show, so it is counted here once.

It takes totals, not the tournament, so the entry fees counted at the door today and a
full cash book later can both feed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from scoring.rules.pods import pod_sizes

QUALIFYING, SEMI_FINAL = "qualifying", "semi_final"  # the stages a per-pod prize is counted over


class ListedPrize(Protocol):
    """A prize list's line as the budget reads it (a `PrizeCategory` is one)."""

    scope: str
    stage_kind: str
    amounts_cents: Sequence[int]


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


def expected_pods(
    drawn: Mapping[str, int],
    players: int,
    advancing_per_pod: int,
    *,
    pod_size: int,
    split: str,
) -> dict[str, int]:
    """The pods each stage has, or will have once drawn.

    A drawn stage counts its own pods. An undrawn qualifying stage counts the pods a draw of
    `players` would make; an undrawn semi-final, the pods a draw of every qualifying pod's
    `advancing_per_pod` players would make. So a per-pod prize of the semi-final is planned
    for before its draw, instead of counting as nothing (or as one per qualifying pod).
    """
    qualifying = drawn.get(QUALIFYING) or len(pod_sizes(players, pod_size, split))
    semi_final = drawn.get(SEMI_FINAL) or len(
        pod_sizes(qualifying * advancing_per_pod, pod_size, split)
    )
    return {QUALIFYING: qualifying, SEMI_FINAL: semi_final}


def prize_list_cents(prizes: Iterable[ListedPrize], pods: Mapping[str, int]) -> int:
    """Every place of the list paid: a per-pod prize once in each pod of the stage it is
    counted over, any other prize (overall, best pod) once."""
    return sum(
        sum(prize.amounts_cents) * (pods.get(prize.stage_kind, 0) if prize.scope == "pod" else 1)
        for prize in prizes
    )
