import datetime
import re
import secrets

from django.conf import settings
from django.db import models, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

KEEP_FOR = datetime.timedelta(hours=24)
FOLDER = "printouts"


def new_file_name() -> str:
    """Where a printout's PDF goes under MEDIA_ROOT: random, never derived from an id."""
    return f"{FOLDER}/{secrets.token_urlsafe(24)}.pdf"


# Every name `new_file_name` makes, and nothing else (an import checks names against it).
FILE_NAME = re.compile(rf"{FOLDER}/[A-Za-z0-9_-]{{32}}\.pdf")


def default_expiry() -> datetime.datetime:
    return timezone.now() + KEEP_FOR


class Printout(models.Model):
    """One PDF asked for by an admin, made by a Celery task, kept for a day.

    The task reads nothing but this row's primary key; the page polls this row (not the
    Celery result backend) so progress shows the same with a worker or in-process. The file
    name is reserved on the row before the task renders, so a task run twice (a worker lost
    mid-task, then the message redelivered) replaces one file instead of leaving two.
    """

    class Kind(models.TextChoices):
        SCORE_CARDS = "score_cards", "Score cards"
        TALLY_SHEETS = "tally_sheets", "Table tally sheets"
        SEATING_CHARTS = "seating_charts", "Seating charts & movement guide"
        PACKET = "packet", "Pre-event packet (cards, tallies, charts)"
        RESULTS = "results", "Results"
        PAYOUT_SHEET = "payout_sheet", "Payout sheet"
        CHARITY_SUMMARY = "charity_summary", "Charity summary (the cash book)"

    class PageSize(models.TextChoices):
        LETTER = "letter", "Letter"
        A4 = "A4", "A4"

    class Status(models.TextChoices):
        QUEUED = "queued", "Waiting for the printer queue"
        RUNNING = "running", "Rendering"
        DONE = "done", "Ready"
        FAILED = "failed", "Failed"

    tournament = models.ForeignKey("Tournament", on_delete=models.CASCADE, related_name="printouts")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    pagesize = models.CharField(max_length=10, choices=PageSize.choices, default=PageSize.LETTER)
    stage = models.ForeignKey(
        "Stage", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    pod = models.ForeignKey(
        "Pod", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    base_url = models.CharField(
        max_length=200, blank=True, help_text="The site's address the score cards' QR codes use."
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="0 to 100.")
    error = models.TextField(blank=True)
    file = models.FileField(upload_to=FOLDER, max_length=200, blank=True)
    pages = models.PositiveIntegerField(null=True, blank=True)
    bytes = models.PositiveIntegerField(null=True, blank=True)
    task_id = models.CharField(max_length=60, blank=True)
    sent_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the print queue last took it: a row queued long after is sent again.",
    )
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Task runs started.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(default=default_expiry)

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [
            models.Index(fields=["tournament", "-requested_at"]),
            models.Index(fields=["expires_at"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(progress__lte=100), name="printout_progress_percent"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.tournament} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def expired(self) -> bool:
        return self.expires_at <= timezone.now()

    @property
    def downloadable(self) -> bool:
        return self.status == self.Status.DONE and bool(self.file.name) and not self.expired


@receiver(post_delete, sender=Printout)
def _delete_file(sender, instance: Printout, **kwargs) -> None:
    """A deleted row (the clean-up, or its tournament deleted) takes its file along, once the
    deletion is committed: a rolled-back delete keeps both."""
    name = instance.file.name
    if name:
        storage = instance.file.storage
        transaction.on_commit(lambda: storage.delete(name), robust=True)
