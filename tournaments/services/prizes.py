"""Prizes from verified cards: what each category awards, and to whom.

The selection is `tournaments.rules.prizes` (pure); this module feeds it the verified totals, the
judges' picks, the traveling item's last holder and any roll-off dice, and stores the awards.
Paying them in cash (and voiding a payment) is `payouts`; the figures are `ledger`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from scoring.rules import RuleError
from scoring.services.cards import load_stage
from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError
from tournaments.rules.draws import prize_roll_off_subject
from tournaments.rules.prizes import (
    OVERALL,
    TEMPLATES,
    PlayerTotals,
    PrizeResult,
    PrizeTie,
    award_prizes,
    faces_thrown,
    note_data,
    pending_prize_roll_offs,
    settle_prize_tie,
)

from ..models import (
    Player,
    PrizeAward,
    PrizeCategory,
    PrizeNomination,
    RollOff,
    Tournament,
    TravelingPass,
)
from . import draws, roll_offs
from .final_table import present_participants
from .last_bunco import last_bunco as night_last_bunco
from .prize_categories import paid_started
from .roll_offs import ForPrizes

PICKS_LOCKED = "Prizes are being paid: the awards no longer change, so neither do their picks."


@transaction.atomic
def load_template(tournament: Tournament, name: str, *, actor) -> list[PrizeCategory]:
    """Copies a rule sheet's prize list into the tournament, where the organiser edits it."""
    if name not in TEMPLATES:
        raise UserFacingError(f"There is no prize template called {name!r}.")
    if tournament.prize_categories.exists():
        raise UserFacingError("This tournament has prize categories already.")
    made = PrizeCategory.objects.bulk_create(
        PrizeCategory(
            tournament=tournament,
            key=c.key,
            label=c.label,
            measure=c.measure,
            scope=c.scope,
            amounts_cents=list(c.amounts_cents),
            tie_policy=c.tie_policy,
            priority=c.priority,
        )
        for c in TEMPLATES[name]
    )
    audit.record(
        "prizes.template",
        f"Prize list {name!r} loaded ({len(made)} categories)",
        actor=actor,
        tournament=tournament,
    )
    return made


def player_totals(tournament: Tournament, stage_kind: str) -> list[PlayerTotals]:
    """Verified cards of a stage; a player who is unverified or gone is not eligible.

    The last bunco is a place in the order the buncos were recorded (`last_bunco.py`)."""
    stage = tournament.stages.filter(kind=stage_kind).first()
    if stage is None:
        return []
    cards = load_stage(stage)
    present = set(present_participants(tournament))
    last_bunco = night_last_bunco(stage).order()
    totals = []
    for player, pod in cards.pod_of.items():
        state = cards.states[player]
        card = state.official
        reason = ""
        if not state.verified:
            reason = "Card not verified"
        elif player not in present:
            reason = "Not present"
        buncos = card.buncos if card else 0
        totals.append(
            PlayerTotals(
                player,
                pod,
                wins=card.wins if card else 0,
                losses=card.losses if card else 0,
                buncos=buncos,
                minis=card.minis if card else 0,
                snake_eyes=card.snake_eyes if card else 0,
                last_bunco=last_bunco.get(player) if buncos else None,
                eligible=not reason,
                reason=reason,
            )
        )
    return totals


def _group_key(group: str) -> int | str:
    return OVERALL if group == OVERALL else int(group)


def named_winners(tournament: Tournament) -> dict[str, dict]:
    named: dict[str, dict] = {}
    for n in PrizeNomination.objects.filter(category__tournament=tournament).select_related(
        "category"
    ):
        named.setdefault(n.category.key, {})[_group_key(n.scope_group)] = list(n.winners)
    holder = TravelingPass.objects.filter(tournament=tournament).last()
    for category in tournament.prize_categories.filter(measure="traveling_holder"):
        if holder is not None:
            named.setdefault(category.key, {})[OVERALL] = holder.player_id
    return named


@dataclass(frozen=True)
class PrizePlan:
    """`shared`: ties settled by the cut's roll-off of the same tie, by tie key."""

    pending: tuple[PrizeTie, ...] = ()
    result: PrizeResult | None = None
    problem: str = ""
    shared: tuple[tuple[str, RollOff], ...] = ()


STAGE_NAMES = {"qualifying": "qualifying stage", "semi_final": "semi-final"}


def stage_totals(
    tournament: Tournament, categories: list[PrizeCategory]
) -> dict[str, list[PlayerTotals]]:
    """Each stage the categories count, with its players' totals (a stage's cards read once)."""
    kinds = sorted({c.stage_kind for c in categories})
    return {kind: player_totals(tournament, kind) for kind in kinds}


def _inputs(tournament: Tournament, totals: dict[str, list[PlayerTotals]] | None):
    """The categories, each counted stage's totals, and the roll-offs recorded so far."""
    categories = list(tournament.prize_categories.all())
    if totals is None:
        totals = stage_totals(tournament, categories)
    return categories, totals, roll_offs.for_prizes(tournament)


def _stored_dice(totals, engine, stored: ForPrizes, categories, shared: dict, **kwargs):
    """The recorded faces of the ties as they are now, phase by phase, as staff threw them;
    a tie the cut's roll-off settled takes its dice and is noted in `shared`."""
    entered: dict[str, list[int]] = {}
    while True:
        pending = pending_prize_roll_offs(totals, engine, dice=entered, **kwargs)
        fresh = {}
        for tie in pending:
            own = stored.own(tie)
            cut = None if own else stored.shared(tie, categories[tie.category_key])
            if own or cut:
                fresh[tie.key] = own or cut
            if cut:
                shared[tie.key] = cut
        if not fresh:
            return entered, pending
        entered.update({key: list(r.faces) for key, r in fresh.items()})


def plan_prizes(
    tournament: Tournament, totals: dict[str, list[PlayerTotals]] | None = None
) -> PrizePlan:
    """The roll-offs still to throw, or the awards, from the verified cards as they are now.

    Each category counts the cards of its own stage, so the engine is called once per stage
    counted; the results are put back in the categories' priority order. A page that shows
    the totals too passes its `stage_totals`, so the cards are read once.
    """
    categories, totals_by_kind, stored = _inputs(tournament, totals)
    if not categories:
        return PrizePlan(problem="No prize categories yet: load a template or add one.")
    if not any(totals_by_kind.values()):
        return PrizePlan(problem="No stage has been played yet.")
    for kind, totals in totals_by_kind.items():
        if not totals:
            labels = ", ".join(c.label for c in categories if c.stage_kind == kind)
            return PrizePlan(
                problem=f"{labels}: counted over the {STAGE_NAMES.get(kind, kind)}, "
                "which has not been played yet."
            )
    if len(totals_by_kind) > 1 and tournament.one_prize_per_player:
        return PrizePlan(
            problem="One prize per player needs every category counted over the same stage: "
            "change the categories' stage or turn the option off."
        )
    named = named_winners(tournament)
    by_key = {c.key: c for c in categories}
    shared: dict[str, RollOff] = {}
    pending: list[PrizeTie] = []
    results: list[PrizeResult] = []
    try:
        for kind, totals in totals_by_kind.items():
            here = [c for c in categories if c.stage_kind == kind]
            keys = {c.key for c in here}
            kwargs = {
                "named": {k: v for k, v in named.items() if k in keys},
                "one_prize_per_player": tournament.one_prize_per_player,
            }
            engine = [c.to_engine() for c in here]
            dice, waiting = _stored_dice(totals, engine, stored, by_key, shared, **kwargs)
            if waiting:
                pending += waiting
            else:
                results.append(award_prizes(totals, engine, dice=dice, **kwargs))
    except RuleError as exc:
        return PrizePlan(problem=str(exc))
    if pending:
        return PrizePlan(pending=tuple(pending), shared=tuple(shared.items()))
    if len(results) == 1:
        return PrizePlan(result=results[0], shared=tuple(shared.items()))
    # The engine awards in priority order, list order among equals: the same order here.
    order = {c.key: n for n, c in enumerate(sorted(categories, key=lambda c: c.priority))}
    awards = sorted((a for r in results for a in r.awards), key=lambda a: order[a.category_key])
    unawarded = sorted(
        (u for r in results for u in r.unawarded), key=lambda u: order[u.category_key]
    )
    return PrizePlan(
        result=PrizeResult(tuple(awards), tuple(unawarded)), shared=tuple(shared.items())
    )


@transaction.atomic
def record_prize_roll_off(
    tournament: Tournament, key: str, *, actor, faces: list[int] | None = None
) -> RollOff:
    """Stores a prize tie's dice: typed in, or rolled on screen with the next draw code.

    A tie a corrected card changed is thrown again as a new version of the same roll-off:
    the earlier version stays, and when rolled on screen its attempt stays in the draws.
    A tie the cut's roll-off settled is not pending (`ForPrizes.shared`): one tie, one roll-off.
    """
    Tournament.objects.select_for_update().get(pk=tournament.pk)
    tie = next((t for t in plan_prizes(tournament).pending if t.key == key), None)
    if tie is None:
        raise UserFacingError("That roll-off is not needed (or is already recorded).")
    category = tournament.prize_categories.get(key=tie.category_key)
    subject = prize_roll_off_subject(key)
    seed = None
    try:
        if faces is None:
            seed = draws.next_seed(tournament, subject, actor=actor)
            rolled = settle_prize_tie(tie, random.Random(seed))
        else:
            rolled = settle_prize_tie(tie, faces)
    except RuleError as exc:
        raise UserFacingError(str(exc)) from exc
    earlier = RollOff.objects.filter(tournament=tournament, subject=subject).order_by("version")
    previous = earlier.last()
    record = RollOff.objects.create(
        tournament=tournament,
        kind=RollOff.Kind.PRIZE,
        subject=subject,
        version=previous.version + 1 if previous else 1,
        stage=tournament.stages.filter(kind=category.stage_kind).first(),
        group=str(tie.scope_group),
        key=key,
        category_key=category.key,
        category_label=category.label,
        measure=category.measure,
        scope=category.scope,
        players=list(tie.players),
        faces=list(faces_thrown(rolled)),
        winners=list(rolled.order[: tie.places]),
        rounds=[{str(p): face for p, face in throw.items()} for throw in rolled.rounds],
        source=RollOff.Source.ENTERED if seed is None else RollOff.Source.SITE,
        seed=seed,
        recorded_by=actor,
    )
    again = f" (throw {record.version}: the tie changed after a corrected card)" if previous else ""
    audit.record(
        "prizes.roll_off",
        f"{tie.label}: roll-off recorded{again}",
        actor=actor,
        tournament=tournament,
        target=record,
        data={"faces": record.faces, "version": record.version},
    )
    return record


@transaction.atomic
def award(tournament: Tournament, *, actor) -> list[PrizeAward]:
    """Stores the awards. Until the first payment they can be recomputed (a card corrected
    late): the earlier awards are superseded, never deleted, and the new ones are the next
    version. After the first payment they are what the money follows and stay."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if paid_started(tournament):
        raise UserFacingError("Prizes are being paid: the awards can no longer be recomputed.")
    plan = plan_prizes(tournament)
    if plan.result is None:
        raise UserFacingError(plan.problem or f"{plan.pending[0].label} needs a roll-off first.")
    categories = {c.key: c for c in tournament.prize_categories.all()}
    version = (tournament.awards.aggregate(v=Max("version"))["v"] or 0) + 1
    superseded = tournament.awards.current().update(superseded_at=timezone.now())
    rows = [
        PrizeAward(
            tournament=tournament,
            category=categories[a.category_key],
            scope_group=str(a.scope_group),
            place=a.place,
            player_id=player,
            amount_cents=amount,
            value=a.value,
            via_roll_off=a.via_roll_off,
            why=note_data(a.note, a.moved_up_because),
            awarded_by=actor,
            version=version,
        )
        for a in plan.result.awards
        for player, amount in zip(a.players, a.amount_cents_each, strict=True)
    ]
    PrizeAward.objects.bulk_create(rows)
    summary = f"{len(rows)} prize shares awarded"
    if superseded:
        summary += f" (version {version}, replacing {superseded} earlier shares, which are kept)"
    audit.record(
        "prizes.awarded",
        summary,
        actor=actor,
        tournament=tournament,
        data={"version": version, "superseded": superseded},
    )
    return rows


@transaction.atomic
def pass_traveling_item(tournament: Tournament, player: Player, *, actor, round_=None):
    if player.tournament_id != tournament.pk:
        raise UserFacingError("That player is not in this tournament.")
    Tournament.objects.select_for_update().get(pk=tournament.pk)
    if paid_started(tournament):
        raise UserFacingError(PICKS_LOCKED)
    made = TravelingPass.objects.create(
        tournament=tournament, player=player, round=round_, by=actor
    )
    audit.record(
        "prizes.traveling",
        f"{player.name} now holds the traveling item",
        actor=actor,
        tournament=tournament,
        target=made,
    )
    return made


@transaction.atomic
def nominate(category: PrizeCategory, scope_group: str, winners: list[int], *, actor):
    """A judged prize's winners (best costume), entered by an admin."""
    if category.measure != "judged":
        raise UserFacingError("Only judged prizes are named by hand.")
    Tournament.objects.select_for_update().get(pk=category.tournament_id)
    if paid_started(category.tournament):
        raise UserFacingError(PICKS_LOCKED)
    nomination, _ = PrizeNomination.objects.update_or_create(
        category=category,
        scope_group=scope_group,
        defaults={"winners": winners, "entered_by": actor},
    )
    audit.record(
        "prizes.nominated",
        f"{category.label} ({scope_group}): {winners}",
        actor=actor,
        tournament=category.tournament,
        target=nomination,
    )
    return nomination
