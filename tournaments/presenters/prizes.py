"""The prize engine's results in words: notes on awards, why a place stays empty, counts.

The engine gives ids, numbers and codes (`tournaments.rules.prizes.results`); this module is
the one place they become sentences with the players' names, for the winners page, the
stored awards and anything printed from them. `names` maps a player's id to their name; an id
missing from it is shown as the id, as the engine's own tests name players by text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tournaments.foundation.text import ordinal

from ..rules.prizes import AwardNote, Decided, Passed, Unawarded, Unfilled, note_from_data
from ..rules.prizes.categories import where as where_in

Names = Mapping[Any, str]

NOUNS = {
    "most_buncos": ("bunco", "buncos"),
    "most_minis": ("mini bunco", "mini buncos"),
    "most_wins": ("win", "wins"),
    "most_losses": ("loss", "losses"),
}
NOBODY_SCORED = {
    "most_buncos": "No eligible player rolled a bunco",
    "most_minis": "No eligible player rolled a mini bunco",
    "most_wins": "No eligible player won a round",
    "most_losses": "No eligible player lost a round",
    "even_split": "No eligible player has as many wins as losses",
    "last_bunco": "No eligible player rolled a bunco",
}


def value_text(measure: str, value: int | None) -> str:
    """The count a place was won on: "1 bunco", "3 wins"; empty when the measure has none."""
    if value is None:
        return ""
    if measure in NOUNS:
        one, many = NOUNS[measure]
        return f"{value} {one if value == 1 else many}"
    return str(value)


def who(scope: str, pid: Any, names: Names) -> str:
    """A roll-off's or a group prize's entrant: a player, or a pod for a best-pod prize."""
    return f"Pod {pid}" if scope == "pod_group" else names.get(pid, str(pid))


def _name(pid: Any, names: Names) -> str:
    return names.get(pid, str(pid))


def _places_text(first: int, count: int) -> str:
    if count == 1:
        return f"{ordinal(first)} place amount"
    joint = " and " if count == 2 else " to "
    return f"{ordinal(first)}{joint}{ordinal(first + count - 1)} place amounts"


def note_text(note: AwardNote, measure: str, names: Names) -> str:
    """How a place was decided: "2 tied for 1st share the 1st and 2nd place amounts"."""
    if note.decided == Decided.SPLIT:
        how = (
            f"{note.tied} tied for {ordinal(note.place)} share the "
            f"{_places_text(note.place, note.shared_places)}"
        )
    elif note.decided == Decided.ROLL_OFF:
        rivals = (f"pod {p}" if note.pod is not None else _name(p, names) for p in note.rolled_with)
        how = f"Won {ordinal(note.place)} place in a roll-off with {', '.join(rivals)}"
    elif note.decided == Decided.JUDGED:
        how = "Chosen by the judges"
    elif note.decided == Decided.HELD:
        how = "Held the traveling item at the end"
    else:
        how = ""
    if note.pod is None:
        return how
    share = f"shared by the {note.members} eligible members of pod {note.pod}"
    if note.value is not None:
        share = f"{value_text(measure, note.value)}, {share}"
    return f"{how}; {share}" if how else share[:1].upper() + share[1:]


def passed_text(passed: Iterable[Passed], names: Names) -> str:
    """Whom an award moved up past: "Ann already won Most Wins (the whole event)"."""
    return "; ".join(
        f"{_name(p.player, names)} already won {p.label} ({where_in(p.scope_group)})"
        for p in passed
    )


def unawarded_text(u: Unawarded, names: Names) -> str:
    """Why a place stays empty, as a sentence without its full stop."""
    place = ordinal(u.place)
    match u.reason:
        case Unfilled.NOBODY_HOLDS:
            return "Nobody was named as holding the traveling item"
        case Unfilled.NOT_CHOSEN:
            return "No winner has been chosen"
        case Unfilled.NOT_ELIGIBLE:
            return f"{_name(u.player, names)} is not eligible: {u.why or 'no reason given'}"
        case Unfilled.NO_POD_ELIGIBLE:
            return "No pod has an eligible player"
        case Unfilled.NOBODY_SCORED:
            return NOBODY_SCORED[u.measure]
        case Unfilled.NOT_ENOUGH_PODS:
            return f"Not enough pods for {place} place"
        case Unfilled.POD_NOBODY_ELIGIBLE:
            return f"Nobody in pod {u.pod} is eligible"
        case Unfilled.NOBODY_ELIGIBLE:
            return f"No eligible player in {where_in(u.scope_group)}"
        case Unfilled.ALL_LEFT_WON:
            return f"Everyone left for {place} place already won a prize"
        case Unfilled.NOT_ENOUGH_PLAYERS:
            return f"Not enough eligible players for {place} place"
    raise ValueError(f"No wording for {u.reason!r}.")


def stored_note_text(why: Mapping[str, Any], measure: str, names: Names) -> str:
    """A stored award's note, worded as the plan's: the note, then whom it moved up past.

    Awards stored before notes were kept as data carry the sentence as it was then shown
    (`as_written`, see migration 0025)."""
    if "as_written" in why:
        return why["as_written"]
    if not why:
        return ""
    note, passed = note_from_data(why)
    return "; ".join(filter(None, (note_text(note, measure, names), passed_text(passed, names))))
