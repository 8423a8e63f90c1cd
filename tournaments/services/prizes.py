"""Prizes from verified cards, and a cash ledger the charity can account for.

The selection is `tournaments.prizes` (pure); this module feeds it the verified totals, the
judges' picks, the traveling item's last holder and any roll-off dice, stores the awards,
and records each cash payment with who paid, that the winner was there with an ID, and a
void (never a delete) when a payment was a mistake. A prize cannot be paid twice: the
award's row lock serialises two admins, and a partial unique index backs it up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from scoring.rules import RuleError
from scoring.services.cards import load_stage

from ..draws import prize_roll_off_subject
from ..models import (
    Payout,
    Player,
    PrizeAward,
    PrizeCategory,
    PrizeNomination,
    RollOff,
    Tournament,
    TravelingPass,
)
from ..prizes import (
    OVERALL,
    TEMPLATES,
    PlayerTotals,
    PrizeResult,
    PrizeTie,
    award_prizes,
    faces_thrown,
    pending_prize_roll_offs,
    settle_prize_tie,
)
from . import audit, cashbook, draws, locks, roll_offs
from .advancement import present_participants
from .errors import UserFacingError
from .last_bunco import last_bunco as night_last_bunco
from .roll_offs import ForPrizes


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


def _inputs(tournament: Tournament):
    """The categories, each counted stage's totals, and the roll-offs recorded so far."""
    categories = list(tournament.prize_categories.all())
    totals = {
        kind: player_totals(tournament, kind) for kind in sorted({c.stage_kind for c in categories})
    }
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


def plan_prizes(tournament: Tournament) -> PrizePlan:
    """The roll-offs still to throw, or the awards, from the verified cards as they are now.

    Each category counts the cards of its own stage, so the engine is called once per stage
    counted; the results are put back in the categories' priority order.
    """
    categories, totals_by_kind, stored = _inputs(tournament)
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
    if Payout.objects.filter(award__tournament=tournament).exists():
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
            note="; ".join(filter(None, (a.note, a.moved_up_because)))[:300],
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


def _cents(amount_cents: int) -> str:
    return f"${Decimal(amount_cents) / 100:,.2f}"


RECOMPUTED = (
    "Nothing was paid: the prizes were recomputed a moment ago, so this award is no longer "
    "on the list. Open the prize table again and check who wins before paying."
)


@transaction.atomic
def pay(
    award: PrizeAward, *, actor, present: bool, id_checked: bool, give_back_cents: int = 0
) -> Payout:
    """Hands over the cash for one award; the winner must be there with a valid ID. The
    payment (and any part the winner gives back to the charity) goes into the cash book.

    The tournament first, then the award (locks.py): a recompute holding the tournament
    makes the payment wait and then find its award superseded, instead of each waiting for
    the other."""
    locks.tournament_for_money(award.tournament_id)
    award = (
        PrizeAward.objects.current()
        .select_for_update(of=("self",))
        .select_related("player", "category")
        .filter(pk=award.pk)
        .first()
    )
    if award is None:
        raise UserFacingError(RECOMPUTED)
    if not present or not id_checked:
        raise UserFacingError(
            "Confirm that the winner is here in person and that you checked their ID."
        )
    live = award.payouts.filter(voided_at__isnull=True).select_related("paid_by").first()
    if live is not None:
        raise UserFacingError(
            f"Already paid: {_cents(live.amount_cents)} to {award.player.name} by "
            f"{live.paid_by.get_username()} at {timezone.localtime(live.paid_at):%H:%M}."
        )
    try:
        with transaction.atomic():
            payout = Payout.objects.create(
                award=award,
                amount_cents=award.amount_cents,
                present_confirmed=True,
                id_checked=True,
                paid_by=actor,
            )
    except IntegrityError as exc:
        raise UserFacingError("This prize was just paid by someone else.") from exc
    cashbook.prize_paid(award, award.amount_cents, actor=actor, give_back_cents=give_back_cents)
    audit.record(
        "prizes.paid",
        f"{award.category.label}: {_cents(award.amount_cents)} paid to {award.player.name}",
        actor=actor,
        tournament=award.tournament,
        target=payout,
        data={"award": award.pk, "amount_cents": award.amount_cents},
    )
    return payout


@transaction.atomic
def void(payout: Payout, *, actor, reason: str) -> Payout:
    locks.tournament_for_money(payout.award.tournament_id)
    payout = (
        Payout.objects.select_for_update(of=("self",))
        .select_related("award__player")
        .get(pk=payout.pk)
    )
    if payout.voided_at is not None:
        raise UserFacingError("This payment is already voided.")
    if not reason.strip():
        raise UserFacingError("Say why the payment is voided.", field="reason")
    payout.voided_at = timezone.now()
    payout.voided_by = actor
    payout.void_reason = reason.strip()[:300]
    payout.save(update_fields=["voided_at", "voided_by", "void_reason"])
    cashbook.prize_voided(payout.award, actor=actor, reason=payout.void_reason)
    audit.record(
        "prizes.voided",
        f"Payment to {payout.award.player.name} voided: {payout.void_reason}",
        actor=actor,
        tournament=payout.award.tournament,
        target=payout,
    )
    return payout


@transaction.atomic
def pass_traveling_item(tournament: Tournament, player: Player, *, actor, round_=None):
    if player.tournament_id != tournament.pk:
        raise UserFacingError("That player is not in this tournament.")
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


# The ledger's figures moved beside the cash book; the prize pages still import them here.
from .ledger import Ledger, LedgerLine, ledger  # noqa: E402, F401
