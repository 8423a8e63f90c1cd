from django.conf import settings
from django.db import models

from tournaments.rules.draws import label


class Draw(models.Model):
    """One draw the site made, listed when it was made and never removed: what was drawn
    (its subject and attempt, fixed by the code) and the code it was drawn with.

    The results keep their own copy of the seed (a stage's, a roll-off's) to replay from;
    this list is what `verify_draws` and the results page check against the secret, and
    what shows a second attempt at a draw.
    """

    class Source(models.TextChoices):
        SECRET = "secret", "Drawn from the draw secret"
        PRACTICE = "practice", "Set by a practice run so it replays the simulator"
        EARLIER = "earlier", "Made before the site sealed its draws"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="draws")
    subject = models.CharField(max_length=120)
    attempt = models.PositiveSmallIntegerField(default=1)
    seed = models.BigIntegerField()
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.SECRET)
    drawn_at = models.DateTimeField(auto_now_add=True)
    drawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "subject", "attempt"], name="one_draw_per_attempt"
            )
        ]
        ordering = ["tournament_id", "id"]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return label(self.subject, self.attempt)
