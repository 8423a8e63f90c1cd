"""What a player may do from their own page: cancel their place, flag a problem with a card.

No account: the signed link is the permission (player_links.py). Each action is audited
with no actor and the player as target, so the log says the player did it.
"""

from __future__ import annotations

from django.db import transaction

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError

from ..models import CardProblem, EmailLog, Player, Seat
from . import mail, waitlist
from .registration import lock_tournament

MAX_NOTE = 500


def event_started(player: Player) -> bool:
    return player.tournament.stages.exists()


@transaction.atomic
def cancel_own_place(player: Player) -> list[Player]:
    """Gives the place up (or leaves the waitlist) before the event starts; a freed place
    goes to the first in line in the same transaction. Returns who was promoted.

    A second tap (two tabs, a double click) is told the place is already given up, and
    promotes nobody: the status is read with the tournament locked.
    """
    tournament = lock_tournament(player.tournament)
    player = tournament.players.get(pk=player.pk)
    if player.status == Player.Status.WITHDRAWN:
        raise UserFacingError("This registration is already cancelled.")
    if player.checked_in_at is not None or tournament.stages.exists():
        raise UserFacingError(
            "The event has started: please tell the check-in desk if you cannot play."
        )
    was_waiting = player.status == Player.Status.WAITLISTED
    player.status = Player.Status.WITHDRAWN
    player.waitlist_position = None
    player.save(update_fields=["status", "waitlist_position", "updated_at"])
    audit.record(
        "player.cancelled",
        f"{player.name} ({player.code}) "
        + ("left the waitlist" if was_waiting else "cancelled their place")
        + " from their own page",
        tournament=tournament,
        target=player,
    )
    mail.queue(player, EmailLog.Kind.CANCELLATION)
    return [] if was_waiting else waitlist.fill_places(tournament)


def current_pod_seat(player: Player) -> Seat | None:
    """The player's seat in the latest round they were seated in (their pod's staff)."""
    return (
        Seat.objects.filter(player=player)
        .select_related("pod", "round__stage")
        .order_by("-round__stage__drawn_at", "-round__number")
        .first()
    )


@transaction.atomic
def report_card_problem(player: Player, message: str) -> CardProblem:
    """A note to the staff of the pod the player played in last, shown on its cards page."""
    message = " ".join(message.split())
    if not message:
        raise UserFacingError("Please say what looks wrong on your card.", field="message")
    if len(message) > MAX_NOTE:
        raise UserFacingError(f"Please keep the note under {MAX_NOTE} characters.", field="message")
    seat = current_pod_seat(player)
    if seat is None:
        raise UserFacingError("You have no pod yet: there is no card to check.")
    note = CardProblem.objects.create(player=player, pod=seat.pod, message=message)
    audit.record(
        "card.problem_reported",
        f"{player.name} ({player.code}) flagged a problem with their card in {seat.pod}",
        tournament=player.tournament,
        target=player,
        data={"pod": seat.pod.number, "message": message},
    )
    return note


@transaction.atomic
def email_again(player: Player) -> bool:
    """Sends the confirmation again (the player's page button); False when e-mail is off."""
    if player.status == Player.Status.WITHDRAWN:
        raise UserFacingError("This registration is cancelled.")
    entry = mail.queue(player, EmailLog.Kind.CONFIRMATION)
    if entry is None:
        return False
    audit.record(
        "email.confirmation_again",
        f"{player.name} ({player.code}) asked for their confirmation e-mail again",
        tournament=player.tournament,
        target=player,
    )
    return True
