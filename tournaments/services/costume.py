"""Who is offered for a player's costume prize: those who entered the contest when they
registered (the tick on the form, the CSV's costume column, the desk's walk-in form)."""

from __future__ import annotations

from ..models import Player, PrizeCategory

# Player-level judged prizes that are about a costume (the team prize is chosen by pod).
COSTUME_KEYS = frozenset({"costume"})


def entrants_only(category: PrizeCategory, candidates: set[int] | list[int]) -> set[int]:
    """The candidates who entered the costume contest, for a costume prize; everyone for any
    other prize. An event where nobody ticked it (an import without the column) offers
    everyone, rather than a prize nobody can win."""
    candidates = set(candidates)
    if category.key not in COSTUME_KEYS or category.scope == "pod_group":
        return candidates
    entered = set(
        Player.objects.filter(
            tournament_id=category.tournament_id, costume_contest=True
        ).values_list("pk", flat=True)
    )
    return candidates & entered if entered else candidates


def offered_rows(category: PrizeCategory, rows: list) -> list:
    """The prize's candidate rows (anything with a `player` id) that may be picked."""
    if category.scope == "pod_group":
        return rows
    offered = entrants_only(category, [r.player for r in rows])
    return [r for r in rows if r.player in offered]
