"""E-mail to players: queued in the deciding transaction, sent by a Celery task after commit.

`queue` writes an EmailLog row and asks for the task with `transaction.on_commit`, so a
registration that rolls back leaves no row and sends nothing, and the request never waits
on the mail server. `deliver` sends a row once (a task run twice finds it sent). Without
EMAIL_URL nothing is queued: the site works as before and the organiser's pages say so.
"""

from __future__ import annotations

import io
import logging
from functools import partial

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from tournaments.foundation.site import site_url

from ..models import EmailLog, Player
from ..printouts.qr import qr_matrix
from .player_links import player_page_path

log = logging.getLogger(__name__)

SUBJECTS = {
    EmailLog.Kind.CONFIRMATION: "Your registration for {t}",
    EmailLog.Kind.OFFER: "A place is offered to you at {t}: accept it in time",
    EmailLog.Kind.OFFER_REMINDER: "Reminder: the place offered to you at {t} lapses soon",
    EmailLog.Kind.OFFER_LAPSED: "The place offered to you at {t} went to the next in line",
    EmailLog.Kind.PROMOTION: "A place for you at {t}",
    EmailLog.Kind.CANCELLATION: "Your registration for {t} is cancelled",
    EmailLog.Kind.CODE_AGAIN: "Your registration code for {t}",
}


def enabled() -> bool:
    return bool(getattr(settings, "EMAIL_ENABLED", False))


def address_of(player: Player) -> str:
    """The player's own address, or their party's (the booker's) when they gave none."""
    if player.email:
        return player.email
    return player.party.email if player.party_id else ""


def page_url(player: Player, base_url: str = "") -> str:
    return (base_url or site_url()) + player_page_path(player, player.tournament.slug)


def queue(
    player: Player, kind: str, *, members: list[Player] | None = None, base_url: str = ""
) -> EmailLog | None:
    """Writes the e-mail for `player` (and, for a booker, their party `members`) and sends it
    after commit; None when e-mail is off or nobody has an address."""
    to = address_of(player)
    if not enabled() or not to:
        return None
    members = members or [player]
    context = {
        "tournament": player.tournament,
        "player": player,
        "members": [(m, page_url(m, base_url)) for m in members],
        "page_url": page_url(player, base_url),
    }
    entry = EmailLog.objects.create(
        tournament=player.tournament,
        player=player,
        kind=kind,
        to=to,
        subject=SUBJECTS[kind].format(t=player.tournament.name)[:200],
        body=render_to_string(f"email/{kind}.txt", context),
        qr_url=context["page_url"] if kind != EmailLog.Kind.CANCELLATION else "",
    )
    transaction.on_commit(partial(_ask_worker, entry.pk))
    return entry


def _ask_worker(entry_id: int) -> None:
    from ..tasks import send_email

    try:
        send_email.delay(entry_id)
    except Exception:  # the queue refused: the row stays "queued" for the organiser to see
        log.exception("Could not queue e-mail %s", entry_id)


def qr_png(url: str, scale: int = 6) -> bytes:
    """A black-on-white PNG of the QR code, with its quiet zone, for the e-mail."""
    from PIL import Image

    rows = qr_matrix(url)
    size = len(rows) + 8
    image = Image.new("1", (size, size), 1)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                image.putpixel((x + 4, y + 4), 0)
    image = image.resize((size * scale, size * scale), Image.NEAREST)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def deliver(entry_id: int) -> str:
    """Sends one queued e-mail; an error is recorded (and kept) and raised so the task
    retries it."""
    failure = None
    with transaction.atomic():
        entry = EmailLog.objects.select_for_update().get(pk=entry_id)
        if entry.status == EmailLog.Status.SENT:
            return entry.status
        entry.attempts += 1
        message = EmailMessage(entry.subject, entry.body, settings.DEFAULT_FROM_EMAIL, [entry.to])
        if entry.qr_url:
            message.attach("my-bunco-page.png", qr_png(entry.qr_url), "image/png")
        try:
            message.send()
        except Exception as exc:  # recorded, then raised for the task to retry or give up
            failure = exc
            entry.error = f"{type(exc).__name__}: {exc}"[:300]
        else:
            entry.status = EmailLog.Status.SENT
            entry.sent_at = timezone.now()
            entry.error = ""
        entry.save(update_fields=["attempts", "status", "sent_at", "error"])
    if failure is not None:
        raise failure
    return entry.status


def give_up(entry_id: int) -> None:
    EmailLog.objects.filter(pk=entry_id).exclude(status=EmailLog.Status.SENT).update(
        status=EmailLog.Status.FAILED
    )
