from django.conf import settings
from django.db import models


class Qualifier(models.Model):
    """A player who advanced from a stage, and why."""

    from_stage = models.ForeignKey("Stage", on_delete=models.CASCADE, related_name="qualifiers")
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="+")
    group = models.CharField(max_length=30)
    category_key = models.CharField(max_length=20)
    category_label = models.CharField(max_length=60)
    place = models.PositiveSmallIntegerField()
    value = models.PositiveSmallIntegerField()
    via_roll_off = models.BooleanField(default=False)
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    saved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["from_stage", "player"], name="qualifies_once")
        ]
        ordering = ["from_stage", "group", "category_key", "place"]

    def __str__(self) -> str:
        return f"{self.player} — {self.category_label}, {self.group}"


class FinalTable(models.Model):
    """The four finalists and the grand prize roll: every throw stored, seeds kept. The dice
    of the roll for throwing order are a `RollOff` of kind ORDER; `order` is what it decided."""

    tournament = models.OneToOneField("Tournament", on_delete=models.CASCADE, related_name="final")
    semi_stage = models.ForeignKey("Stage", on_delete=models.PROTECT, related_name="+")
    seed = models.BigIntegerField(help_text="Seed of the two draws (seats 3 and 4).")
    order = models.JSONField(default=list, blank=True, help_text="Player ids in throwing order.")
    dice_seed = models.BigIntegerField(null=True, blank=True, help_text="When the site rolls.")
    winner = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    seated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    seated_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Final table of {self.tournament}"


class FinalSeat(models.Model):
    final = models.ForeignKey(FinalTable, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=120)
    path = models.CharField(max_length=200, blank=True, help_text='e.g. "Most wins, pod 3".')
    pool = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["final", "seat"], name="unique_final_seat"),
            models.UniqueConstraint(fields=["final", "player"], name="one_final_seat_each"),
        ]
        ordering = ["final", "seat"]

    def __str__(self) -> str:
        return f"Seat {self.seat}: {self.player}"


class FinalThrow(models.Model):
    final = models.ForeignKey(FinalTable, on_delete=models.CASCADE, related_name="throws")
    number = models.PositiveIntegerField()
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="+")
    dice = models.JSONField()
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    # A mistyped throw is voided, never deleted: it keeps its number (so "code:n" still
    # replays the dice rolled on screen) and the same finalist throws again.
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    void_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["final", "number"], name="unique_final_throw")
        ]
        ordering = ["final", "number"]

    def __str__(self) -> str:
        return f"Throw {self.number}: {self.dice}"
