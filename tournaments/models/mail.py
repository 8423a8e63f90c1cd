from django.db import models


class EmailLog(models.Model):
    """One e-mail to a player: what, to whom, and whether the mail server took it.

    Written in the transaction that decided to send it and delivered by a Celery task after
    commit, so a rolled-back registration leaves no row and sends nothing. Addresses are
    shown to the organiser only (the e-mail log page needs registrations.manage).
    """

    class Kind(models.TextChoices):
        CONFIRMATION = "confirmation", "Registration confirmation"
        OFFER = "offer", "A freed place offered from the waitlist"
        OFFER_REMINDER = "offer_reminder", "Reminder: the offered place lapses soon"
        OFFER_LAPSED = "offer_lapsed", "The offered place lapsed"
        PROMOTION = "promotion", "Place confirmed from the waitlist"
        CANCELLATION = "cancellation", "Cancellation receipt"
        CODE_AGAIN = "code_again", "Registration code again"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="emails")
    player = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="emails"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    to = models.EmailField()
    subject = models.CharField(max_length=200)
    body = models.TextField()
    qr_url = models.CharField(max_length=300, blank=True, help_text="Attached as a QR image.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.to} ({self.status})"
