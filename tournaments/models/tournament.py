from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from tournaments.rules.draws import fingerprint, new_secret


class Tournament(models.Model):
    """One charity event, from registration to the prize table."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60, unique=True)
    charity = models.CharField(max_length=120)
    date = models.DateField()
    venue = models.CharField(max_length=200)
    entry_fee = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        default=Decimal("0.00"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("10000"))],
    )
    capacity = models.PositiveIntegerField(
        validators=[MinValueValidator(4), MaxValueValidator(5000)],
        help_text="The most players who may register.",
    )
    qualifying_sets = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    wins_places = models.PositiveSmallIntegerField(
        "advance for most wins, per pod",
        default=1,
        validators=[MinValueValidator(0), MaxValueValidator(4)],
    )
    buncos_places = models.PositiveSmallIntegerField(
        "advance for most buncos, per pod",
        default=1,
        validators=[MinValueValidator(0), MaxValueValidator(4)],
    )
    top_both = models.CharField(
        "when one player tops both lists",
        max_length=20,
        choices=[
            ("next_in_line", "The buncos seat goes to the next in buncos"),
            ("empty_seat", "They take one seat; the other stays empty"),
        ],
        default="next_in_line",
    )
    one_prize_per_player = models.BooleanField(
        default=False, help_text="A player who won a prize is passed over by later ones."
    )
    prize_share_percent = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="The prize list warns above this share of the entry fees taken.",
    )
    semi_final_sets = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(3)]
    )
    preset = models.ForeignKey("RulePreset", on_delete=models.PROTECT, related_name="tournaments")
    registration_open = models.BooleanField(default=False)
    registration_closes_at = models.DateTimeField(
        "registration closes at",
        null=True,
        blank=True,
        help_text="Optional. Online registration closes by itself at this time.",
    )
    party_size_max = models.PositiveSmallIntegerField(
        "most players in one party",
        default=6,
        validators=[MinValueValidator(1), MaxValueValidator(20)],
        help_text="One person may register up to this many players in one form (1: no parties).",
    )
    offer_hours = models.PositiveSmallIntegerField(
        "hours to accept a freed place",
        default=24,
        validators=[MinValueValidator(1), MaxValueValidator(168)],
        help_text="With e-mail on, a freed place is offered to the first waitlisted player "
        "for this long, then to the next.",
    )
    party_fit = models.CharField(
        "a party that does not fit",
        max_length=20,
        choices=[
            ("all_or_none", "All or none: the whole party goes on the waitlist"),
            ("as_many", "As many as fit: the rest go on the waitlist"),
        ],
        default="all_or_none",
    )
    check_in_open = models.BooleanField(default=False)
    standings_public = models.BooleanField(
        default=False, help_text="Show the overall standings on the public board and pages."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    draw_secret = models.CharField(
        max_length=64,
        default=new_secret,
        editable=False,
        help_text="Every draw code is derived from it; only its fingerprint is public "
        "until the draws are over (see tournaments/draws.py).",
    )
    draws_published_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When the organiser published the secret."
    )

    class Meta:
        ordering = ["-date", "name"]
        permissions = [("create_tournament", "May create tournaments (is an organiser)")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament-dashboard", args=[self.slug])

    @property
    def draw_fingerprint(self) -> str:
        return fingerprint(self.draw_secret)
