"""E-mail to players through a real SMTP server (aiosmtpd) started by the test.

Mail is queued in the deciding transaction and sent by the Celery task after commit (eager
here), so a rolled-back registration sends nothing.
"""

import datetime
import email
import socket

import pytest
from aiosmtpd.controller import Controller
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from tests.support.events import full_with_waitlist
from tests.support.factories import PlayerFactory
from tournaments.models import AuditEntry, EmailLog, Player
from tournaments.services import mail, waitlist
from tournaments.services.player_links import player_page_path, player_token
from tournaments.services.player_self import cancel_own_place
from tournaments.services.registration import Registrant, register_party

pytestmark = pytest.mark.django_db


class Inbox:
    def __init__(self):
        self.messages = []
        self.refuse = False

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        if self.refuse:
            return "451 4.3.0 Try again later"
        self.messages.append((envelope.rcpt_tos, email.message_from_bytes(envelope.content)))
        return "250 OK"

    def to(self, address):
        return [m for rcpt, m in self.messages if address in rcpt]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    inbox.controller = controller
    yield inbox
    controller.stop()


@pytest.fixture
def mail_on(settings, smtp, eager_tasks):
    settings.EMAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = smtp.controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_TIMEOUT = 5
    settings.SITE_URL = "http://bunco.example"
    return smtp


def text_of(message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode()
    return ""


def attachments(message) -> list[str]:
    return [p.get_content_type() for p in message.walk() if p.get_filename()]


def test_party_confirmation_reaches_the_booker_with_codes_links_and_qr(
    mail_on, tournament, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        ann, bea, cid = register_party(
            tournament,
            [Registrant("Ann", "ann@example.org"), Registrant("Bea"), Registrant("Cid")],
        )
    (message,) = mail_on.to("ann@example.org")
    body = text_of(message)
    assert message["Subject"] == f"Your registration for {tournament.name}"
    for member in (ann, bea, cid):
        assert member.code in body
        assert "http://bunco.example" + player_page_path(member, tournament.slug) in body
    assert attachments(message) == ["image/png"]
    assert len(mail_on.messages) == 1
    entry = EmailLog.objects.get()
    assert entry.status == "sent" and entry.to == "ann@example.org" and entry.attempts == 1


def test_email_each_member(mail_on, tournament, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        register_party(
            tournament,
            [Registrant("Ann", "ann@example.org"), Registrant("Bea", "bea@example.org")],
            email_each=True,
        )
    assert len(mail_on.to("ann@example.org")) == len(mail_on.to("bea@example.org")) == 1
    assert "Bea" not in text_of(mail_on.to("ann@example.org")[0]).split("Own page")[0][20:]


def test_cancellation_receipt_offer_and_promotion(
    mail_on, client, tournament, django_capture_on_commit_callbacks
):
    tournament.capacity = 4
    tournament.offer_hours = 12
    tournament.save()
    playing = PlayerFactory.create_batch(4, tournament=tournament)
    with django_capture_on_commit_callbacks(execute=True):
        (wendy,) = register_party(
            tournament, [Registrant("Wendy", "wendy@example.org")], waitlist_ok=True
        )
    assert "on the waitlist" in text_of(mail_on.to("wendy@example.org")[0])
    with django_capture_on_commit_callbacks(execute=True):
        cancel_own_place(playing[0])
    (receipt,) = mail_on.to(playing[0].email)
    assert "is cancelled" in receipt["Subject"] and playing[0].code in text_of(receipt)
    # E-mail on: the place is held for Wendy, who is e-mailed a link to accept it in time.
    wendy.refresh_from_db()
    assert wendy.status == "waitlisted" and wendy.offer_expires_at is not None
    offer = mail_on.to("wendy@example.org")[1]
    link = "http://bunco.example" + player_page_path(wendy, tournament.slug)
    assert "accept it in time" in offer["Subject"] and link in text_of(offer)
    # The place is not given to a newcomer meanwhile.
    with django_capture_on_commit_callbacks(execute=True):
        (late,) = register_party(
            tournament, [Registrant("Late", "late@example.org")], waitlist_ok=True
        )
    assert late.status == "waitlisted"
    page = client.get(player_page_path(wendy, tournament.slug)).content.decode()
    assert "A place is offered to you" in page
    accept = reverse("player-accept", args=[tournament.slug, wendy.code, player_token(wendy)])
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(accept).status_code == 302
    wendy.refresh_from_db()
    assert wendy.status == "registered" and wendy.offer_expires_at is None
    promotion = mail_on.to("wendy@example.org")[2]
    body = text_of(promotion)
    assert promotion["Subject"] == f"A place for you at {tournament.name}"
    assert "Your place is confirmed" in body and wendy.code in body and link in body
    assert AuditEntry.objects.filter(action="player.promoted", target_id=str(wendy.pk)).count() == 1


def test_a_lapsed_offer_goes_to_the_next_in_line(
    mail_on, client, tournament, django_capture_on_commit_callbacks
):
    playing, (first, second) = full_with_waitlist(tournament, "first", "second")
    with django_capture_on_commit_callbacks(execute=True):
        cancel_own_place(playing[0])
    Player.objects.filter(pk=first.pk).update(
        offer_expires_at=timezone.now() - datetime.timedelta(minutes=1)
    )
    accept = reverse("player-accept", args=[tournament.slug, first.code, player_token(first)])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(accept, follow=True)
    assert "the offer has lapsed" in response.content.decode()
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == "waitlisted" and first.offer_expires_at is None
    assert waitlist.position_of(first) == 2  # back of the line
    assert second.offer_expires_at is not None
    assert "accept it in time" in mail_on.to("second@example.org")[-1]["Subject"]
    # The beat sweep does the same without anyone asking.
    Player.objects.filter(pk=second.pk).update(
        offer_expires_at=timezone.now() - datetime.timedelta(minutes=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert waitlist.sweep_offers() == 1
    first.refresh_from_db()
    assert first.offer_expires_at is not None


def test_nothing_is_sent_when_the_transaction_rolls_back(
    mail_on, tournament, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        register_party(tournament, [Registrant("Ann", "ann@example.org")])
        raise RuntimeError("the page failed after registering")
    assert callbacks == []
    assert mail_on.messages == [] and not EmailLog.objects.exists()
    assert not Player.objects.exists()


def test_a_refusing_server_is_retried_then_marked_failed(
    mail_on, tournament, django_capture_on_commit_callbacks
):
    mail_on.refuse = True
    with django_capture_on_commit_callbacks(execute=True):
        register_party(tournament, [Registrant("Ann", "ann@example.org")])
    entry = EmailLog.objects.get()
    # Eager (no worker): one try, then failed, and the registration stands.
    assert entry.status == "failed" and entry.attempts == 1 and entry.error
    assert Player.objects.filter(name="Ann").exists()
    # A worker's retry once the server is back sends the same row, once.
    mail_on.refuse = False
    EmailLog.objects.filter(pk=entry.pk).update(status="queued")
    assert mail.deliver(entry.pk) == "sent"
    assert mail.deliver(entry.pk) == "sent"
    assert len(mail_on.to("ann@example.org")) == 1
    entry.refresh_from_db()
    assert entry.attempts == 2 and entry.error == ""


def test_a_duplicate_address_gets_its_code_by_email_only(
    mail_on, client, tournament, django_capture_on_commit_callbacks
):
    carol = PlayerFactory(tournament=tournament, email="carol@example.org")
    data = {"name": "Someone", "email": "CAROL@example.org"}
    response = client.post(reverse("register", args=[tournament.slug]), data)
    body = response.content.decode()
    assert "already registered" in body and "E-mail the code to that address" in body
    assert carol.code not in body
    url = reverse("code-again", args=[tournament.slug])
    with django_capture_on_commit_callbacks(execute=True):
        known = client.post(url, {"email": "carol@example.org"}, follow=True)
        unknown = client.post(url, {"email": "nobody@example.org"}, follow=True)
    assert carol.code not in known.content.decode()
    answer = "If that address is registered, its code is on its way"
    assert answer in known.content.decode() and answer in unknown.content.decode()
    (message,) = mail_on.messages
    assert message[0] == ["carol@example.org"] and carol.code in text_of(message[1])
    assert AuditEntry.objects.filter(action="email.code_again").count() == 1


def test_bad_code_again_input_changes_nothing(mail_on, client, tournament):
    for bad in ({}, {"email": "not-mail"}):
        response = client.post(reverse("code-again", args=[tournament.slug]), bad, follow=True)
        assert "Give the e-mail address" in response.content.decode()
    assert not EmailLog.objects.exists()


def test_email_log_shows_addresses_to_the_organiser_only(
    mail_on, client_for, tournament, organiser, admin_user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        register_party(tournament, [Registrant("Ann", "ann@example.org")])
    url = reverse("email-log", args=[tournament.slug])
    body = client_for(organiser).get(url).content.decode()
    assert "ann@example.org" in body and "Sent" in body
    assert client_for(admin_user).get(url).status_code == 403


def test_without_email_url_nothing_is_queued_and_organisers_are_told(
    client_for, tournament, organiser, settings
):
    settings.EMAIL_ENABLED = False
    register_party(tournament, [Registrant("Ann", "ann@example.org")])
    assert not EmailLog.objects.exists()
    body = client_for(organiser).get(reverse("tournament-dashboard", args=[tournament.slug]))
    assert "E-mails are off" in body.content.decode()


def test_email_url_is_parsed_into_settings():
    import dj_email_url

    parsed = dj_email_url.parse("smtp://user:secret@mail.example:587/?tls=True")
    assert parsed["EMAIL_HOST"] == "mail.example" and parsed["EMAIL_PORT"] == 587
    assert parsed["EMAIL_USE_TLS"] is True and parsed["EMAIL_HOST_PASSWORD"] == "secret"


def test_an_offer_in_its_last_stretch_is_reminded_of_once_and_a_lapse_is_told(
    mail_on, tournament, django_capture_on_commit_callbacks
):
    tournament.offer_hours = 8
    tournament.save()
    playing, (first, second) = full_with_waitlist(tournament, "first", "second")
    with django_capture_on_commit_callbacks(execute=True):
        cancel_own_place(playing[0])
    with django_capture_on_commit_callbacks(execute=True):
        assert waitlist.remind_offers() == 0  # 8 hours left of 8: too early
    # Two hours left (a quarter of the eight): one reminder, however often the sweep runs.
    Player.objects.filter(pk=first.pk).update(
        offer_expires_at=timezone.now() + datetime.timedelta(hours=2)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert waitlist.remind_offers() == 1
        assert waitlist.remind_offers() == 0
    (reminder,) = [
        m
        for m in mail_on.to("first@example.org")
        if "lapses soon" in " ".join(m["Subject"].split())
    ]
    assert first.code in text_of(reminder)
    assert "http://bunco.example" + player_page_path(first, tournament.slug) in text_of(reminder)
    assert AuditEntry.objects.filter(action="waitlist.offer_reminded").count() == 1
    # It lapses: the player is told they are back at the end of the line.
    Player.objects.filter(pk=first.pk).update(
        offer_expires_at=timezone.now() - datetime.timedelta(minutes=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert waitlist.sweep_offers() == 1
    lapsed = mail_on.to("first@example.org")[-1]
    assert "went to the next in line" in " ".join(str(lapsed["Subject"]).split())
    assert "now at the end of the line" in " ".join(text_of(lapsed).split())
    # The next offer made to them is a new offer: it gets its own reminder in its turn.
    second.refresh_from_db()
    assert second.offer_expires_at is not None


def test_no_reminder_without_email(settings, tournament, django_capture_on_commit_callbacks):
    settings.EMAIL_ENABLED = False
    playing, (first,) = full_with_waitlist(tournament, "first")
    Player.objects.filter(pk=first.pk).update(
        offer_expires_at=timezone.now() + datetime.timedelta(minutes=30)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert waitlist.remind_offers() == 0
    assert not EmailLog.objects.exists()
