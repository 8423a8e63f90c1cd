"""A party at the door: checked in with one tap, each member as the desk would one by one."""

from __future__ import annotations

from django.db import transaction

from ..models import Player
from . import checkin


@transaction.atomic
def check_in_party(player: Player, actor) -> list[checkin.Outcome]:
    """Checks in every registered member of the player's party (the player alone if none).

    Members are checked in in primary-key order, each through `checkin.check_in` (its row
    lock and its audit entry), so two desks tapping the same party record each arrival once.
    Waitlisted or cancelled members are left out: they have no place to check in to.
    """
    if player.party_id is None:
        return [checkin.check_in(player, actor)]
    members = Player.objects.filter(
        party_id=player.party_id,
        tournament_id=player.tournament_id,
        status=Player.Status.REGISTERED,
    ).order_by("pk")
    return [checkin.check_in(member, actor) for member in members]


def promoted_to_tell(tournament) -> list[Player]:
    """Players a freed place went to who have not arrived yet: the desk tells them."""
    return list(
        tournament.players.filter(
            status=Player.Status.REGISTERED, promoted_at__isnull=False, checked_in_at__isnull=True
        ).order_by("promoted_at", "pk")
    )
