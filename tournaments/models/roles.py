from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.db import models

INVITATION_SALT = "tournaments.invitation"


class Role(models.TextChoices):
    ORGANISER = "organiser", "Organiser"
    STAFF = "staff", "Staff"
    ADMIN = "admin", "Admin"


class TournamentRole(models.Model):
    """Who does what at one tournament; a person may hold several roles."""

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="roles")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_roles"
    )
    role = models.CharField(max_length=20, choices=Role.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user", "role"], name="unique_role_per_tournament"
            )
        ]
        ordering = ["role", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} — {self.get_role_display()} of {self.tournament}"


class UserProfile(models.Model):
    """Account facts Django's user lacks: whether the one-time password is still in use."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    must_change_password = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"Profile of {self.user}"


class Invitation(models.Model):
    """An organiser's offer of a role to an account that already exists.

    Adding someone else's account must not hand its powers to the adder, so the role exists
    only once the account's owner, signed in, accepts. The link's token is signed with the
    site's key rather than stored: it cannot be guessed or made up, it opens nothing for
    anyone but the invited account, and a tournament moved to another database (where its
    rows get new ids) carries no token that could clash there or open the copy.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for an answer"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        WITHDRAWN = "withdrawn", "Withdrawn"

    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, related_name="invitations"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    role = models.CharField(max_length=20, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "status"], name="invitation_user_status")]

    def __str__(self) -> str:
        return f"{self.user} invited as {self.get_role_display()} of {self.tournament}"

    @property
    def token(self) -> str:
        return signing.Signer(salt=INVITATION_SALT).sign(f"{self.pk}.{self.user_id}")

    @classmethod
    def from_token(cls, token: str) -> Invitation | None:
        try:
            pk, user_id = signing.Signer(salt=INVITATION_SALT).unsign(token).split(".")
            return cls.objects.get(pk=int(pk), user_id=int(user_id))
        except (signing.BadSignature, ValueError, cls.DoesNotExist):
            return None
