"""Awarding: one walk over the categories in priority order, in the two phases of dice.

`pending_prize_roll_offs` and `award_prizes` share the walk (`_decide`), so asking which ties
need dice and settling them later cannot differ. The walk remembers who already won, for
`one_prize_per_player`, and which players wait on a roll-off before a later category.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import replace
from itertools import pairwise

from scoring.rules.dice import DieSource
from scoring.rules.errors import EngineBug, RuleError

from .categories import (
    COUNTED,
    NAMED_MEASURES,
    OVERALL,
    CategoryRule,
    Named,
    PlayerId,
    PlayerTotals,
    PodId,
    ScopeGroup,
    check_categories,
    where,
)
from .ranking import (
    Dice,
    Entry,
    Outcome,
    Placing,
    entry,
    faces_thrown,
    place_entries,
    settle_prize_tie,
)
from .results import (
    Award,
    AwardNote,
    Decided,
    Passed,
    PrizeResult,
    PrizeTie,
    Unawarded,
    Unfilled,
    split_cents,
)

PrizeDice = random.Random | DieSource | Mapping[str, Dice]


def pending_prize_roll_offs(
    totals: Iterable[PlayerTotals],
    categories: Iterable[CategoryRule],
    *,
    named: Named | None = None,
    dice: Mapping[str, Dice] | None = None,
    one_prize_per_player: bool = False,
) -> tuple[PrizeTie, ...]:
    """The roll-offs to throw next, given the dice entered so far; empty once all are in."""
    if dice is not None and not isinstance(dice, Mapping):
        raise TypeError("Entered dice are a mapping from a tie's key to its faces.")
    return _decide(totals, categories, named, dice or {}, one_prize_per_player)[1]


def award_prizes(
    totals: Iterable[PlayerTotals],
    categories: Iterable[CategoryRule],
    *,
    named: Named | None = None,
    dice: PrizeDice | None = None,
    one_prize_per_player: bool = False,
) -> PrizeResult:
    """Award every category (see the package for the rules and the two phases of dice).

    `named` maps a judged or traveling category's key to its winners per scope group (a pod,
    or "overall"): one id, or a list or tuple of ids in place order (pods for a group prize).
    `dice` is the mapping of entered faces, or one `random.Random`/`DieSource` to roll every
    tie on screen.
    """
    totals = tuple(totals)
    categories = tuple(categories)
    if dice is None or isinstance(dice, Mapping):
        entered: Mapping[str, Dice] = dice or {}
    elif isinstance(dice, random.Random) or callable(dice):
        entered = _roll_pending(totals, categories, named, dice, one_prize_per_player)
    else:
        raise TypeError("Dice are a random.Random, a DieSource or a mapping of entered faces.")
    result, pending, used = _decide(totals, categories, named, entered, one_prize_per_player)
    if pending:
        tie = pending[0]
        raise RuleError(
            f"{tie.label} ({where(tie.scope_group)}) needs a roll-off between "
            f"{', '.join(map(str, tie.players))} before prizes can be awarded."
        )
    unused = set(entered) - used
    if unused:
        raise RuleError(
            f"Dice were entered for {', '.join(sorted(unused))}, which needs no roll-off; "
            "remove them."
        )
    assert result is not None  # _decide builds a result whenever nothing is pending
    return result


def _roll_pending(
    totals: tuple[PlayerTotals, ...],
    categories: tuple[CategoryRule, ...],
    named: Named | None,
    stream: random.Random | DieSource,
    one_prize_per_player: bool,
) -> dict[str, Dice]:
    """Throw the pending ties in the order listed, phase by phase, as staff would."""
    entered: dict[str, Dice] = {}
    while pending := _decide(totals, categories, named, entered, one_prize_per_player)[1]:
        for tie in pending:
            if tie.key in entered:
                raise EngineBug(f"The roll-off {tie.key} is pending after it was thrown.")
            entered[tie.key] = faces_thrown(settle_prize_tie(tie, stream))
    return entered


def _decide(
    totals: Iterable[PlayerTotals],
    categories: Iterable[CategoryRule],
    named: Named | None,
    dice: Mapping[str, Dice],
    one_prize_per_player: bool,
) -> tuple[PrizeResult | None, tuple[PrizeTie, ...], set[str]]:
    """The one walk behind both phases, so asking first and settling later cannot differ."""
    walk = _Walk(_check_totals(totals), dice, one_prize_per_player)
    ordered = check_categories(categories)
    names = walk.check_named(named or {}, ordered)
    for category in ordered:
        for group in walk.pods if category.scope == "pod" else (OVERALL,):
            if category.measure in NAMED_MEASURES:
                walk.named(category, group, names.get((category.key, group), ()))
            elif category.scope == "pod_group":
                walk.pod_group(category)
            else:
                walk.ranked_players(category, group)
    if walk.pending:
        return None, tuple(walk.pending), walk.used
    return PrizeResult(tuple(walk.awards), tuple(walk.unawarded)), (), walk.used


def _check_totals(totals: Iterable[PlayerTotals]) -> tuple[PlayerTotals, ...]:
    """Sort by player so the result does not depend on the order the totals came in."""
    given = tuple(totals)
    if not given:
        raise RuleError("Prizes need the players' totals; none were given.")
    for kind, ids in (("Player", [t.player for t in given]), ("Pod", [t.pod for t in given])):
        if len({type(i) for i in ids}) > 1:
            raise RuleError(f"{kind} ids must be all numbers or all text in one call.")
    ordered = tuple(sorted(given, key=lambda t: t.player))
    for before, after in pairwise(ordered):
        if before.player == after.player:
            raise RuleError(f"Player {after.player!r} has two sets of totals.")
    return ordered


class _Walk:
    """State of one pass over the categories: who already won, and what still needs dice."""

    def __init__(
        self, totals: tuple[PlayerTotals, ...], dice: Mapping[str, Dice], one_prize: bool
    ) -> None:
        self.totals = totals
        self.by_player = {t.player: t for t in totals}
        self.pods = tuple(sorted({t.pod for t in totals}))
        self.by_pod = {pod: tuple(t for t in totals if t.pod == pod) for pod in self.pods}
        self.dice = dice
        self.one_prize = one_prize
        self.won: dict[PlayerId, Passed] = {}  # player -> the prize that blocks them
        self.undecided: set[PlayerId] = set()  # may or may not win, pending a roll-off
        self.awards: list[Award] = []
        self.unawarded: list[Unawarded] = []
        self.pending: list[PrizeTie] = []
        self.used: set[str] = set()

    def check_named(
        self, named: Named, categories: tuple[CategoryRule, ...]
    ) -> dict[tuple[str, ScopeGroup], tuple[PlayerId | PodId, ...]]:
        """Winners named by a person, checked against the categories and who is in scope."""
        by_key = {c.key: c for c in categories}
        checked: dict[tuple[str, ScopeGroup], tuple[PlayerId | PodId, ...]] = {}
        for key, groups in named.items():
            category = by_key.get(key)
            if category is None or category.measure not in NAMED_MEASURES:
                raise RuleError(
                    f"Winners are named only for judged and traveling prizes, not for {key!r}."
                )
            valid = self.pods if category.scope == "pod" else (OVERALL,)
            for group, winners in groups.items():
                if group not in valid:
                    raise RuleError(f"{category.label} has no group {group!r}.")
                ids = tuple(winners) if isinstance(winners, list | tuple) else (winners,)
                if len(ids) > category.places:
                    raise RuleError(
                        f"{category.label} ({where(group)}) has {category.places} place(s), "
                        f"but {len(ids)} winners were named."
                    )
                if len(set(ids)) != len(ids):
                    raise RuleError(f"{category.label} names the same winner twice.")
                for winner in ids:
                    self._check_in_scope(category, group, winner)
                checked[key, group] = ids
        return checked

    def _check_in_scope(
        self, category: CategoryRule, group: ScopeGroup, winner: PlayerId | PodId
    ) -> None:
        if category.scope == "pod_group":
            if winner not in self.by_pod:
                raise RuleError(f"{category.label}: there is no pod {winner!r}.")
            return
        totals = self.by_player.get(winner)
        if totals is None:
            raise RuleError(f"{category.label}: there is no player {winner!r}.")
        if group != OVERALL and totals.pod != group:
            raise RuleError(
                f"{category.label} (pod {group}): player {winner!r} plays in pod {totals.pod}."
            )

    def named(
        self,
        category: CategoryRule,
        group: ScopeGroup,
        winners: tuple[PlayerId | PodId, ...],
    ) -> None:
        """Pay whom a person named, if they may be paid; a missing name leaves the place open."""
        holder = category.measure == "traveling_holder"
        for place in range(1, category.places + 1):
            if place > len(winners):
                why = Unfilled.NOBODY_HOLDS if holder else Unfilled.NOT_CHOSEN
                self._unfilled(category, group, place, why)
                continue
            winner = winners[place - 1]
            amount = category.amounts_cents[place - 1]
            if category.scope == "pod_group":
                note = AwardNote(Decided.JUDGED, place)
                placing = Placing(place, (winner,), (amount,), 0, None, note)
                self._pod_award(category, placing, winner, amount)
                continue
            totals = self.by_player[winner]
            if not totals.eligible:
                self._unfilled(
                    category, group, place, Unfilled.NOT_ELIGIBLE, player=winner, why=totals.reason
                )
                continue
            note = AwardNote(Decided.HELD if holder else Decided.JUDGED, place)
            self.awards.append(
                Award(category.key, category.label, group, place, (winner,), (amount,), note=note)
            )

    def pod_group(self, category: CategoryRule) -> None:
        """Rank pods by the sum of their eligible members; each winning pod's members share."""
        count = COUNTED[category.measure]
        entries = []
        for pod in self.pods:
            members = [t for t in self.by_pod[pod] if t.eligible]
            total = sum(getattr(t, count) for t in members)
            if members and total > 0:
                entries.append(Entry(pod, total, total))
        outcome = self._place(category, OVERALL, entries)
        for placing in outcome.placings:
            for pod, cents in zip(placing.ids, placing.cents, strict=True):
                self._pod_award(category, placing, pod, cents)
        for place in range(outcome.first_unfilled, category.places + 1):
            if not any(t.eligible for t in self.totals):
                why = Unfilled.NO_POD_ELIGIBLE
            elif not entries:
                why = Unfilled.NOBODY_SCORED
            else:
                why = Unfilled.NOT_ENOUGH_PODS
            self._unfilled(category, OVERALL, place, why)

    def _pod_award(self, category: CategoryRule, placing: Placing, pod: PodId, cents: int) -> None:
        members = tuple(t.player for t in self.by_pod[pod] if t.eligible)
        if not members:
            self._unfilled(category, OVERALL, placing.place, Unfilled.POD_NOBODY_ELIGIBLE, pod=pod)
            return
        note = replace(placing.note, pod=pod, members=len(members), value=placing.value)
        award = Award(
            category.key,
            category.label,
            OVERALL,
            placing.place,
            members,
            split_cents(cents, len(members)),
            via_roll_off=placing.roll_off is not None,
            roll_off=placing.roll_off,
            note=note,
            value=placing.value,
            pod=pod,
        )
        self.awards.append(award)

    def ranked_players(self, category: CategoryRule, group: ScopeGroup) -> None:
        """Rank eligible players by the measure, passing over earlier winners if asked to."""
        members = self.totals if group == OVERALL else self.by_pod[group]
        eligible = [t for t in members if t.eligible]
        scored = [e for t in eligible if (e := entry(t, category.measure)) is not None]
        if self.one_prize and any(e.id in self.undecided for e in scored):
            self.undecided.update(e.id for e in scored)  # wait for the earlier roll-off
            return
        passed = [e for e in scored if e.id in self.won]  # `won` is kept only for one_prize
        free = [e for e in scored if e.id not in self.won]
        outcome = self._place(category, group, free)
        for placing in outcome.placings:
            because = tuple(self.won[e.id] for e in passed if e.rank >= placing.rank)
            award = Award(
                category.key,
                category.label,
                group,
                placing.place,
                placing.ids,
                placing.cents,
                via_roll_off=placing.roll_off is not None,
                roll_off=placing.roll_off,
                note=placing.note,
                value=placing.value,
                moved_up_because=because,
            )
            self.awards.append(award)
        if self.one_prize:
            winners = [p for placing in outcome.placings for p in placing.ids]
            for tie in outcome.waiting:
                if len(tie.players) > tie.places:
                    self.undecided.update(tie.players)
                else:
                    winners += tie.players  # all of them place; only the order is open
            self.won.update({p: Passed(p, category.key, category.label, group) for p in winners})
        for place in range(outcome.first_unfilled, category.places + 1):
            if not eligible:
                why = Unfilled.NOBODY_ELIGIBLE
            elif not scored:
                why = Unfilled.NOBODY_SCORED
            elif passed and place <= len(scored):
                why = Unfilled.ALL_LEFT_WON
            else:
                why = Unfilled.NOT_ENOUGH_PLAYERS
            self._unfilled(category, group, place, why)

    def _place(self, category: CategoryRule, group: ScopeGroup, entries: list[Entry]) -> Outcome:
        outcome = place_entries(category, group, entries, self.dice)
        self.used |= outcome.thrown
        self.pending += outcome.waiting
        return outcome

    def _unfilled(
        self,
        category: CategoryRule,
        group: ScopeGroup,
        place: int,
        reason: Unfilled,
        **detail: PlayerId | PodId | str,
    ) -> None:
        self.unawarded.append(
            Unawarded(
                category.key, category.label, group, place, reason, category.measure, **detail
            )
        )
