from django.conf import settings
from django.db import models


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
    only once the account's owner, signed in, accepts. The token makes the link unguessable;
    it opens nothing for anyone but the invited account.
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
    token = models.CharField(max_length=64, unique=True)
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
