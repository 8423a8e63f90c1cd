"""The check-in desk: finding players at the door, checking them in, and walk-ins.

Check-in and undo lock the player's row, so two volunteers tapping the same person at
the same moment record one check-in, and both are idempotent: a second tap keeps the first
time and says so. Walk-ins go through `registration.register`, the one way to register.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, IntegerField, OuterRef, QuerySet, Subquery, Value, When
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.formats import time_format

from tournaments.foundation import audit, changes, idempotency
from tournaments.foundation.errors import UserFacingError

from ..foundation.search import player_matches, words
from ..models import LedgerEntry, Player, Tournament
from . import registration

SEARCH_LIMIT = 25
RECENT_LIMIT = 10
CLOSED_MESSAGE = "Check-in is closed; an organiser can open it on the tournament dashboard."


@dataclass(frozen=True)
class Outcome:
    """What a tap on Check in or Undo did: `changed` is False when it was already so."""

    player: Player
    changed: bool
    message: str


@dataclass(frozen=True)
class SearchResult:
    players: list[Player]
    more: bool  # more matches than shown: type a few more letters


def hhmm(moment) -> str:
    return time_format(timezone.localtime(moment), "H:i")


def find_player(tournament: Tournament, pk) -> Player:
    """A player of this tournament, or 404: another tournament's player is not found here."""
    return get_object_or_404(tournament.players.all(), pk=pk)


def with_fee(players: QuerySet[Player]) -> QuerySet[Player]:
    """Adds `fee_method` (None when the player owes): the desk shows it on the row."""
    fee = LedgerEntry.objects.filter(
        player=OuterRef("pk"), kind="fee", reversed_by__isnull=True
    ).order_by("pk")
    return players.annotate(fee_method=Subquery(fee.values("method")[:1]))


def one_with_fee(player: Player) -> Player:
    return with_fee(Player.objects.filter(pk=player.pk).select_related("checked_in_by")).get()


def search(tournament: Tournament, query: str, *, limit: int = SEARCH_LIMIT) -> SearchResult:
    """Active registrations the staff search of foundation/search.py finds; one query.

    An exact code comes first, then those not checked in yet, then by name.
    """
    if not words(query):
        return SearchResult(players=[], more=False)
    players = with_fee(registration.active_players(tournament).select_related("checked_in_by"))
    players = (
        players.filter(player_matches(query))
        .annotate(
            exact_code=Case(
                When(code=query.strip().upper(), then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            ),
            arrived=Case(
                When(checked_in_at__isnull=True, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            ),
        )
        .order_by("exact_code", "arrived", "name", "id")
    )
    found = list(players[: limit + 1])
    return SearchResult(players=found[:limit], more=len(found) > limit)


def recent_check_ins(tournament: Tournament, *, limit: int = RECENT_LIMIT) -> list[Player]:
    return list(
        with_fee(tournament.players.playing())
        .select_related("checked_in_by")
        .order_by("-checked_in_at", "-id")[:limit]
    )


def lock(player: Player) -> Player:
    """The player's row, locked until the transaction ends, with a fresh tournament."""
    locked: QuerySet[Player] = Player.objects.select_for_update(of=("self",)).select_related(
        "tournament", "checked_in_by"
    )
    return get_object_or_404(locked, pk=player.pk, tournament_id=player.tournament_id)


def refuse_unless_allowed(player: Player) -> None:
    if not player.tournament.check_in_open:
        raise UserFacingError(CLOSED_MESSAGE)
    if player.status != Player.Status.REGISTERED:
        raise UserFacingError(
            f"{player.name} has withdrawn; register them as a walk-in if they play after all."
        )


@changes.announces
def check_in(player: Player, actor, *, idempotency_key=None) -> Outcome:
    """Checks the player in; the same tap sent again (its idempotency key) changes nothing."""
    return idempotency.once(
        idempotency_key,
        kind=idempotency.Kind.CHECK_IN,
        actor=actor,
        tournament_id=player.tournament_id,
        subject=f"player {player.pk}",
        write=lambda: _check_in(player, actor),
        remember=lambda done: {"player": done.player.pk, "message": done.message},
        replay=lambda first: Outcome(
            player, False, f"Already recorded from this tap: {first['message']}"
        ),
    )


def _check_in(player: Player, actor) -> Outcome:
    player = lock(player)
    refuse_unless_allowed(player)
    if player.checked_in_at is not None:
        return Outcome(
            player, False, f"{player.name} was already checked in at {hhmm(player.checked_in_at)}."
        )
    player.checked_in_at = timezone.now()
    player.checked_in_by = actor if actor is not None and actor.is_authenticated else None
    player.save(update_fields=["checked_in_at", "checked_in_by", "updated_at"])
    audit.record(
        "player.checked_in",
        f"{player.name} ({player.code}) checked in",
        actor=actor,
        tournament=player.tournament,
        target=player,
        data={"at": player.checked_in_at.isoformat()},
    )
    changes.bump(player.tournament_id)
    return Outcome(player, True, f"{player.name} checked in at {hhmm(player.checked_in_at)}.")


@changes.announces
def undo_check_in(player: Player, actor) -> Outcome:
    player = lock(player)
    refuse_unless_allowed(player)
    if player.checked_in_at is None:
        return Outcome(player, False, f"{player.name} is not checked in.")
    was_at, was_by = player.checked_in_at, player.checked_in_by
    player.checked_in_at = None
    player.checked_in_by = None
    player.save(update_fields=["checked_in_at", "checked_in_by", "updated_at"])
    audit.record(
        "player.check_in_undone",
        f"Check-in of {player.name} ({player.code}) undone (was {hhmm(was_at)})",
        actor=actor,
        tournament=player.tournament,
        target=player,
        data={"was_at": was_at.isoformat(), "was_by": was_by.get_username() if was_by else None},
    )
    changes.bump(player.tournament_id)
    return Outcome(player, True, f"Check-in of {player.name} undone.")


@changes.announces
def walk_in(tournament: Tournament, registrant: registration.Registrant, *, actor) -> Player:
    """Registers a player at the door and checks them in, in one step."""
    tournament = registration.lock_tournament(tournament)
    if not tournament.check_in_open:
        raise UserFacingError(CLOSED_MESSAGE)
    changes.bump(tournament.pk)
    return registration.register(
        tournament, registrant, source=Player.Source.WALK_IN, actor=actor, check_in=True
    )
