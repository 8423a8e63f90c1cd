"""The organiser's changes to registrations: search, edit, withdraw and reinstate.

New registrations are not made here: adding a player goes through `registration.register`
like every other way in, so capacity and duplicate e-mails have one set of rules. What lives
here is what happens to a registration afterwards. Nothing is ever deleted: a withdrawn
player keeps their row (and code) so the audit log, payouts and a later reinstatement can
still point at them.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError

from ..foundation.search import player_matches
from ..models import Player, Tournament
from ..models.players import PLAYING
from . import waitlist
from .registration import Registrant, check_email_free, check_room, lock_tournament

# The list page's status filter. "Checked in" and "not arrived" only count active players: a
# withdrawn player who had checked in has left, and must not inflate the room count.
STATUS_FILTERS: dict[str, tuple[str, Q]] = {
    "registered": ("Registered", Q(status=Player.Status.REGISTERED)),
    "checked_in": (
        "Checked in",
        PLAYING,
    ),
    "not_arrived": (
        "Not arrived",
        Q(status=Player.Status.REGISTERED, checked_in_at__isnull=True),
    ),
    "withdrawn": ("Withdrawn", Q(status=Player.Status.WITHDRAWN)),
}

EDITABLE_FIELDS: dict[str, str] = {
    "name": "name",
    "email": "e-mail",
    "phone": "phone",
    "group_name": "group",
    "costume_contest": "costume contest",
}


def search_players(tournament: Tournament, query: str = "", status: str = "") -> QuerySet:
    """The players matching a search box and a status filter, in name order.

    The staff search of foundation/search.py: "carol divas" finds Carol of the Dice Divas
    without the organiser knowing which field holds what, and "jose" finds José. One query
    whatever the number of players; the caller paginates it.
    """
    players = tournament.players.filter(player_matches(query))
    if status in STATUS_FILTERS:
        players = players.filter(STATUS_FILTERS[status][1])
    return players.order_by("name", "id")


def normalised(registrant: Registrant) -> dict[str, object]:
    """The values as they will be stored, so "changed" means changed after saving.

    `Player.save` lower-cases the e-mail and collapses spaces in the name; comparing before
    that would record "Carol@X" → "carol@x" as a change that never happens.
    """
    return {
        "name": " ".join(registrant.name.split()),
        "email": registrant.email.strip().lower(),
        "phone": registrant.phone.strip(),
        "group_name": " ".join(registrant.group_name.split()),
        "costume_contest": bool(registrant.costume_contest),
    }


@changes.announces
def update_player(player: Player, registrant: Registrant, *, actor) -> tuple[Player, list[str]]:
    """Saves an organiser's corrections and audits exactly which fields changed.

    Runs under the tournament lock so a concurrent registration cannot take the new e-mail
    between the check and the save. The e-mail is only checked when it changes: a withdrawn
    player whose address was since re-used by a fresh registration can still have their
    phone corrected. Returns the (reloaded) player and the labels of the changed fields.
    """
    tournament = lock_tournament(player.tournament)
    player = tournament.players.get(pk=player.pk)
    values = normalised(registrant)
    if not values["name"]:
        raise UserFacingError("Please give the player's name.", field="name")
    edits = {
        field: (getattr(player, field), value)
        for field, value in values.items()
        if getattr(player, field) != value
    }
    if not edits:
        return player, []
    if "email" in edits:
        check_email_free(tournament, values["email"], exclude=player)
    for field, (_, value) in edits.items():
        setattr(player, field, value)
    try:
        with transaction.atomic():
            player.save(update_fields=[*edits, "updated_at"])
    except IntegrityError as exc:  # the database's own unique_active_email guard
        raise UserFacingError(
            f"{values['email']} is already registered for this tournament.", field="email"
        ) from exc
    labels = [EDITABLE_FIELDS[field] for field in edits]
    audit.record(
        "player.edited",
        f"{player.name} ({player.code}): changed {', '.join(labels)}",
        actor=actor,
        tournament=tournament,
        target=player,
        data={"changes": {field: [old, new] for field, (old, new) in edits.items()}},
    )
    changes.bump(player.tournament_id)
    return player, labels


@changes.announces
def withdraw(player: Player, *, actor, reason: str = "") -> Player:
    """Marks a registration withdrawn, freeing its place and its e-mail address; before
    the pods are drawn the place goes to the first on the waitlist (after the draw, the
    desk seats waitlisted walk-ins in ghost seats instead).

    The row stays (with its code and check-in time) because nothing is deleted: the audit log
    and any later reinstatement refer to it.
    """
    tournament = lock_tournament(player.tournament)
    player = tournament.players.get(pk=player.pk)
    if player.status == Player.Status.WITHDRAWN:
        raise UserFacingError(f"{player.name} is already withdrawn.")
    was_playing = player.status == Player.Status.REGISTERED
    player.status = Player.Status.WITHDRAWN
    player.waitlist_position = None
    player.save(update_fields=["status", "waitlist_position", "updated_at"])
    reason = reason.strip()
    audit.record(
        "player.withdrawn",
        f"{player.name} ({player.code}) withdrawn" + (f": {reason}" if reason else ""),
        actor=actor,
        tournament=tournament,
        target=player,
        data={"reason": reason},
    )
    if was_playing and not tournament.stages.exists():
        waitlist.fill_places(tournament, actor=actor)
    changes.bump(player.tournament_id)
    return player


@changes.announces
def reinstate(player: Player, *, actor, reason: str = "") -> Player:
    """Makes a withdrawn registration active again, if a place and the e-mail are still free.

    While the player was withdrawn someone may have taken the last place or registered with
    the same address, so both are re-checked with the tournament row locked, using the same
    checks as a new registration.
    """
    tournament = lock_tournament(player.tournament)
    player = tournament.players.get(pk=player.pk)
    if player.status == Player.Status.REGISTERED:
        raise UserFacingError(f"{player.name} is already registered.")
    try:
        check_room(tournament)
        check_email_free(tournament, player.email, exclude=player)
    except UserFacingError as exc:
        hint = (
            " Change this player's e-mail first."
            if exc.field == "email"
            else " Withdraw someone else or raise the capacity first."
        )
        raise UserFacingError(f"Cannot reinstate {player.name}: {exc.message}{hint}") from exc
    player.status = Player.Status.REGISTERED
    try:
        with transaction.atomic():
            player.save(update_fields=["status", "updated_at"])
    except IntegrityError as exc:
        raise UserFacingError(
            f"Cannot reinstate {player.name}: {player.email} is already registered."
        ) from exc
    reason = reason.strip()
    audit.record(
        "player.reinstated",
        f"{player.name} ({player.code}) reinstated" + (f": {reason}" if reason else ""),
        actor=actor,
        tournament=tournament,
        target=player,
        data={"reason": reason},
    )
    changes.bump(player.tournament_id)
    return player
