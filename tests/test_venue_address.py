"""The venue's own address: QR codes and the board's seat finder use SITE_URL, else the
address the organiser's browser used; an address only the laptop can open is warned about on
the printouts page and the board before anything is printed; `make venue` finds the laptop's
network address itself and serves the site there."""

from __future__ import annotations

import re
import socket
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.support.factories import drawn_stage
from tournaments.foundation.site import is_loopback, site_url
from tournaments.management.commands.print_packet import Command as PrintPacket
from tournaments.models import Printout
from tournaments.venue import lan_address, venue_environment

LAN = "192.168.1.20:8000"


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8000", True),
        ("http://localhost:8000", True),
        ("http://[::1]:8000", True),
        ("http://0.0.0.0:8000", True),
        ("http://127.4.5.6", True),
        ("http://192.168.1.20:8000", False),
        ("https://bunco.example.org", False),
    ],
)
def test_which_addresses_only_the_laptop_can_open(url, loopback):
    assert is_loopback(url) is loopback


def test_site_url_prefers_the_setting_then_the_browsers_address(rf, settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "", ["192.168.1.20"]
    assert site_url(rf.get("/", HTTP_HOST=LAN)) == f"http://{LAN}"
    settings.SITE_URL = "https://bunco.example.org/"
    assert site_url(rf.get("/", HTTP_HOST=LAN)) == "https://bunco.example.org"


# --- the pages --------------------------------------------------------------------------------


@pytest.fixture
def stage(db, tournament, organiser):
    return drawn_stage(tournament, organiser, players=12, start=False)


@pytest.fixture
def open_hosts(settings):
    settings.ALLOWED_HOSTS = ["*"]
    settings.SITE_URL = ""
    return settings


def test_printouts_warn_and_hold_qr_cards_on_a_loopback_address(
    open_hosts, stage, tournament, admin_user, client_for, django_capture_on_commit_callbacks
):
    admin = client_for(admin_user)
    url = reverse("printouts", args=[tournament.slug])
    page = admin.get(url, HTTP_HOST="127.0.0.1:8000").content.decode()
    assert 'id="loopback-warning"' in page and "cannot open http://127.0.0.1:8000" in page
    fields = {"kind": "score_cards", "stage": "qualifying", "pod": "", "pagesize": "letter"}
    refused = admin.post(url, fields, HTTP_HOST="127.0.0.1:8000")
    assert refused.status_code == 400
    assert "only this computer can reach" in refused.content.decode()
    assert not Printout.objects.exists()
    # A results sheet has no QR code: nothing to hold.
    results = admin.post(url, {**fields, "kind": "results"}, HTTP_HOST="127.0.0.1:8000")
    assert results.status_code == 302
    with django_capture_on_commit_callbacks():
        admin.post(url, {**fields, "print_anyway": "on"}, HTTP_HOST="127.0.0.1:8000")
    assert Printout.objects.get(kind="score_cards").base_url == "http://127.0.0.1:8000"


def test_printouts_on_the_venues_address_use_it_without_a_warning(
    open_hosts, stage, tournament, admin_user, client_for, django_capture_on_commit_callbacks
):
    admin = client_for(admin_user)
    url = reverse("printouts", args=[tournament.slug])
    page = admin.get(url, HTTP_HOST=LAN).content.decode()
    assert "loopback-warning" not in page and 'name="print_anyway"' not in page
    fields = {"kind": "packet", "stage": "qualifying", "pod": "", "pagesize": "letter"}
    with django_capture_on_commit_callbacks():
        assert admin.post(url, fields, HTTP_HOST=LAN).status_code == 302
    assert Printout.objects.get().base_url == f"http://{LAN}"
    open_hosts.SITE_URL = "https://bunco.example.org"
    page = admin.get(url, HTTP_HOST="127.0.0.1:8000").content.decode()
    assert "loopback-warning" not in page  # the setting is what the cards use


def test_the_board_shows_the_finder_address_and_warns_on_loopback(
    open_hosts, stage, tournament, client
):
    finder = reverse("seat-finder", args=[tournament.slug])
    board = reverse("board", args=[tournament.slug])
    body = client.get(board, HTTP_HOST="localhost:8000").content.decode()
    assert 'id="loopback-warning"' in body and f"http://localhost:8000{finder}" in body
    body = client.get(board, HTTP_HOST=LAN).content.decode()
    assert "loopback-warning" not in body
    shown = body.split('id="finder-url">')[1].split("</span><wbr></span>")[0]
    shown = re.sub(r"<[^>]+>", "", shown)
    assert shown == f"http://{LAN}{finder}"
    assert f'aria-label="QR code for http://{LAN}{finder}"' in body and "<svg" in body
    open_hosts.SITE_URL = "https://bunco.example.org"
    body = client.get(board, HTTP_HOST="localhost:8000").content.decode()
    assert f"https://bunco.example.org{finder}" in body and "loopback-warning" not in body


# --- the command line -------------------------------------------------------------------------


def test_print_packet_warns_when_its_qr_codes_would_open_only_the_laptop(settings, monkeypatch):
    settings.SITE_URL = ""
    command = PrintPacket(stdout=StringIO(), stderr=StringIO())
    monkeypatch.setattr("tournaments.management.commands.print_packet.lan_address", lambda: None)
    assert command.base_url("") == "http://localhost:8000"
    assert "players' phones cannot open these QR codes" in command.stderr._out.getvalue()
    command = PrintPacket(stdout=StringIO(), stderr=StringIO())
    monkeypatch.setattr(
        "tournaments.management.commands.print_packet.lan_address", lambda: "10.0.0.7"
    )
    assert command.base_url("") == "http://10.0.0.7:8000"
    assert "cannot open" not in command.stderr._out.getvalue()
    settings.SITE_URL = "https://bunco.example.org"
    assert PrintPacket(stderr=StringIO()).base_url("") == "https://bunco.example.org"


class FakeSocket:
    def __init__(self, address):
        self.address = address

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def connect(self, target):
        if self.address is None:
            raise OSError("network is unreachable")

    def getsockname(self):
        return (self.address, 40000)


def test_lan_address_asks_no_outside_service(monkeypatch):
    monkeypatch.setattr(socket, "socket", lambda *a: FakeSocket("192.168.0.42"))
    assert lan_address() == "192.168.0.42"
    # No route: the host name's addresses, skipping loopback ones.
    monkeypatch.setattr(socket, "socket", lambda *a: FakeSocket(None))
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda *a: [(2, 2, 17, "", ("127.0.1.1", 0)), (2, 2, 17, "", ("10.1.2.3", 0))],
    )
    assert lan_address() == "10.1.2.3"
    monkeypatch.setattr(socket, "socket", lambda *a: FakeSocket("127.0.0.1"))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a: [(2, 2, 17, "", ("127.0.1.1", 0))])
    assert lan_address() is None


def test_venue_environment_allows_the_address_and_sets_site_url():
    env = venue_environment("192.168.0.42", 8000, {"ALLOWED_HOSTS": "bunco.example.org"})
    assert env["ALLOWED_HOSTS"].split(",") == [
        "bunco.example.org",
        "192.168.0.42",
        "localhost",
        "127.0.0.1",
        "[::1]",
    ]
    assert env["SITE_URL"] == "http://192.168.0.42:8000"


@pytest.mark.django_db
def test_make_venue_prints_what_to_tell_staff(tournament, monkeypatch):
    monkeypatch.setattr("tournaments.management.commands.venue.lan_address", lambda: "192.168.0.42")
    out = StringIO()
    call_command("venue", "--dry-run", "--port", "8123", stdout=out)
    text = out.getvalue()
    assert "http://192.168.0.42:8123/accounts/login/" in text
    assert f"http://192.168.0.42:8123/t/{tournament.slug}/board/" in text
    assert f"http://192.168.0.42:8123/t/{tournament.slug}/seat/" in text
    assert "--bind 0.0.0.0:8123" in text and "SITE_URL=http://192.168.0.42:8123" in text


@pytest.mark.django_db
def test_make_venue_https_serves_with_the_certificate_and_secure_cookies(monkeypatch):
    monkeypatch.setattr("tournaments.management.commands.venue.lan_address", lambda: "192.168.0.42")
    out = StringIO()
    call_command("venue", "--dry-run", "--certfile", "c.pem", "--keyfile", "k.pem", stdout=out)
    text = out.getvalue()
    assert "https://192.168.0.42:8000/accounts/login/" in text
    assert "--certfile c.pem --keyfile k.pem" in text
    env = venue_environment("192.168.0.42", 8443, {}, https=True)
    assert env["SITE_URL"] == "https://192.168.0.42:8443"
    assert (env["BUNCO_HTTPS"], env["BUNCO_SSL_REDIRECT"]) == ("1", "0")
    with pytest.raises(CommandError, match="both"):
        call_command("venue", "--dry-run", "--certfile", "c.pem", stdout=out)
