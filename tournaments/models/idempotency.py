"""What a phone's writes leave behind: a receipt per idempotency key, and what each phone last
said about its queue.

A receipt is created in the same transaction as the write it answers for, so it exists if
and only if the write does; sending the key again finds it and answers with its outcome.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone


class WriteReceipt(models.Model):
    """One write made under an idempotency key: who made it, of which kind, and what it
    stored (`outcome`: the ids written and what the service answered)."""

    class Kind(models.TextChoices):
        RESULT = "result", "a table result"
        CARD_ENTRY = "card_entry", "a score card"
        CARD_CONFIRMATION = "card_confirmation", "a score card's confirmation"
        CHECK_IN = "check_in", "a check-in"
        PAYOUT = "payout", "a prize payment"

    key = models.UUIDField(unique=True)
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # What the key was made for (a table in a round, a player's card, an award), so a key
    # copied onto another form is refused instead of answered with the first form's outcome.
    subject = models.CharField(max_length=100)
    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, related_name="write_receipts"
    )
    # No database constraint: its check would take a key-share lock on the pod row when the
    # write commits, which a card entry otherwise never takes (services/locks.py).
    pod = models.ForeignKey(
        "Pod",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_constraint=False,
        related_name="write_receipts",
    )
    outcome = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["pod", "account", "-created_at"], name="receipt_pod_last")]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"


class PhoneSync(models.Model):
    """The last time a staff member's phone reached the server about a pod, and how many
    saves it said were still waiting in its queue then."""

    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    pod = models.ForeignKey("Pod", on_delete=models.CASCADE, related_name="phone_syncs")
    synced_at = models.DateTimeField(default=timezone.now)
    queued = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "pod"], name="one_phone_sync_per_pod")
        ]

    def __str__(self) -> str:
        return f"{self.account_id} on pod {self.pod_id}: {self.queued} queued"
