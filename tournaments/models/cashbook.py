"""The charity's cash book: entries that are never edited, the night's cash boxes, and the
organiser's prize-pool floor. The arithmetic is in `tournaments.rules.cashbook` (no ORM)."""

import re
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from tournaments.rules import cashbook as book

from ..foundation.text import money

RECEIPTS = "receipts"
# Every name `new_receipt_name` makes, and nothing else.
RECEIPT_NAME = re.compile(rf"{RECEIPTS}/[A-Za-z0-9_-]{{32}}\.(jpg|png|pdf)")


def new_receipt_name(extension: str) -> str:
    """Where a receipt goes under MEDIA_ROOT: random, so no one can guess another's."""
    return f"{RECEIPTS}/{secrets.token_urlsafe(24)}.{extension}"


class Immutable(Exception):
    """An entry was about to be changed or deleted; the books only ever grow."""


class LedgerEntry(models.Model):
    """One movement of money, in cents; a mistake is reversed by a new entry, never edited."""

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="ledger")
    kind = models.CharField(max_length=12, choices=[(k, k.replace("_", "-")) for k in book.KINDS])
    method = models.CharField(max_length=8, choices=list(book.METHOD_LABELS.items()))
    amount_cents = models.PositiveIntegerField()
    box = models.CharField(max_length=8, blank=True, choices=list(book.BOX_LABELS.items()))
    note = models.CharField(
        max_length=300, blank=True, help_text="Why comped or reversed; what an expense was."
    )
    donor = models.CharField(max_length=100, blank=True)
    player = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger"
    )
    award = models.ForeignKey(
        "PrizeAward", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger"
    )
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )
    receipt = models.FileField(upload_to=RECEIPTS, blank=True, max_length=100)
    receipt_type = models.CharField(max_length=40, blank=True)
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["recorded_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_cents__lte=book.MAX_CENTS), name="ledger_amount_sane"
            ),
            models.CheckConstraint(
                condition=Q(kind="reversal", reverses__isnull=False)
                | (~Q(kind="reversal") & Q(reverses__isnull=True)),
                name="ledger_reversal_names_entry",
            ),
            models.CheckConstraint(
                # A comp is a free fee; undoing one (the player pays after all) is a free
                # reversal, which keeps the comp's method so the book says what was undone.
                condition=~Q(method="comped") | Q(kind__in=("fee", "reversal"), amount_cents=0),
                name="ledger_comped_is_a_free_fee",
            ),
        ]
        indexes = [models.Index(fields=["tournament", "kind"])]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.kind} {money(self.amount_cents)} ({self.method})"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise Immutable("A ledger entry is never changed; reverse it instead.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise Immutable("A ledger entry is never deleted; reverse it instead.")

    def to_engine(self) -> book.Entry:
        return book.Entry(
            id=self.pk,
            kind=self.kind,
            method=self.method,
            amount_cents=self.amount_cents,
            box=self.box,
            reverses=self.reverses_id,
            player=self.player_id,
        )


class CashBox(models.Model):
    """A box of cash on the night (the desk, the prize table); closed once it is counted."""

    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, related_name="cash_boxes"
    )
    key = models.CharField(max_length=8, choices=list(book.BOX_LABELS.items()))
    float_cents = models.PositiveIntegerField(
        "opening float", default=0, help_text="Cash put in the box before the doors opened."
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    counts = models.JSONField(
        default=dict, blank=True, help_text="Bills and coins counted: {cents: how many}."
    )
    counted_cents = models.IntegerField(null=True, blank=True)
    expected_cents = models.IntegerField(null=True, blank=True)
    difference_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["tournament", "key"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="one_box_per_key"),
        ]
        verbose_name_plural = "cash boxes"

    def __str__(self) -> str:
        return book.BOX_LABELS.get(self.key, self.key)

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    @property
    def difference_cents(self) -> int | None:
        if self.counted_cents is None or self.expected_cents is None:
            return None
        return self.counted_cents - self.expected_cents


class CashBookSettings(models.Model):
    """The organiser's floor for the charity's share, and whether the board shows the total."""

    tournament = models.OneToOneField(
        "Tournament", on_delete=models.CASCADE, related_name="cashbook_settings"
    )
    floor_kind = models.CharField(
        max_length=8,
        choices=[(book.PERCENT, "A percentage of money in"), (book.AMOUNT, "An amount")],
        default=book.PERCENT,
    )
    floor_value = models.PositiveIntegerField(
        default=0, help_text="A whole percentage (0 to 100), or an amount in cents."
    )
    board_shows_raised = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "cash book settings"

    def __str__(self) -> str:
        return f"Cash book settings of {self.tournament_id}"

    @property
    def floor(self) -> book.Floor:
        return book.Floor(self.floor_kind, self.floor_value)
