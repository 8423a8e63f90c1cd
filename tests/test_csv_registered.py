"""CSV import: a row for someone already registered (same e-mail, or same name and phone when
the row has no e-mail) stops the import with the offer to skip, or is skipped and reported."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.support.factories import PlayerFactory
from tournaments.models import AuditEntry, Player
from tournaments.rules.duplicates import already_registered

FILE = (
    "name,email,phone\n"
    "Carol Hill,CAROL@example.org,\n"  # 2: same e-mail
    "Dee  Door,,(555) 010-0199\n"  # 3: same name and phone, written differently
    "Dee Door,,555-0100\n"  # 4: same name, another phone: a namesake
    "Sam Roll,sam@example.org,\n"  # 5: new
)


def post(client, tournament, **extra):
    return client.post(
        reverse("player-import", args=[tournament.slug]),
        {"file": SimpleUploadedFile("p.csv", FILE.encode(), content_type="text/csv"), **extra},
        follow=True,
    )


def test_matching_is_by_email_else_by_name_and_phone():
    found = already_registered(
        [
            (2, "A", "a@x.org", ""),
            (3, "Bo  Bee", "", "555.1"),
            (4, "Bo Bee", "", ""),
            (5, "C", "", "9"),
        ],
        [("Someone", "A@X.org", ""), ("bo bee", "", "(555) 1")],
    )
    assert sorted(found) == [2, 3]
    assert "a@x.org is already registered" in found[2]


@pytest.fixture
def registered(tournament):
    PlayerFactory(tournament=tournament, name="Carol Hill", email="carol@example.org")
    PlayerFactory(tournament=tournament, name="Dee Door", email="", phone="555-010-0199")


@pytest.mark.django_db
def test_rows_already_registered_stop_the_import_and_offer_to_skip(
    tournament, organiser, client_for, registered
):
    before = (Player.objects.count(), AuditEntry.objects.count())
    response = post(client_for(organiser), tournament)
    lines = [(e.line, e.message) for e in response.context["errors"]]
    assert lines == [
        (2, "carol@example.org is already registered for this tournament"),
        (3, "Dee Door with phone (555) 010-0199 is already registered for this tournament"),
    ]
    assert 'id="offer-skip"' in response.content.decode()
    assert (Player.objects.count(), AuditEntry.objects.count()) == before


@pytest.mark.django_db
def test_skipping_imports_the_others_once_and_reports_the_skipped(
    tournament, organiser, client_for, registered
):
    client = client_for(organiser)
    response = post(client, tournament, skip_registered="on")
    page = response.content.decode()
    assert "Imported 2 players." in page and "2 rows already registered were skipped" in page
    assert "Line 2: carol@example.org is already registered" in page
    assert Player.objects.filter(name="Dee Door").count() == 2  # the namesake came in
    assert Player.objects.filter(email="carol@example.org").count() == 1
    entry = AuditEntry.objects.get(action="player.imported")
    assert entry.data["skipped_registered"] == [2, 3]
    # The same file again: everyone is there now, nothing is imported twice.
    again = post(client, tournament, skip_registered="on")
    assert "Every player in the file is already registered" in again.content.decode()
    assert Player.objects.count() == 4  # two registered before, two imported once
