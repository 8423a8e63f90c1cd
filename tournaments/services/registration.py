"""Registering players: the single path for the public form, walk-ins, the organiser and CSV.

Capacity and duplicate e-mails are checked with the tournament row locked, so two people
submitting the last seat at the same moment cannot both get it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import Player, Tournament
from . import audit
from .errors import UserFacingError


@dataclass(frozen=True)
class Registrant:
    name: str
    email: str = ""
    phone: str = ""
    group_name: str = ""
    costume_contest: bool = False


def active_players(tournament: Tournament):
    return tournament.players.filter(status=Player.Status.REGISTERED)


def lock_tournament(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def check_room(tournament: Tournament, extra: int = 1) -> None:
    taken = active_players(tournament).count()
    if taken + extra > tournament.capacity:
        left = max(tournament.capacity - taken, 0)
        raise UserFacingError(
            f"{tournament.name} is full: {tournament.capacity} places, {left} left."
            if extra > 1
            else f"Sorry, {tournament.name} is full ({tournament.capacity} players)."
        )


def check_email_free(tournament: Tournament, email: str, *, exclude: Player | None = None) -> None:
    email = email.strip().lower()
    if not email:
        return
    taken = active_players(tournament).filter(email=email)
    if exclude is not None:
        taken = taken.exclude(pk=exclude.pk)
    if taken.exists():
        raise UserFacingError(f"{email} is already registered for this tournament.", field="email")


def _create_with_unique_code(player: Player) -> Player:
    """Retries on the rare clash of a random code with an existing one."""
    for _ in range(20):
        if not Player.objects.filter(tournament=player.tournament, code=player.code).exists():
            try:
                with transaction.atomic():
                    player.save()
                return player
            except IntegrityError:
                pass
        player.code = Player._meta.get_field("code").default()
    raise RuntimeError("Could not find a free registration code")


@transaction.atomic
def register(
    tournament: Tournament,
    registrant: Registrant,
    *,
    source: str = Player.Source.WEB,
    actor=None,
    check_in: bool = False,
) -> Player:
    tournament = lock_tournament(tournament)
    if source == Player.Source.WEB and not tournament.registration_open:
        raise UserFacingError("Registration for this tournament is closed.")
    if not registrant.name.strip():
        raise UserFacingError("Please give the player's name.", field="name")
    check_room(tournament)
    check_email_free(tournament, registrant.email)
    player = Player(
        tournament=tournament,
        name=registrant.name,
        email=registrant.email,
        phone=registrant.phone,
        group_name=registrant.group_name,
        costume_contest=registrant.costume_contest,
        source=source,
    )
    if check_in:
        player.checked_in_at = timezone.now()
        player.checked_in_by = actor if actor is not None and actor.is_authenticated else None
    _create_with_unique_code(player)
    audit.record(
        "player.registered",
        f"{player.name} registered ({player.get_source_display()})"
        + (" and checked in" if check_in else ""),
        actor=actor,
        tournament=tournament,
        target=player,
    )
    return player
