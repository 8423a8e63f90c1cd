"""The waitlist: freed places go to the first in line, once; the organiser reorders it.

Every function here runs with the tournament row locked (locks.py, step 1), so two
cancellations at the same moment are decided one after the other: the first promotes the
first in line, the second sees that and promotes the next. Nobody is promoted twice and no
place is handed out twice.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError
from tournaments.rules import waitlist as rules

from ..models import EmailLog, Player, Stage, Tournament
from . import mail
from .registration import lock_tournament, places_taken
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
    cancellation, a higher capacity). With e-mail off the place is theirs at once and they
    appear on the check-in desk's list of people to tell. With e-mail on (and an address to
    reach them) the place is held for them for the tournament's `offer_hours` and they are
    e-mailed a link to accept it; a lapsed offer goes to the back of the line and the place
    to the next one. Returns the players promoted or offered a place.
    """
    now = timezone.now()
    offering = mail.enabled()
    if offering:
        _lapse_offers(tournament, now, actor=actor)
    free = tournament.capacity - places_taken(tournament, now)
    if free <= 0:
        return []
    waiting = list(queue(tournament).filter(offer_expires_at__isnull=True).only("pk", "party_id"))
    chosen = rules.promotions(
        free, [rules.Waiting(w.pk, w.party_id) for w in waiting], tournament.party_fit
    )
    given = []
    for player in Player.objects.filter(pk__in=chosen).order_by("waitlist_position", "pk"):
        if offering and mail.address_of(player):
            _offer(tournament, player, now, actor=actor)
        else:
            _promote(tournament, player, now, actor=actor)
        given.append(player)
    return given


def _promote(tournament: Tournament, player: Player, now, *, actor, why: str = "") -> None:
    player.status = Player.Status.REGISTERED
    player.waitlist_position = None
    player.offer_expires_at = None
    player.promoted_at = now
    player.save(
        update_fields=[
            "status",
            "waitlist_position",
            "offer_expires_at",
            "promoted_at",
            "updated_at",
        ]
    )
    audit.record(
        "player.promoted",
        f"{player.name} ({player.code}) " + (why or "got a freed place from the waitlist"),
        actor=actor,
        tournament=tournament,
        target=player,
    )
    mail.queue(player, EmailLog.Kind.PROMOTION)


def _offer(tournament: Tournament, player: Player, now, *, actor) -> None:
    player.offer_expires_at = now + timedelta(hours=tournament.offer_hours)
    player.save(update_fields=["offer_expires_at", "updated_at"])
    audit.record(
        "waitlist.offered",
        f"{player.name} ({player.code}) offered a freed place until "
        f"{timezone.localtime(player.offer_expires_at):%a %d %b %H:%M}",
        actor=actor,
        tournament=tournament,
        target=player,
    )
    mail.queue(player, EmailLog.Kind.OFFER)


def _lapse_offers(tournament: Tournament, now, *, actor=None) -> None:
    """Offers not accepted in time: the player goes to the back of the line."""
    lapsed = list(queue(tournament).filter(offer_expires_at__lte=now))
    if not lapsed:
        return
    last = queue(tournament).aggregate(last=Max("waitlist_position"))["last"] or 0
    for number, player in enumerate(lapsed, start=last + 1):
        player.offer_expires_at = None
        player.waitlist_position = number
        player.save(update_fields=["offer_expires_at", "waitlist_position", "updated_at"])
        audit.record(
            "waitlist.offer_lapsed",
            f"{player.name} ({player.code}) did not accept the offered place in time; "
            "back to the end of the waitlist",
            actor=actor,
            tournament=tournament,
            target=player,
        )
        mail.queue(player, EmailLog.Kind.OFFER_LAPSED)


@transaction.atomic
def accept_offer(player: Player) -> Player | None:
    """The player takes the place offered to them, if the offer still stands; None when it
    lapsed (the place then goes to the next in line, and they go to the back)."""
    tournament = lock_tournament(player.tournament)
    player = tournament.players.get(pk=player.pk)
    if player.status == Player.Status.REGISTERED:
        raise UserFacingError("Your place is already confirmed.")
    if player.status != Player.Status.WAITLISTED or player.offer_expires_at is None:
        raise UserFacingError("No place is offered to you at the moment.")
    now = timezone.now()
    if player.offer_expires_at <= now:
        fill_places(tournament)  # kept: the place passes on even though this tap failed
        return None
    _promote(tournament, player, now, actor=None, why="accepted the place offered")
    return player


def sweep_offers() -> int:
    """Lapses late offers and passes their places on, in every tournament that has any."""
    lapsed = (
        Player.objects.filter(status=Player.Status.WAITLISTED, offer_expires_at__lte=timezone.now())
        .values_list("tournament_id", flat=True)
        .distinct()
    )
    done = 0
    for tournament in Tournament.objects.filter(pk__in=list(lapsed)):
        fill_after_change(tournament)
        done += 1
    return done


def remind_offers() -> int:
    """Reminds, once, every player whose offered place is in its last stretch
    (`rules.reminder_due`), in every tournament that has one; returns how many."""
    now = timezone.now()
    open_offers = Player.objects.filter(
        status=Player.Status.WAITLISTED, offer_expires_at__gt=now
    ).select_related("tournament")
    tournaments = {
        p.tournament_id
        for p in open_offers
        if rules.reminder_due(p.offer_expires_at, now, p.tournament.offer_hours)
    }
    return sum(_remind(pk, now) for pk in sorted(tournaments))


@transaction.atomic
def _remind(tournament_pk: int, now) -> int:
    """Under the tournament's lock, so two sweeps at once remind nobody twice: a reminder
    is due when none was written since this offer was made (the offer's time back from its
    end)."""
    tournament = lock_tournament(Tournament(pk=tournament_pk))
    window = timedelta(hours=tournament.offer_hours)
    reminded = 0
    for player in queue(tournament).filter(offer_expires_at__gt=now):
        if not rules.reminder_due(player.offer_expires_at, now, tournament.offer_hours):
            continue
        since = player.offer_expires_at - window
        if player.emails.filter(kind=EmailLog.Kind.OFFER_REMINDER, created_at__gte=since).exists():
            continue
        if mail.queue(player, EmailLog.Kind.OFFER_REMINDER) is None:
            continue
        audit.record(
            "waitlist.offer_reminded",
            f"{player.name} ({player.code}) reminded that the offered place lapses at "
            f"{timezone.localtime(player.offer_expires_at):%a %d %b %H:%M}",
            tournament=tournament,
            target=player,
        )
        reminded += 1
    return reminded


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


# Counted by seat_late_arrival, at the end of this transaction.
@changes.announces
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
