"""The prize list: adding, changing and deleting categories, and the one-prize-per-player
switch. Each write locks the tournament first (the lock order in foundation/locks.py), so it
cannot slip past the first payment, which fixes the list."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError

from ..models import Payout, PrizeCategory, Tournament

LOCKED = "Prizes are being paid, so the prize list can no longer change."


def paid_started(tournament: Tournament) -> bool:
    """Whether prizes are being paid: a current award has had money handed over. From then
    on the prize list, the judges' picks, the last bunco and the awards are what the money
    follows and stay. A voided payment still counts: cash moved, and a void corrects that
    payment, not the prize table. The one reading of "prizes are being paid"."""
    return Payout.objects.filter(
        award__tournament=tournament, award__superseded_at__isnull=True
    ).exists()


def _lock(tournament: Tournament) -> Tournament:
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if paid_started(locked):
        raise UserFacingError(LOCKED)
    return locked


@transaction.atomic
def category_save(
    *,
    tournament: Tournament,
    category: PrizeCategory | None,
    key: str,
    fields: dict[str, Any],
    actor,
) -> PrizeCategory:
    """Adds a category (`category` None) or changes one; a changed category keeps its key,
    which stored roll-off dice name."""
    tournament = _lock(tournament)
    if category is None:
        category = PrizeCategory.objects.create(tournament=tournament, key=key, **fields)
        action, summary = "prizes.category_added", f"Prize category {category.label} added"
    else:
        for name, value in fields.items():
            setattr(category, name, value)
        category.save()
        action, summary = "prizes.category_changed", f"Prize category {category.label} changed"
    audit.record(
        action,
        summary,
        actor=actor,
        tournament=tournament,
        target=category,
        data={**fields, "key": category.key},
    )
    return category


@transaction.atomic
def category_delete(*, tournament: Tournament, pk: int, actor) -> str:
    """Deletes a category nobody was ever awarded, and returns its name. Awards are kept for
    ever (a re-award supersedes them), and they name their category, so a category that
    appears in any award stays."""
    tournament = _lock(tournament)
    category = tournament.prize_categories.filter(pk=pk).first()
    if category is None:
        raise UserFacingError("That prize category no longer exists.")
    if category.awards.current().exists():
        raise UserFacingError(
            f"{category.label} has been awarded, so it cannot be deleted. "
            "Award the prizes again without it first (possible until the first payment)."
        )
    if category.awards.exists():
        raise UserFacingError(
            f"{category.label} was in earlier awards, which are kept, so it cannot be "
            "deleted; the current awards no longer include it."
        )
    audit.record(
        "prizes.category_deleted",
        f"Prize category {category.label} deleted",
        actor=actor,
        tournament=tournament,
        data={"key": category.key, "amounts_cents": category.amounts_cents},
    )
    label = category.label
    category.delete()
    return label


@transaction.atomic
def one_prize_per_player_set(*, tournament: Tournament, on: bool, actor) -> None:
    tournament = _lock(tournament)
    tournament.one_prize_per_player = on
    tournament.save(update_fields=["one_prize_per_player"])
    state = "on" if on else "off"
    audit.record(
        f"prizes.one_per_player_{state}",
        f"One prize per player turned {state}",
        actor=actor,
        tournament=tournament,
    )
