"""Paying a prize in cash, and voiding a payment made by mistake.

Split from `prizes` (which decides and stores the awards) because paying is the cash side:
it locks the tournament for money, then the award, writes the cash book and answers a form
sent twice with its first payment, while the award rows it reads stay the prize module's.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from tournaments.foundation import audit, changes, idempotency, locks
from tournaments.foundation.errors import UserFacingError

from ..foundation.text import money
from ..models import (
    Payout,
    PrizeAward,
)
from . import cashbook

RECOMPUTED = (
    "Nothing was paid: the prizes were recomputed a moment ago, so this award is no longer "
    "on the list. Open the prize table again and check who wins before paying."
)


@changes.announces
def pay(
    award: PrizeAward,
    *,
    actor,
    present: bool,
    id_checked: bool,
    give_back_cents: int = 0,
    idempotency_key=None,
) -> Payout:
    """Hands over the cash for one award; the winner must be there with a valid ID. The
    payment (and any part the winner gives back to the charity) goes into the cash book.
    The same form sent again (its idempotency key) answers with the payment it made.

    The tournament first, then the award (locks.py): a recompute holding the tournament
    makes the payment wait and then find its award superseded, instead of each waiting for
    the other."""

    def replay(first: dict) -> Payout:
        payout = Payout.objects.select_related("paid_by").get(pk=first["payout"])
        payout.replayed = True
        return payout

    return idempotency.once(
        idempotency_key,
        kind=idempotency.Kind.PAYOUT,
        actor=actor,
        tournament_id=award.tournament_id,
        subject=f"award {award.pk}",
        write=lambda: _pay(award, actor, present, id_checked, give_back_cents),
        remember=lambda payout: {"payout": payout.pk},
        replay=replay,
    )


def _pay(award: PrizeAward, actor, present: bool, id_checked: bool, give_back_cents: int):
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
            f"Already paid: {money(live.amount_cents)} to {award.player.name} by "
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
        f"{award.category.label}: {money(award.amount_cents)} paid to {award.player.name}",
        actor=actor,
        tournament=award.tournament,
        target=payout,
        data={"award": award.pk, "amount_cents": award.amount_cents},
    )
    changes.bump(award.tournament_id)
    return payout


@changes.announces
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
    changes.bump(payout.award.tournament_id)
    return payout
