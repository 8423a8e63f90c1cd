"""The waitlist: freed places go to the first in line, once; the organiser reorders it.

Every function here runs with the tournament row locked (locks.py, step 1), so two
cancellations at the same moment are decided one after the other: the first promotes the
first in line, the second sees that and promotes the next. Nobody is promoted twice and no
place is handed out twice.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import waitlist as rules
from ..models import EmailLog, Player, Stage, Tournament
from . import audit, mail
from .errors import UserFacingError
from .registration import active_players, lock_tournament
from .stages import seat_late_arrival


def queue(tournament: Tournament):
    """The waitlisted players, first in line first."""
    return tournament.players.filter(status=Player.Status.WAITLISTED).order_by(
        "waitlist_position", "pk"
    )


def position_of(player: Player) -> int | None:
    """1 for the first in line; None when the player is not waiting."""
    if player.status != Player.Status.WAITLISTED:
        return None
    ahead = queue(player.tournament).filter(waitlist_position__lt=player.waitlist_position)
    return ahead.count() + 1


def fill_places(tournament: Tournament, *, actor=None) -> list[Player]:
    """Gives every free place to the waitlist, in order; the caller holds the tournament lock.

    Called after anything that frees a place or adds some (a withdrawal, a player's own
    cancellation, a higher capacity). With e-mail off the promoted players appear on the
    check-in desk's list of people to tell; the e-mail part sends them a message.
    """
    free = tournament.capacity - active_players(tournament).count()
    if free <= 0:
        return []
    waiting = list(queue(tournament).only("pk", "party_id"))
    chosen = rules.promotions(
        free, [rules.Waiting(w.pk, w.party_id) for w in waiting], tournament.party_fit
    )
    now = timezone.now()
    promoted = []
    for player in Player.objects.filter(pk__in=chosen).order_by("waitlist_position", "pk"):
        player.status = Player.Status.REGISTERED
        player.waitlist_position = None
        player.promoted_at = now
        player.save(update_fields=["status", "waitlist_position", "promoted_at", "updated_at"])
        audit.record(
            "player.promoted",
            f"{player.name} ({player.code}) got a freed place from the waitlist",
            actor=actor,
            tournament=tournament,
            target=player,
        )
        mail.queue(player, EmailLog.Kind.PROMOTION)
        promoted.append(player)
    return promoted


@transaction.atomic
def fill_after_change(tournament: Tournament, *, actor=None) -> list[Player]:
    """Locks the tournament and fills its free places (after a capacity change)."""
    return fill_places(lock_tournament(tournament), actor=actor)


@transaction.atomic
def move(player: Player, to: int, *, actor) -> list[int]:
    """Puts a waitlisted player at place `to` (1 = first); audited with the old place."""
    tournament = lock_tournament(player.tournament)
    order = list(queue(tournament).values_list("pk", flat=True))
    if player.pk not in order:
        raise UserFacingError(f"{player.name} is not on the waitlist.")
    was = order.index(player.pk) + 1
    new_order = rules.positions(order, player.pk, to)
    now = new_order.index(player.pk) + 1
    if now == was:
        return new_order
    for number, pk in enumerate(new_order, start=1):
        Player.objects.filter(pk=pk).update(waitlist_position=number)
    audit.record(
        "waitlist.moved",
        f"{player.name} ({player.code}) moved on the waitlist from {was} to {now}",
        actor=actor,
        tournament=tournament,
        target=player,
        data={"from": was, "to": now},
    )
    return new_order


@transaction.atomic
def seat_walk_in(player: Player, stage: Stage, *, actor) -> Player:
    """A waitlisted player who came to the door takes a ghost seat: registered, checked in
    and seated in one action (the ghost's place is over capacity on purpose: it was empty)."""
    tournament = lock_tournament(player.tournament)
    player = tournament.players.get(pk=player.pk)
    if player.status != Player.Status.WAITLISTED:
        raise UserFacingError(f"{player.name} is not on the waitlist.")
    player.status = Player.Status.REGISTERED
    player.waitlist_position = None
    player.promoted_at = timezone.now()
    player.checked_in_at = timezone.now()
    player.checked_in_by = actor if actor is not None and actor.is_authenticated else None
    player.save()
    audit.record(
        "player.promoted",
        f"{player.name} ({player.code}) came from the waitlist to a ghost seat",
        actor=actor,
        tournament=tournament,
        target=player,
    )
    seat_late_arrival(stage, player, actor=actor)
    return player
