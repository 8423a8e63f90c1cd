"""Invitations: how an account that already exists joins another tournament.

Adding someone's account straight away would give its powers to whoever added it (and, before
invitations, a password reset on top). Instead the organiser gets a link to pass on; the
account's owner, signed in, accepts or declines it. Until then the account has no role.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError

from ..models import Invitation, Role, Tournament, TournamentRole
from ..permissions import has_permission
from .accounts import grant_role

VALID_FOR = timedelta(days=7)


def pending_for(user):
    """Invitations `user` may still answer, newest first."""
    return Invitation.objects.filter(
        user=user, status=Invitation.Status.PENDING, expires_at__gt=timezone.now()
    ).select_related("tournament", "invited_by")


def is_open(invitation: Invitation) -> bool:
    return invitation.status == Invitation.Status.PENDING and invitation.expires_at > timezone.now()


@transaction.atomic
def invite(tournament: Tournament, user, role: str, *, actor) -> Invitation:
    if role not in Role.values:
        raise UserFacingError(f"Unknown role {role!r}.")
    label = Role(role).label.lower()
    if TournamentRole.objects.filter(tournament=tournament, user=user, role=role).exists():
        raise UserFacingError(f"{user.username} is already {label}.")
    if pending_for(user).filter(tournament=tournament, role=role).exists():
        raise UserFacingError(
            f"{user.username} already has an invitation to be {label}: its link is listed "
            "under Waiting for an answer."
        )
    invitation = Invitation.objects.create(
        tournament=tournament,
        user=user,
        role=role,
        invited_by=actor,
        expires_at=timezone.now() + VALID_FOR,
    )
    audit.record(
        "invitation.sent",
        f"{user.username} invited to be {label}",
        actor=actor,
        tournament=tournament,
        target=invitation,
        data={"user": user.username, "role": role},
    )
    return invitation


def _decide(invitation: Invitation, status: str, *, actor) -> Invitation:
    """Locks the row and checks it can still be answered: two answers at once count once.
    An acceptance is logged where the role is granted; a refusal or withdrawal here."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if not is_open(invitation):
        raise UserFacingError("This invitation is no longer open.")
    invitation.status = status
    invitation.decided_at = timezone.now()
    invitation.save(update_fields=["status", "decided_at"])
    if status != Invitation.Status.ACCEPTED:
        username, label = invitation.user.username, invitation.get_role_display().lower()
        audit.record(
            f"invitation.{status}",
            f"{username}'s invitation to be {label} {status}",
            actor=actor,
            tournament=invitation.tournament,
            target=invitation,
            data={"user": username, "role": invitation.role},
        )
    return invitation


@transaction.atomic
def accept(invitation: Invitation, user) -> TournamentRole:
    if invitation.user_id != user.pk:
        raise UserFacingError("This invitation is for another account.")
    invitation = _decide(invitation, Invitation.Status.ACCEPTED, actor=user)
    inviter = invitation.invited_by
    # An invitation speaks for the organiser who sent it only while they still are one.
    if inviter is None or not has_permission(inviter, invitation.tournament, "people.manage"):
        raise UserFacingError("The organiser who sent this invitation no longer runs it.")
    held = TournamentRole.objects.filter(
        tournament=invitation.tournament, user=user, role=invitation.role
    ).first()
    if held is not None:  # given directly meanwhile: the answer still closes the invitation
        return held
    label = invitation.get_role_display().lower()
    return grant_role(
        invitation.tournament,
        user,
        invitation.role,
        actor=user,
        action="invitation.accepted",
        summary=f"{user.username} accepted {inviter.username}'s invitation to be {label}",
    )


@transaction.atomic
def decline(invitation: Invitation, user) -> None:
    if invitation.user_id != user.pk:
        raise UserFacingError("This invitation is for another account.")
    _decide(invitation, Invitation.Status.DECLINED, actor=user)


@transaction.atomic
def withdraw(invitation: Invitation, *, actor) -> None:
    _decide(invitation, Invitation.Status.WITHDRAWN, actor=actor)
