"""Ranking and ties: places down a ranking, shared under "split" or thrown for under "roll_off".

A tie's dice come in as entered faces keyed by the tie's `key`, or are rolled from one
seeded stream (see `awarding` for the two phases); either way every face is kept, so a
result can be replayed from what was recorded.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

from scoring.rules.dice import DieSource
from scoring.rules.errors import EngineBug, RuleError
from scoring.rules.tiebreak import RollOff, roll_off

from .categories import COUNTED, CategoryRule, PlayerId, PlayerTotals, PodId, ScopeGroup
from .results import AwardNote, Decided, PrizeTie, split_cents

Dice = random.Random | DieSource | Sequence[int]


def faces_thrown(rolled: RollOff) -> tuple[int, ...]:
    """Every face of a roll-off in the order thrown: what a staff screen stores for a tie."""
    return tuple(face for faces in rolled.rounds for face in faces.values())


def settle_prize_tie(tie: PrizeTie, dice: Dice) -> RollOff:
    """Roll off only the places the tie covers; entered faces must all be used."""
    if isinstance(dice, random.Random) or callable(dice):
        return roll_off(tie.players, dice, places=tie.places)
    faces = list(dice)
    result = roll_off(tie.players, iter(faces).__next__, places=tie.places)
    used = len(faces_thrown(result))
    if used != len(faces):
        raise RuleError(
            f"{len(faces)} dice were entered for the {tie.label} roll-off ({tie.key}), but it "
            f"was decided after {used}; check the entry."
        )
    return result


@dataclass(frozen=True, slots=True)
class Entry:
    """A player or pod in a ranking: `rank` orders (higher first), `value` is shown."""

    id: PlayerId | PodId
    rank: int
    value: int | None


@dataclass(frozen=True, slots=True)
class Placing:
    """A place decided by the ranking: one winner, or tied winners sharing `cents`."""

    place: int
    ids: tuple[PlayerId | PodId, ...]
    cents: tuple[int, ...]
    rank: int
    value: int | None
    note: AwardNote
    roll_off: RollOff | None = None


@dataclass(frozen=True)
class Outcome:
    """The places given, the first place left empty, and the ties waiting for dice."""

    placings: tuple[Placing, ...]
    first_unfilled: int
    waiting: tuple[PrizeTie, ...]
    thrown: frozenset[str]  # the keys of the ties whose entered dice were used


def entry(totals: PlayerTotals, measure: str) -> Entry | None:
    """Where a player ranks on a measure, or `None` when they have nothing to rank by."""
    if measure in COUNTED:
        count = getattr(totals, COUNTED[measure])
        return Entry(totals.player, count, count) if count > 0 else None
    if measure == "even_split":
        # Everyone with an even split is equally good: one shared rank, no count to show.
        return Entry(totals.player, 0, None) if totals.wins == totals.losses > 0 else None
    if measure == "last_bunco":
        order = totals.last_bunco
        return None if order is None else Entry(totals.player, order, None)
    raise EngineBug(f"The measure {measure!r} is not ranked from totals.")


def place_entries(
    category: CategoryRule,
    group: ScopeGroup,
    entries: Sequence[Entry],
    dice: Mapping[str, Dice],
) -> Outcome:
    """Give places down the ranking; equal ranks share (split) or throw dice (roll_off)."""
    ranked = sorted(entries, key=lambda e: (-e.rank, e.id))
    amounts = category.amounts_cents
    placings: list[Placing] = []
    waiting: list[PrizeTie] = []
    thrown: set[str] = set()
    place = 1
    for rank, tier_entries in groupby(ranked, key=lambda e: e.rank):
        if place > category.places:
            break
        tier = tuple(tier_entries)
        ids = tuple(e.id for e in tier)
        value = tier[0].value
        if len(tier) == 1:
            note = AwardNote(place=place)
            placings.append(Placing(place, ids, (amounts[place - 1],), rank, value, note))
        elif category.tie_policy == "split":
            covered = amounts[place - 1 : place - 1 + len(tier)]
            note = AwardNote(Decided.SPLIT, place, tied=len(tier), shared_places=len(covered))
            cents = split_cents(sum(covered), len(tier))
            placings.append(Placing(place, ids, cents, rank, value, note))
        else:
            tie = PrizeTie(
                f"{category.key}:{group}:{place}",
                category.key,
                category.label,
                group,
                place,
                min(len(tier), category.places - place + 1),
                ids,
                value,
            )
            chosen = dice.get(tie.key)
            if chosen is None:
                waiting.append(tie)
            else:
                thrown.add(tie.key)
                rolled = settle_prize_tie(tie, chosen)
                for n, winner in enumerate(rolled.order[: tie.places]):
                    others = tuple(i for i in ids if i != winner)
                    note = AwardNote(Decided.ROLL_OFF, place + n, rolled_with=others)
                    cents = (amounts[place - 1 + n],)
                    placings.append(Placing(place + n, (winner,), cents, rank, value, note, rolled))
        place += len(tier)
    return Outcome(
        tuple(placings), min(place, category.places + 1), tuple(waiting), frozenset(thrown)
    )
