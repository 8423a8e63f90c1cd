import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

# No 0/O, 1/I/L: codes are read aloud at the door and typed on phones.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_registration_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Player(models.Model):
    """A registration: one person playing in one tournament."""

    class Status(models.TextChoices):
        REGISTERED = "registered", "Registered"
        WAITLISTED = "waitlisted", "On the waitlist"
        WITHDRAWN = "withdrawn", "Withdrawn"

    class Source(models.TextChoices):
        WEB = "web", "Online registration"
        IMPORT = "import", "CSV import"
        WALK_IN = "walk_in", "Walk-in"
        ORGANISER = "organiser", "Added by organiser"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=100)
    email = models.EmailField(blank=True, help_text="Stored lower-case; one per tournament.")
    phone = models.CharField(max_length=30, blank=True)
    group_name = models.CharField("group or team name", max_length=100, blank=True)
    costume_contest = models.BooleanField("enters the costume contest", default=False)
    code = models.CharField(max_length=CODE_LENGTH, default=new_registration_code)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.REGISTERED)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.WEB)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    checked_in_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    party = models.ForeignKey(
        "Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="members"
    )
    waitlist_position = models.PositiveIntegerField(
        null=True, blank=True, help_text="Order on the waitlist, lowest first."
    )
    promoted_at = models.DateTimeField(
        null=True, blank=True, help_text="When a freed place went to them from the waitlist."
    )
    offer_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="A freed place is held for them until then (e-mail on)."
    )
    registered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="unique_player_code"),
            models.UniqueConstraint(
                fields=["tournament", "email"],
                condition=~Q(email="") & Q(status__in=["registered", "waitlisted"]),
                name="unique_active_email",
                violation_error_message="This e-mail address is already registered.",
            ),
        ]
        indexes = [models.Index(fields=["tournament", "status", "name"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"

    def save(self, *args, **kwargs) -> None:
        self.email = self.email.strip().lower()
        self.name = " ".join(self.name.split())
        super().save(*args, **kwargs)

    @property
    def checked_in(self) -> bool:
        return self.checked_in_at is not None


class Party(models.Model):
    """Players one person registered together in one form (friends, a table of four).

    The booker's e-mail is the party's: with `email_each` off, only it hears from the site.
    """

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="parties")
    name = models.CharField(max_length=100)
    email = models.EmailField()
    email_each = models.BooleanField("e-mail each member", default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "parties"

    def __str__(self) -> str:
        return self.name


class CardProblem(models.Model):
    """A player's "problem with my card?" note, shown to the pod's staff on its cards page."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="card_problems")
    pod = models.ForeignKey("Pod", on_delete=models.CASCADE, related_name="card_problems")
    message = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.player.name}: {self.message[:40]}"
