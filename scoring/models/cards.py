from django.conf import settings
from django.db import models
from django.db.models import Q


class CardEntry(models.Model):
    """One version of a player's score card for a stage: a paper entry or a resolution.

    Versions are never changed except to record who confirmed them; a correction or a
    resolution is a new version, so the history of a disputed card is all there.
    """

    class Kind(models.TextChoices):
        PAPER = "paper", "Paper card entered"
        RESOLUTION = "resolution", "Difference resolved"

    stage = models.ForeignKey("tournaments.Stage", on_delete=models.PROTECT, related_name="cards")
    player = models.ForeignKey("tournaments.Player", on_delete=models.PROTECT, related_name="cards")
    version = models.PositiveIntegerField()
    is_current = models.BooleanField(default=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.PAPER)
    rounds = models.JSONField(default=list, blank=True, help_text='"W", "L" or null per round.')
    wins = models.PositiveSmallIntegerField()
    losses = models.PositiveSmallIntegerField()
    buncos = models.PositiveSmallIntegerField()
    minis = models.PositiveSmallIntegerField()
    snake_eyes = models.PositiveSmallIntegerField(default=0)
    reason = models.CharField(max_length=300, blank=True)
    settled_against = models.JSONField(
        null=True,
        blank=True,
        help_text="A resolution: the table record it was settled against (rounds and "
        "totals), so a later correction of the tables flags the card again.",
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    entered_at = models.DateTimeField(auto_now_add=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    replayed = False  # True on the version a repeated idempotency key answers with

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "player", "version"], name="unique_card_version"
            ),
            models.UniqueConstraint(
                fields=["stage", "player"], condition=Q(is_current=True), name="one_current_card"
            ),
            models.CheckConstraint(
                condition=Q(confirmed_by__isnull=True) | ~Q(confirmed_by=models.F("entered_by")),
                name="confirmer_is_not_submitter",
            ),
        ]
        ordering = ["stage", "player", "version"]

    def __str__(self) -> str:
        return f"Card of {self.player_id} v{self.version} ({self.kind})"
