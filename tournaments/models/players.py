import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from ..foundation import search

# No 0/O, 1/I/L: codes are read aloud at the door and typed on phones.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_registration_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# Registered and checked in: who is drawn into pods, counted as arrived and owes a fee.
PLAYING = Q(status="registered", checked_in_at__isnull=False)


class PlayerQuerySet(models.QuerySet):
    """`playing()` is the one rule for who plays; the bulk paths that skip `Player.save`
    (bulk_create, bulk_update and update()) keep the folded search columns
    (foundation/search.py) true."""

    def playing(self) -> "PlayerQuerySet":
        return self.filter(PLAYING)

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for player in objs:
            search.fill(player)
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs, fields, *args, **kwargs):
        objs, fields = list(objs), list(fields)
        if search.SOURCES.intersection(fields):
            for player in objs:
                search.fill(player)
            fields += [c for c in search.COLUMNS if c not in fields]
        return super().bulk_update(objs, fields, *args, **kwargs)

    def update(self, **kwargs) -> int:
        # bulk_update ends in update() with the columns already computed: nothing to redo.
        if search.SOURCES.isdisjoint(kwargs) or set(search.COLUMNS) <= kwargs.keys():
            return super().update(**kwargs)
        pks = list(self.values_list("pk", flat=True))
        done = super().update(**kwargs)
        fresh = list(self.model._base_manager.filter(pk__in=pks).only("pk", *search.SOURCES))
        for player in fresh:
            search.fill(player)
        self.model._base_manager.bulk_update(fresh, list(search.COLUMNS))
        return done


class Player(models.Model):
    """A registration: one person playing in one tournament."""

    class Status(models.TextChoices):
        REGISTERED = "registered", "Registered"
        WAITLISTED = "waitlisted", "On the waitlist"
        WITHDRAWN = "withdrawn", "Withdrawn"

    class Source(models.TextChoices):
        WEB = "web", "Online registration"
        IMPORT = "import", "CSV import"
        WALK_IN = "walk_in", "Walk-in"
        ORGANISER = "organiser", "Added by organiser"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=100)
    email = models.EmailField(blank=True, help_text="Stored lower-case; one per tournament.")
    phone = models.CharField(max_length=30, blank=True)
    group_name = models.CharField("group or team name", max_length=100, blank=True)
    costume_contest = models.BooleanField("enters the costume contest", default=False)
    code = models.CharField(max_length=CODE_LENGTH, default=new_registration_code)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.REGISTERED)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.WEB)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    checked_in_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    party = models.ForeignKey(
        "Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="members"
    )
    waitlist_position = models.PositiveIntegerField(
        null=True, blank=True, help_text="Order on the waitlist, lowest first."
    )
    promoted_at = models.DateTimeField(
        null=True, blank=True, help_text="When a freed place went to them from the waitlist."
    )
    offer_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="A freed place is held for them until then (e-mail on)."
    )
    registered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The public form's key, on the one who booked: the same drawn form sent again (a double
    # tap on a slow network, the back button) finds this registration instead of being told
    # the e-mail is taken, and only that browser holds the key.
    form_key = models.UUIDField(null=True, blank=True, editable=False)
    # Folded for the one player search (foundation/search.py); never typed, always derived.
    search_name = models.TextField(default="", editable=False)
    search_text = models.TextField(default="", editable=False)

    objects = PlayerQuerySet.as_manager()

    class Meta:
        # Bulk writes through `_base_manager` (the tournament import) fill the columns too.
        base_manager_name = "objects"
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="unique_player_code"),
            models.UniqueConstraint(fields=["tournament", "form_key"], name="one_form_one_booking"),
            models.UniqueConstraint(
                fields=["tournament", "email"],
                condition=~Q(email="") & Q(status__in=["registered", "waitlisted"]),
                name="unique_active_email",
                violation_error_message="This e-mail address is already registered.",
            ),
        ]
        indexes = [models.Index(fields=["tournament", "status", "name"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"

    def save(self, *args, **kwargs) -> None:
        self.email = self.email.strip().lower()
        self.name = " ".join(self.name.split())
        search.fill(self)
        fields = kwargs.get("update_fields")
        if fields is not None and search.SOURCES.intersection(fields):
            kwargs["update_fields"] = {*fields, *search.COLUMNS}
        super().save(*args, **kwargs)

    @property
    def checked_in(self) -> bool:
        return self.checked_in_at is not None


class Party(models.Model):
    """Players one person registered together in one form (friends, a table of four).

    The booker's e-mail is the party's: with `email_each` off, only it hears from the site.
    """

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="parties")
    name = models.CharField(max_length=100)
    email = models.EmailField()
    email_each = models.BooleanField("e-mail each member", default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "parties"

    def __str__(self) -> str:
        return self.name


class CardProblem(models.Model):
    """A player's "problem with my card?" note, shown to the pod's staff on its cards page."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="card_problems")
    pod = models.ForeignKey("Pod", on_delete=models.CASCADE, related_name="card_problems")
    message = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.player.name}: {self.message[:40]}"
