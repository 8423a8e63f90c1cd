from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef

from tournaments.rules.roll_offs import Tied, cut_tied, prize_tied


class RollOffQuerySet(models.QuerySet):
    def current(self) -> "RollOffQuerySet":
        """The latest version of each roll-off: a re-throw adds a version, never replaces one."""
        newer = RollOff.objects.filter(
            tournament=OuterRef("tournament"),
            subject=OuterRef("subject"),
            version__gt=OuterRef("version"),
        )
        return self.filter(~Exists(newer))


class RollOff(models.Model):
    """One tie settled by dice, for a cut, a prize or the final table's throwing order: thrown
    at the table and typed in, or rolled by the site from a draw code. Every face is kept in
    throw order; a tie thrown again (after a corrected card, or a tie for the lowest die at
    the final table) gets a new version holding every face so far, and the earlier ones stay."""

    class Source(models.TextChoices):
        ENTERED = "entered", "Physical dice entered by staff"
        SITE = "site", "Rolled on screen by the site"

    class Kind(models.TextChoices):
        CUT = "cut", "Who advances"
        PRIZE = "prize", "A prize"
        ORDER = "order", "Throwing order at the final table"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="roll_offs")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    subject = models.CharField(max_length=120, help_text="What it settles, as in the draw list.")
    version = models.PositiveSmallIntegerField(default=1)
    stage = models.ForeignKey(
        "Stage", null=True, blank=True, on_delete=models.CASCADE, related_name="roll_offs"
    )
    group = models.CharField(max_length=30, help_text='Pod number, "semi-final" or "overall".')
    key = models.CharField(max_length=80, help_text="The key its dice are entered under.")
    category_key = models.CharField(max_length=40)
    category_label = models.CharField(max_length=80)
    measure = models.CharField(max_length=20, blank=True)
    scope = models.CharField(max_length=20, blank=True)
    players = models.JSONField(
        help_text="The tied players' ids (pods, for a best pod), in roll order."
    )
    faces = models.JSONField(help_text="Every die thrown, in order.")
    winners = models.JSONField(help_text="Who the dice put through, best first.")
    rounds = models.JSONField(help_text="Each simultaneous throw: player id -> face.")
    source = models.CharField(max_length=10, choices=Source.choices)
    seed = models.BigIntegerField(null=True, blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    objects = RollOffQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "subject", "version"], name="one_roll_off_version"
            )
        ]
        ordering = ["tournament", "subject", "version"]

    def __str__(self) -> str:
        return f"Roll-off for {self.category_label} in {self.group}"

    def tied(self) -> Tied | None:
        """The tie it settled, in the terms both a cut and a prize can be matched on; the
        final's order roll settles neither."""
        if self.kind == self.Kind.ORDER:
            return None
        stage_kind = self.stage.kind if self.stage_id else ""
        if self.kind == self.Kind.CUT:
            return cut_tied(stage_kind, self.group, self.category_key, self.players)
        return prize_tied(stage_kind, self.scope, self.measure, self.group, self.players)
