"""Staff and admin accounts made by an organiser at the venue, with no e-mail server.

The organiser sees a one-time password once and hands it over; the account must choose
its own password at first login, so the organiser never knows a password in use.
"""

from __future__ import annotations

import secrets

from axes.utils import reset as reset_sign_in_failures
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from ..models import Role, Tournament, TournamentRole, UserProfile
from . import audit
from .errors import UserFacingError

PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def one_time_password() -> str:
    """Three groups of four: long enough to resist guessing, easy to read off a screen."""
    return "-".join("".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(4)) for _ in range(3))


@transaction.atomic
def create_account(
    tournament: Tournament, *, username: str, full_name: str, role: str, actor
) -> tuple[object, str]:
    User = get_user_model()
    username = username.strip()
    if User.objects.filter(username__iexact=username).exists():
        raise UserFacingError(
            f"The username {username!r} is taken; add the existing account instead.",
            field="username",
        )
    password = one_time_password()
    first, _, last = full_name.strip().partition(" ")
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=username, password=password, first_name=first, last_name=last
            )
    except IntegrityError as exc:
        raise UserFacingError(f"The username {username!r} is taken.", field="username") from exc
    UserProfile.objects.create(user=user, must_change_password=True, created_by=actor)
    grant_role(tournament, user, role, actor=actor)
    return user, password


@transaction.atomic
def grant_role(tournament: Tournament, user, role: str, *, actor) -> TournamentRole:
    if role not in Role.values:
        raise UserFacingError(f"Unknown role {role!r}.")
    tr, created = TournamentRole.objects.get_or_create(
        tournament=tournament, user=user, role=role, defaults={"created_by": actor}
    )
    if not created:
        raise UserFacingError(f"{user.username} is already {tr.get_role_display().lower()}.")
    audit.record(
        "role.granted",
        f"{user.username} made {tr.get_role_display().lower()}",
        actor=actor,
        tournament=tournament,
        target=tr,
    )
    return tr


@transaction.atomic
def revoke_role(tr: TournamentRole, *, actor) -> None:
    if tr.role == Role.ORGANISER:
        organisers = TournamentRole.objects.select_for_update().filter(
            tournament=tr.tournament, role=Role.ORGANISER
        )
        if len(organisers) <= 1:
            raise UserFacingError("A tournament needs at least one organiser.")
    audit.record(
        "role.revoked",
        f"{tr.user.username} is no longer {tr.get_role_display().lower()}",
        actor=actor,
        tournament=tr.tournament,
        data={"user": tr.user.username, "role": tr.role},
    )
    tr.delete()


@transaction.atomic
def reset_password(tournament: Tournament, user, *, actor) -> str:
    if user.is_superuser or user.has_perm("tournaments.create_tournament"):
        raise UserFacingError("Organisers and superusers change their own passwords.")
    password = one_time_password()
    user.set_password(password)
    user.save(update_fields=["password"])
    UserProfile.objects.update_or_create(user=user, defaults={"must_change_password": True})
    # The lockout page sends a locked-out person to the organiser: the new password unlocks.
    reset_sign_in_failures(username=user.username)
    audit.record(
        "account.password_reset",
        f"One-time password issued for {user.username}",
        actor=actor,
        tournament=tournament,
        data={"user": user.username},
    )
    return password
