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
