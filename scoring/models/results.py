from django.conf import settings
from django.db import models
from django.db.models import Q

from ..rules.table import PAIR_LABELS


class TableResult(models.Model):
    """One version of what happened at one table in one round.

    A correction adds a version and flips `is_current`; nothing is overwritten, so the
    history of a disputed table is always there. The unique constraints make two staff who
    save the same table at once collide in the database instead of overwriting each other.
    """

    class Pair(models.IntegerChoices):
        SEATS_1_3 = 0, PAIR_LABELS[0]
        SEATS_2_4 = 1, PAIR_LABELS[1]

    round = models.ForeignKey("tournaments.Round", on_delete=models.PROTECT, related_name="results")
    pod = models.ForeignKey("tournaments.Pod", on_delete=models.PROTECT, related_name="results")
    table = models.PositiveSmallIntegerField()
    version = models.PositiveIntegerField()
    is_current = models.BooleanField(default=True)
    winner = models.PositiveSmallIntegerField(choices=Pair.choices)
    points_13 = models.PositiveIntegerField(null=True, blank=True)
    points_24 = models.PositiveIntegerField(null=True, blank=True)
    tie = models.BooleanField(default=False, help_text="The points were level; a roll-off decided.")
    tie_break = models.JSONField(default=dict, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    entered_at = models.DateTimeField(auto_now_add=True)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["round", "pod", "table", "version"], name="unique_result_version"
            ),
            models.UniqueConstraint(
                fields=["round", "pod", "table"],
                condition=Q(is_current=True),
                name="one_current_result",
            ),
        ]
        ordering = ["round_id", "pod_id", "table", "version"]
        indexes = [models.Index(fields=["pod", "round", "is_current"])]

    def __str__(self) -> str:
        return f"{self.round} pod {self.pod_id} table {self.table} v{self.version}"

    def roll_credits(self) -> list["RollCredit"]:
        """Its roll credits, by player: those read with it (`read_credits`, set by
        `scoring.presenters.tables.with_credits`), else read now."""
        read = getattr(self, "read_credits", None)
        if read is not None:
            return read
        return list(self.credits.order_by("player_id"))


class RollCredit(models.Model):
    """Buncos, minis and snake eyes a player rolled at a table; only the roller gets credit."""

    result = models.ForeignKey(TableResult, on_delete=models.CASCADE, related_name="credits")
    player = models.ForeignKey("tournaments.Player", on_delete=models.PROTECT, related_name="+")
    buncos = models.PositiveSmallIntegerField(default=0)
    minis = models.PositiveSmallIntegerField(default=0)
    snake_eyes = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["result", "player"], name="one_credit_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.buncos} buncos, {self.minis} minis"
