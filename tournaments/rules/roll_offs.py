"""One tie, one roll-off: which tie of a cut and which tie of a prize are the same tie.

Pure Python with no Django, like `rules/prizes/` and `draws.py`. The qualifying stage's cut for
"most wins" in pod 3 and a "Most wins" prize per pod counted over the same stage rank the
same players by the same count, so a tie between the same players is one tie: the dice thrown
for one settle the other, instead of the same players throwing twice and perhaps winning
one and losing the other. A prize whose ties split the money has no roll-off to share.

Both the cut and the prize engines list tied players by id, so the same faces replay the
same throws in either; the services still check that the faces settle the other tie (a tie
for more places may need more dice than the first one threw) before using them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TypeVar

SEMI_GROUP = "semi-final"
# The cut's categories and the prize measures that rank players by the same count.
CUT_MEASURES = {"wins": "most_wins", "buncos": "most_buncos"}

T = TypeVar("T")


@dataclass(frozen=True)
class Tied:
    """A tie in the terms a cut and a prize share: where, on what count, between whom."""

    stage_kind: str
    group: str  # a pod number as text, or the semi-final (cut as one group)
    measure: str
    players: frozenset[Hashable]


def cut_tied(stage_kind: str, group: str, category_key: str, players: Iterable) -> Tied | None:
    measure = CUT_MEASURES.get(category_key)
    if measure is None:
        return None
    return Tied(stage_kind, str(group), measure, frozenset(players))


def prize_tied(
    stage_kind: str, scope: str, measure: str, scope_group, players: Iterable
) -> Tied | None:
    """A per-pod prize matches a pod's cut; an overall prize of the semi-final matches the
    semi-final's cut, which takes its players as one group. Nothing else has a cut twin."""
    if measure not in CUT_MEASURES.values():
        return None
    if scope == "pod":
        group = str(scope_group)
    elif scope == "overall" and stage_kind == "semi_final":
        group = SEMI_GROUP
    else:
        return None
    return Tied(stage_kind, group, measure, frozenset(players))


def cut_key(tie: Tied) -> tuple[str, str]:
    """The cut group and category a tie would be in: where a shared roll-off is shown."""
    return tie.group, next(k for k, m in CUT_MEASURES.items() if m == tie.measure)


def settled_by(tie: Tied | None, recorded: Iterable[tuple[Tied | None, T]]) -> T | None:
    """The recorded roll-off that already settled this same tie, if any."""
    if tie is None:
        return None
    return next((roll_off for other, roll_off in recorded if other == tie), None)
