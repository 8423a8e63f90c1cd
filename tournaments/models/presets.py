import dataclasses

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from scoring.rules import SECOND_PERSON, RuleError, RuleSet
from scoring.rules.ruleset import (
    MAX_QUALIFYING_SETS,
    MOVEMENT_LABELS,
    TIE_BREAK_LABELS,
    VERIFICATION_LABELS,
)
from scoring.rules.tiebreak import tie_rules


class RulePreset(models.Model):
    """A rule preset as data: the four shipped ones plus organisers' own copies.

    The fields mirror `scoring.rules.RuleSet` one to one so that `to_ruleset` is the only
    bridge between what an organiser edits and what the engine plays.
    """

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
    movement = models.CharField(max_length=20, choices=list(MOVEMENT_LABELS.items()))
    table_tie_break = models.CharField(max_length=20, choices=list(TIE_BREAK_LABELS.items()))
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
        choices=list(VERIFICATION_LABELS.items()),
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

    @property
    def tie_rules(self) -> str:
        """Both tie rules in the engine's words, so a preset's description cannot drift."""
        return tie_rules(self.table_tie_break)

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
