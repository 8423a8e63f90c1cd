from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from scoring.rules import RuleError

from ..foundation.text import amount, where
from ..rules.prizes import MEASURES, SCOPES, TIE_POLICIES, CategoryRule
from ..rules.prizes.results import note_from_data

MEASURE_LABELS = {
    "most_buncos": "Most buncos",
    "most_minis": "Most mini buncos",
    "most_wins": "Most wins",
    "most_losses": "Most losses",
    "even_split": "Half wins, half losses",
    "last_bunco": "Last bunco",
    "traveling_holder": "Holds the traveling item at the end",
    "judged": "Judged (e.g. best costume)",
}
SCOPE_LABELS = {"pod": "Per pod", "overall": "Overall", "pod_group": "Best pod (team)"}


class PrizeCategory(models.Model):
    """A prize an event pays, e.g. "Most buncos, per pod, $100"; mirrors the engine's."""

    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, related_name="prize_categories"
    )
    key = models.SlugField(max_length=40)
    label = models.CharField(max_length=80)
    measure = models.CharField(max_length=20, choices=[(m, MEASURE_LABELS[m]) for m in MEASURES])
    scope = models.CharField(max_length=20, choices=[(s, SCOPE_LABELS[s]) for s in SCOPES])
    stage_kind = models.CharField(
        "counted over",
        max_length=20,
        default="qualifying",
        choices=[("qualifying", "The qualifying stage"), ("semi_final", "The semi-final")],
    )
    amounts_cents = models.JSONField(help_text="One amount in cents per place, 1st first.")
    tie_policy = models.CharField(
        max_length=10,
        choices=[(t, "Split the money" if t == "split" else "Roll off") for t in TIE_POLICIES],
        default="roll_off",
    )
    priority = models.PositiveSmallIntegerField(
        default=0, help_text="Lower first, when a player may win only one prize."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="unique_prize_key")
        ]
        ordering = ["tournament", "priority", "id"]

    def __str__(self) -> str:
        return self.label

    def to_engine(self) -> CategoryRule:
        return CategoryRule(
            key=self.key,
            label=self.label,
            measure=self.measure,
            scope=self.scope,
            amounts_cents=self.amounts_cents,
            tie_policy=self.tie_policy,
            priority=self.priority,
        )

    def clean(self) -> None:
        """The engine's checks, which the prize form runs too (amounts, measure and scope)."""
        try:
            self.to_engine()
        except RuleError as exc:
            raise ValidationError(str(exc)) from exc


class PrizeNomination(models.Model):
    """Who a person named for a judged prize (best costume) in one pod or overall."""

    category = models.ForeignKey(
        PrizeCategory, on_delete=models.CASCADE, related_name="nominations"
    )
    scope_group = models.CharField(max_length=20, help_text='A pod number, or "overall".')
    winners = models.JSONField(help_text="Player ids (or pod numbers for a best-pod prize).")
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    entered_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["category", "scope_group"], name="one_nomination_per_group"
            )
        ]

    def __str__(self) -> str:
        return f"{self.category} ({self.scope_group}): {self.winners}"


class TravelingPass(models.Model):
    """The traveling item (the fuzzy die) changing hands; the last pass names the holder."""

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="passes")
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey("Round", null=True, blank=True, on_delete=models.SET_NULL)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "at", "id"]

    def __str__(self) -> str:
        return f"{self.player} holds the traveling item"


class LastBuncoMark(models.Model):
    """Staff naming a bunco as the night's last one, with why; the newest mark is in force.

    The site's own answer (the bunco recorded last) is never changed: a mark is a row of its
    own beside it, and a later mark replaces an earlier one without deleting it. The mark
    names a table's result and a player; it stands while that table's current result still
    credits the player with a bunco.
    """

    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, related_name="last_bunco_marks"
    )
    result = models.ForeignKey("scoring.TableResult", on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=300)
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    marked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "id"]

    def __str__(self) -> str:
        return f"{self.player} marked as the last bunco"


class PrizeAwardQuerySet(models.QuerySet):
    def current(self) -> "PrizeAwardQuerySet":
        """The awards in force: awarding again supersedes the earlier ones, never deletes them."""
        return self.filter(superseded_at__isnull=True)


class PrizeAward(models.Model):
    """One player's share of one place of a prize, as awarded; payouts refer to it.

    Awarding again (a card corrected before the first payment) stamps the earlier awards
    `superseded_at` and stores the new ones under the next `version`; every reader takes
    `current()`.
    """

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="awards")
    category = models.ForeignKey(PrizeCategory, on_delete=models.PROTECT, related_name="awards")
    scope_group = models.CharField(max_length=20)
    place = models.PositiveSmallIntegerField()
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="awards")
    amount_cents = models.PositiveIntegerField()
    value = models.IntegerField(null=True, blank=True)
    via_roll_off = models.BooleanField(default=False)
    # Why the place went where it did, in ids and numbers (`rules.prizes.note_data`), worded
    # with the players' names where it is shown (`presenters.prizes.stored_note_text`).
    why = models.JSONField(default=dict, blank=True)
    awarded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    awarded_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField(default=1)
    superseded_at = models.DateTimeField(null=True, blank=True)

    objects = PrizeAwardQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["category", "scope_group", "place", "player", "version"],
                name="unique_award",
            ),
            models.UniqueConstraint(
                fields=["category", "scope_group", "place", "player"],
                condition=Q(superseded_at__isnull=True),
                name="one_current_award",
            ),
        ]
        ordering = ["category__priority", "category_id", "scope_group", "place", "player__name"]

    def __str__(self) -> str:
        return f"{self.category} {self.scope_group} #{self.place}: {self.player}"

    @property
    def is_team(self) -> bool:
        """A share of a team (best pod) prize: one award per member of the winning pod."""
        return self.category.scope == "pod_group"

    @property
    def team_pod(self) -> int | None:
        """The winning pod of a team prize, kept in each member's share's note; None for a
        player's own prize and for awards stored before notes were kept as data."""
        if not self.is_team or not self.why or "as_written" in self.why:
            return None
        note, _ = note_from_data(self.why)
        return note.pod

    @property
    def where_won(self) -> str:
        """Where the prize was won, as every page and printout names it: "Pod 3", "Overall",
        or for a team prize "Pod 2 (team)" (a share of a dozen read "Overall" on its own)."""
        pod = self.team_pod
        if pod is None and self.is_team:
            return f"{where(self.scope_group)} (team)"
        return where(self.scope_group, pod)


class Payout(models.Model):
    """Cash handed over at the prize table. A mistake is voided with a reason, never deleted;
    the partial unique constraint makes a second live payment of one award impossible, even
    when two admins press Pay at the same moment."""

    award = models.ForeignKey(PrizeAward, on_delete=models.PROTECT, related_name="payouts")
    amount_cents = models.PositiveIntegerField()
    present_confirmed = models.BooleanField()
    id_checked = models.BooleanField()
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    paid_at = models.DateTimeField(auto_now_add=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    void_reason = models.CharField(max_length=300, blank=True)
    replayed = False  # True on the payment a repeated idempotency key answers with

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["award"], condition=Q(voided_at__isnull=True), name="one_live_payout"
            ),
            models.CheckConstraint(
                condition=Q(present_confirmed=True, id_checked=True), name="paid_in_person"
            ),
        ]
        ordering = ["paid_at", "id"]

    def __str__(self) -> str:
        return f"{self.award}: {amount(self.amount_cents)}"
