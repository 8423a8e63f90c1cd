"""Staff and admin accounts made by an organiser at the venue, with no e-mail server.

The organiser sees a one-time password once and hands it over; the account must choose
its own password at first login, so the organiser never knows a password in use.

An account belongs to its owner: an organiser may set a password or lift a sign-in pause only
on an account whose every role is in a tournament they run, and never on an organiser's or a
site administrator's account. Whatever happens to an account's roles or sign-in is written to
the log of every tournament it has a role in, so no organiser learns of it from their own log
only by chance.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError

from ..lockout import clear_failures, lock_anywhere
from ..models import Role, Tournament, TournamentRole, UserProfile

PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
WHO_SETS_PASSWORDS = (
    "Only its owner can change its password (signed in, under Change password), "
    "or a site superuser."
)


def one_time_password() -> str:
    """Three groups of four: long enough to resist guessing, easy to read off a screen."""
    return "-".join("".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(4)) for _ in range(3))


def record_everywhere(
    user, action: str, summary: str, *, actor, where: Tournament, target=None, data=None
) -> None:
    """One entry in `where` and in every other tournament `user` has a role in; those others
    say where it happened, and name no row of `where` (a moved tournament takes its rows)."""
    others = Tournament.objects.filter(roles__user=user).exclude(pk=where.pk).distinct()
    data = {"user": user.username, "tournament": where.slug, **(data or {})}
    audit.record(action, summary, actor=actor, tournament=where, target=target, data=data)
    for tournament in others.order_by("pk"):
        audit.record(
            action, f"{summary} (at {where.name})", actor=actor, tournament=tournament, data=data
        )


def not_yours(actor, user) -> str | None:
    """Why `actor` may not set the password of, or unlock, `user`; None when they may."""
    if user.is_superuser or user.is_staff:
        return "it is a site administrator's account"
    if user.user_permissions.exists() or user.groups.exists():
        return "it holds site-wide permissions"
    roles = TournamentRole.objects.filter(user=user)
    if roles.filter(role=Role.ORGANISER).exists():
        return "it is an organiser's account"
    if actor.is_superuser:
        return None
    run_by_actor = TournamentRole.objects.filter(user=actor, role=Role.ORGANISER).values(
        "tournament_id"
    )
    if roles.exclude(tournament_id__in=run_by_actor).exists():
        return "it also has a role in a tournament you don't run"
    return None


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
def grant_role(
    tournament: Tournament,
    user,
    role: str,
    *,
    actor,
    action: str = "role.granted",
    summary: str | None = None,
) -> TournamentRole:
    """Gives the role at once: for accounts made here, and for code (demo, rehearsal, an
    accepted invitation). The page's "add an existing account" invites instead."""
    if role not in Role.values:
        raise UserFacingError(f"Unknown role {role!r}.")
    tr, created = TournamentRole.objects.get_or_create(
        tournament=tournament, user=user, role=role, defaults={"created_by": actor}
    )
    if not created:
        raise UserFacingError(f"{user.username} is already {tr.get_role_display().lower()}.")
    record_everywhere(
        user,
        action,
        summary or f"{user.username} made {tr.get_role_display().lower()}",
        actor=actor,
        where=tournament,
        target=tr,
        data={"role": role},
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
    record_everywhere(
        tr.user,
        "role.revoked",
        f"{tr.user.username} is no longer {tr.get_role_display().lower()}",
        actor=actor,
        where=tr.tournament,
        data={"role": tr.role},
    )
    tr.delete()


@transaction.atomic
def reset_password(tournament: Tournament, user, *, actor) -> str:
    if reason := not_yours(actor, user):
        raise UserFacingError(
            f"You can't issue a password for {user.username}: {reason}. {WHO_SETS_PASSWORDS}"
        )
    password = one_time_password()
    user.set_password(password)
    user.save(update_fields=["password"])
    UserProfile.objects.update_or_create(user=user, defaults={"must_change_password": True})
    # Failures against the old password say nothing about the new one.
    clear_failures(username=user.username)
    record_everywhere(
        user,
        "account.password_reset",
        f"One-time password issued for {user.username}",
        actor=actor,
        where=tournament,
    )
    return password


@transaction.atomic
def unlock_sign_in(tournament: Tournament, user, *, actor) -> None:
    """Lifts a pause on signing in. Refused where a password reset is: unlocking again and
    again would hand out fresh guesses at an account the organiser does not own."""
    lock = lock_anywhere(user.username)
    if lock is None:
        raise UserFacingError(f"{user.username} is not locked out.")
    if reason := not_yours(actor, user):
        raise UserFacingError(
            f"You can't unlock {user.username}: {reason}. It unlocks by itself in "
            f"{lock.minutes_left} minute{'s' if lock.minutes_left != 1 else ''}, "
            "or a site superuser can unlock it."
        )
    clear_failures(username=user.username)
    record_everywhere(
        user,
        "account.unlocked",
        f"Sign-in unlocked for {user.username}",
        actor=actor,
        where=tournament,
    )
