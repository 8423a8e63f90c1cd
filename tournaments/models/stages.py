from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from scoring.rules import SECOND_PERSON, RuleError, RuleSet


class Stage(models.Model):
    """Qualifying, semi-final or final: one pod draw and its rounds.

    The rules are copied in when the pods are drawn, so editing a preset later never
    changes an event in progress; the seed and inputs of the draw are stored so anyone can
    replay it and get the same pods.
    """

    class Kind(models.TextChoices):
        QUALIFYING = "qualifying", "Qualifying"
        SEMI_FINAL = "semi_final", "Semi-final"
        FINAL = "final", "Final table"

    class Status(models.TextChoices):
        DRAWN = "drawn", "Pods drawn"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="stages")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    sets = models.PositiveSmallIntegerField()
    rules = models.JSONField(help_text="RuleSet.to_dict() at the time of the draw.")
    seed = models.BigIntegerField(help_text="Seed of the pod draw and hostess picks.")
    draw_input = models.JSONField(help_text="Everything the draw used besides the seed.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAWN)
    drawn_at = models.DateTimeField(auto_now_add=True)
    drawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    played_rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Set when the stage ended early: the rounds it played."
    )
    ended_early_at = models.DateTimeField(null=True, blank=True)
    ended_early_reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "kind"], name="one_stage_per_kind")
        ]
        ordering = ["tournament_id", "drawn_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.tournament}"

    def ruleset(self) -> RuleSet:
        return RuleSet.from_dict(self.rules)

    def clean(self) -> None:
        """Pages play a stage by its stored rules, so they must be rules the engine accepts
        (the draw stores the engine's own; an imported file might not)."""
        try:
            self.ruleset()
        except RuleError as exc:
            raise ValidationError({"rules": str(exc)}) from exc

    @property
    def targets(self) -> list[int]:
        return list(self.rules["targets"])

    @property
    def verification(self) -> str:
        """How this stage's cards are verified (`scoring.rules.cards.state`); rules stored before
        the setting existed were played with a second person confirming."""
        return self.rules.get("verification", SECOND_PERSON)

    @property
    def round_count(self) -> int:
        """The rounds that count: every round of every set, or those played before an early
        end (rounds are played in number order, so they are rounds 1 to this)."""
        if self.played_rounds is not None:
            return self.played_rounds
        return self.sets * len(self.rules["targets"])

    @property
    def ended_early(self) -> bool:
        return self.ended_early_at is not None


class Pod(models.Model):
    """Twelve players (three tables) who play a stage together, with their staff."""

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="pods")
    number = models.PositiveSmallIntegerField()
    tables = models.PositiveSmallIntegerField()
    hostess = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hostess_drawn = models.BooleanField(
        default=True, help_text="False once the organiser picked the hostess by hand."
    )
    staff = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="pods")
    own_changes = models.PositiveIntegerField(
        default=0,
        help_text="Changes confined to this pod (its results saved): with the counter's "
        "whole_room, when this pod's page last changed (tournaments/foundation/changes.py).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="unique_pod_number")
        ]
        ordering = ["stage_id", "number"]

    def __str__(self) -> str:
        return f"Pod {self.number}"


class Round(models.Model):
    """One target number played by every pod of a stage at once, started by the bell."""

    class Status(models.TextChoices):
        PENDING = "pending", "Not started"
        OPEN = "open", "Playing"
        CLOSED = "closed", "Closed"
        NOT_PLAYED = "not_played", "Not played (the stage ended early)"

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(help_text="1.. across all sets of the stage.")
    set_number = models.PositiveSmallIntegerField()
    target = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    opened_at = models.DateTimeField(null=True, blank=True)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="unique_round_number")
        ]
        ordering = ["stage_id", "number"]

    def __str__(self) -> str:
        return f"Round {self.number} (set {self.set_number}, {self.target}s)"


class Seat(models.Model):
    """Who sits where in one round. Derived from the draw, the results and roster changes.

    A ghost seat keeps its ghost number, so a late arrival who takes ghost 2's place takes
    it in every later round too, even when a corrected result reshuffles the seating.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    pod = models.ForeignKey(Pod, on_delete=models.CASCADE, related_name="seats")
    table = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    ghost = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "pod", "table", "seat"], name="unique_seat"),
            models.UniqueConstraint(
                fields=["round", "player"],
                condition=Q(player__isnull=False),
                name="one_seat_per_player_per_round",
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=True, ghost__isnull=False)
                | Q(player__isnull=False, ghost__isnull=True),
                name="seat_is_player_or_ghost",
            ),
        ]
        ordering = ["round_id", "pod_id", "table", "seat"]

    def __str__(self) -> str:
        who = self.player or f"ghost {self.ghost}"
        return f"{self.round} pod {self.pod.number} table {self.table} seat {self.seat}: {who}"


class RosterChange(models.Model):
    """A late arrival taking a ghost's place, or a player leaving for a ghost, from a round on."""

    class Kind(models.TextChoices):
        JOIN = "join", "Took a ghost seat"
        LEAVE = "leave", "Left; a ghost took the seat"

    pod = models.ForeignKey(Pod, on_delete=models.CASCADE, related_name="roster_changes")
    from_round = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="+")
    ghost = models.PositiveSmallIntegerField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pod_id", "from_round", "at", "id"]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind} ghost {self.ghost} from round {self.from_round}"
