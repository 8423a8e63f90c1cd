"""Storing a score card's versions: what was typed checked, the player's row locked, the
version it builds on compared, and the new version saved (scoring/services/cards.py writes
through these).
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction

from scoring.rules.cards import Card, unplayed_claims
from tournaments.foundation import idempotency
from tournaments.foundation.errors import UserFacingError, VersionConflict
from tournaments.models import Player, Pod, Round, Seat, Stage

from ..models import CardEntry

MAX_COUNT = 99


def check_card(card: Card, stage: Stage, player: Player) -> Card:
    if card.rounds and len(card.rounds) != stage.round_count:
        raise UserFacingError(f"A card of this stage has {stage.round_count} rounds.")
    if any(mark not in ("W", "L", None) for mark in card.rounds):
        raise UserFacingError("Each round is W, L or left empty.")
    for name, value in card.totals().items():
        if not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise UserFacingError(f"{name.replace('_', ' ').capitalize()}: 0 to {MAX_COUNT}.")
    if card.rounds:
        wins, losses = card.rounds.count("W"), card.rounds.count("L")
        if (wins, losses) != (card.wins, card.losses):
            raise UserFacingError(
                f"The rounds show {wins} W and {losses} L but the totals say "
                f"{card.wins} and {card.losses}."
            )
    if card.wins + card.losses > stage.round_count:
        raise UserFacingError(f"A player plays at most {stage.round_count} rounds.")
    if card.snake_eyes and not stage.rules.get("snake_eyes"):
        raise UserFacingError("These rules have no snake eyes.")
    played = set(
        Seat.objects.filter(round__stage=stage, player=player, round__number__lte=stage.round_count)
        .exclude(round__status=Round.Status.PENDING)
        .values_list("round__number", flat=True)
    )
    problem = unplayed_claims(card, played)
    if problem:
        raise UserFacingError(problem)
    return card


def pod_of_player(stage: Stage, player: Player) -> Pod:
    seat = (
        Seat.objects.filter(round__stage=stage, player=player)
        .select_related("pod__stage__tournament")
        .order_by("-round__number")
        .first()
    )
    if seat is None:
        raise UserFacingError(f"{player.name} did not play in this stage.")
    return seat.pod


def lock_current(stage: Stage, player: Player) -> CardEntry | None:
    """Locks the player's row, then reads their current card version.

    The player, not the version, is the lock: it exists before the first version does (two
    first entries queue instead of colliding), and whoever waited reads the version the other
    saved. A lock on the version row itself, once the winner replaced it, would hand the
    loser no row at all ("nobody has entered this card") instead of the version to check.
    """
    Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    return (
        CardEntry.objects.select_related("entered_by", "confirmed_by")
        .filter(stage=stage, player=player, is_current=True)
        .first()
    )


def check_version(current: CardEntry | None, base_version: int) -> None:
    if (current.version if current else 0) != base_version:
        who = current.entered_by.get_username() if current else "someone"
        raise VersionConflict(
            f"{who} changed this card while you were entering it; check their version first.",
            version=current.version if current else 0,
        )


def save_version(stage, player, current, card: Card, actor, **extra) -> CardEntry:
    if current is not None:
        CardEntry.objects.filter(pk=current.pk).update(is_current=False)
    try:
        with transaction.atomic():
            return CardEntry.objects.create(
                stage=stage,
                player=player,
                version=(current.version if current else 0) + 1,
                rounds=list(card.rounds),
                wins=card.wins,
                losses=card.losses,
                buncos=card.buncos,
                minis=card.minis,
                snake_eyes=card.snake_eyes,
                entered_by=actor,
                supersedes=current,
                **extra,
            )
    except IntegrityError as exc:
        raise UserFacingError("Someone saved this card at the same moment; reload.") from exc


def once(
    key, kind: str, stage: Stage, player: Player, actor, write: Callable[[Pod], CardEntry]
) -> CardEntry:
    """`write(pod)` unless `key` was written before: then the version it saved, `replayed`."""
    pod = pod_of_player(stage, player)

    def replay(first: dict) -> CardEntry:
        entry = CardEntry.objects.select_related("entered_by").get(pk=first["card"])
        entry.replayed = True
        return entry

    return idempotency.once(
        key,
        kind=kind,
        actor=actor,
        tournament_id=stage.tournament_id,
        pod_id=pod.pk,
        subject=f"stage {stage.pk} player {player.pk}",
        write=lambda: write(pod),
        remember=lambda entry: {"card": entry.pk, "version": entry.version},
        replay=replay,
    )
