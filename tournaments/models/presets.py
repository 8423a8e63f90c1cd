import dataclasses

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from scoring.rules import ONE_STAFF, SECOND_PERSON, RuleError, RuleSet
from scoring.rules.ruleset import MAX_QUALIFYING_SETS


class RulePreset(models.Model):
    """A rule preset as data: the four shipped ones plus organisers' own copies.

    The fields mirror `scoring.rules.RuleSet` one to one so that `to_ruleset` is the only
    bridge between what an organiser edits and what the engine plays.
    """

    class Movement(models.TextChoices):
        PROGRESSIVE = "progressive", "Progressive (winners move up, losers move down)"
        LOSERS_WALK = "losers_walk", "Losers walk (winners stay, losers move on A→B→C→A)"
        WINNERS_UP = "winners_up", "Winners up (winners climb, head-table losers go to the bottom)"

    class TieBreak(models.TextChoices):
        HIGH_DIE_PAIR = "high_die_pair", "One player of each team rolls one die, highest wins"
        HIGH_DIE_PLAYER = "high_die_player", "Each player rolls one die, highest wins"
        ROLL_TO_TARGET = "roll_to_target", "Keep rolling until someone rolls the target number"
        TURN_AROUND_TABLE = "turn_around_table", "One more turn around the table"

    class Verification(models.TextChoices):
        ONE_STAFF = ONE_STAFF, "One staff member checks each card against the table results"
        SECOND_PERSON = SECOND_PERSON, "A second person confirms each card"

    RULE_FIELDS = tuple(
        f.name for f in dataclasses.fields(RuleSet) if f.name not in {"name", "label"}
    )

    slug = models.SlugField(max_length=60, unique=True)
    label = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    builtin = models.BooleanField(default=False, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    based_on = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)

    targets = models.CharField(
        max_length=20,
        help_text="The target numbers of a set, in order, separated by commas (e.g. 1,2,3,4,5,6).",
    )
    bunco_points = models.PositiveSmallIntegerField(default=21)
    mini_bunco_points = models.PositiveSmallIntegerField(default=5)
    snake_eyes = models.BooleanField(
        default=False, help_text="Three 1s (when 1 is not the target) wipe the team's points."
    )
    bell_points = models.PositiveSmallIntegerField(
        default=21, help_text="A head-table team reaching this many points rings the bell."
    )
    bell_on_bunco = models.BooleanField(default=True)
    finish_turn_after_bell = models.BooleanField(default=True)
    head_table_stops_at_bell = models.BooleanField(
        default=False,
        help_text="The head table stops rolling at its own bell; only the other tables finish "
        "the turn in progress.",
    )
    everyone_rolls_once = models.BooleanField(default=False)
    movement = models.CharField(max_length=20, choices=Movement.choices)
    table_tie_break = models.CharField(max_length=20, choices=TieBreak.choices)
    min_qualifying_sets = models.PositiveSmallIntegerField(
        "fewest qualifying sets",
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_QUALIFYING_SETS)],
    )
    max_qualifying_sets = models.PositiveSmallIntegerField(
        "most qualifying sets",
        default=MAX_QUALIFYING_SETS,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_QUALIFYING_SETS)],
        help_text="An event with these rules plays from the fewest to the most sets.",
    )
    verification = models.CharField(
        "Card verification",
        max_length=20,
        choices=Verification.choices,
        default=SECOND_PERSON,
        help_text="One staff member: a card that matches the table results (or whose "
        "difference is resolved with a reason) is verified by that one person. Second person: "
        "someone other than the person who entered the card must confirm it.",
    )

    class Meta:
        ordering = ["-builtin", "label"]

    def __str__(self) -> str:
        return self.label

    def get_absolute_url(self) -> str:
        return reverse("preset-detail", args=[self.slug])

    @property
    def target_list(self) -> tuple[int, ...]:
        try:
            return tuple(int(part) for part in self.targets.split(",") if part.strip())
        except ValueError as exc:
            raise ValidationError({"targets": "Targets must be numbers 1 to 6."}) from exc

    def to_ruleset(self) -> RuleSet:
        values = {name: getattr(self, name) for name in self.RULE_FIELDS}
        values["targets"] = self.target_list
        return RuleSet(name=self.slug, label=self.label, **values)

    @classmethod
    def fields_from_ruleset(cls, rules: RuleSet) -> dict:
        values = {name: getattr(rules, name) for name in ("label", *cls.RULE_FIELDS)}
        values["targets"] = ",".join(str(t) for t in rules.targets)
        return values

    def clean(self) -> None:
        try:
            self.to_ruleset()
        except RuleError as exc:
            raise ValidationError(str(exc)) from exc
