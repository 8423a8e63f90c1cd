"""CSV import and export of players: all or nothing, every bad line reported, no formulas out."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.support.factories import PlayerFactory, TournamentFactory
from tournaments.foundation import csv_files
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, Player
from tournaments.services import csv_io


def upload(client, tournament, content, name="players.csv"):
    if isinstance(content, str):
        content = content.encode("utf-8")
    return client.post(
        reverse("player-import", args=[tournament.slug]),
        {"file": SimpleUploadedFile(name, content, content_type="text/csv")},
    )


def error_lines(response):
    return [(e.line, e.message) for e in response.context["errors"]]


def snapshot():
    return (
        list(Player.objects.order_by("pk").values_list("pk", "email", "status")),
        AuditEntry.objects.count(),
    )


GOOD = (
    "name,email,phone,group,costume\n"
    "Carol Hill,Carol@Example.org,555-0100,Dice Divas,yes\n"
    "Dee  Door,,,Dice Divas,no\n"
    "Sam Roll,sam@example.org,,,\n"
    "Zoë Ümlaut,zoe@example.org,,Éclair Club,TRUE\n"
)


# --- import: the happy path -----------------------------------------------------------------


@pytest.mark.django_db
def test_good_file_imports_every_row(tournament, organiser, client_for):
    tournament.registration_open = False  # organisers import whether or not it is open
    tournament.save()
    response = upload(client_for(organiser), tournament, GOOD)
    assert response.status_code == 302
    assert response.url == reverse("player-list", args=[tournament.slug])
    rows = list(
        Player.objects.order_by("name").values_list(
            "name", "email", "phone", "group_name", "costume_contest", "source", "status"
        )
    )
    assert rows == [
        ("Carol Hill", "carol@example.org", "555-0100", "Dice Divas", True, "import", "registered"),
        ("Dee Door", "", "", "Dice Divas", False, "import", "registered"),
        ("Sam Roll", "sam@example.org", "", "", False, "import", "registered"),
        ("Zoë Ümlaut", "zoe@example.org", "", "Éclair Club", True, "import", "registered"),
    ]
    codes = list(Player.objects.values_list("code", flat=True))
    assert len(set(codes)) == 4 and all(len(c) == 6 for c in codes)
    entry = AuditEntry.objects.get(tournament=tournament, action="player.imported")
    assert entry.data["count"] == 4 and entry.actor == organiser
    assert "4 players imported from players.csv" in entry.summary
    assert not AuditEntry.objects.filter(action="player.registered").exists()


@pytest.mark.django_db
def test_bom_group_name_alias_and_any_header_case_accepted(tournament, organiser, client_for):
    content = "\ufeffName,E-mail,Group_Name,Costume\r\nAda Lace,ada@example.org,Purls,1\r\n"
    assert upload(client_for(organiser), tournament, content).status_code == 302
    ada = Player.objects.get()
    assert (ada.name, ada.email, ada.group_name, ada.costume_contest) == (
        "Ada Lace",
        "ada@example.org",
        "Purls",
        True,
    )


@pytest.mark.django_db
def test_semicolon_separated_file_from_european_excel(tournament, organiser, client_for):
    content = "name;email;costume\nAda Lace;ada@example.org;no\nBo Bell;;yes\n"
    assert upload(client_for(organiser), tournament, content).status_code == 302
    assert Player.objects.count() == 2


@pytest.mark.django_db
def test_withdrawn_players_email_may_be_imported(tournament, organiser, client_for):
    PlayerFactory(tournament=tournament, email="sam@example.org", status=Player.Status.WITHDRAWN)
    assert upload(client_for(organiser), tournament, GOOD).status_code == 302
    assert Player.objects.filter(email="sam@example.org").count() == 2


# --- import: every bad row reported, nothing imported ---------------------------------------


@pytest.mark.django_db
def test_bad_rows_are_all_reported_with_file_line_numbers(tournament, organiser, client_for):
    PlayerFactory(tournament=tournament, email="taken@example.org")
    content = (
        "name,email,phone,group,costume\n"  # line 1
        "Good One,good@example.org,,,\n"  # 2
        ",nobody@example.org,,,\n"  # 3: no name
        "Bad Mail,not-an-email,,,\n"  # 4
        "\n"  # 5: blank lines are skipped but still counted
        'Multi Line,"multi@example.org",,"Group\nOn Two Lines",\n'  # 6-7
        "Costume Kid,kid@example.org,,,maybe\n"  # 8
        "Again,GOOD@example.org,,,\n"  # 9: duplicate of line 2
        "Taken Person,taken@example.org,,,\n"  # 10
        "Two Problems,@@,,,perhaps\n"  # 11
    )
    before = snapshot()
    response = upload(client_for(organiser), tournament, content)
    assert response.status_code == 200
    assert snapshot() == before  # nothing imported, nothing audited
    assert error_lines(response) == [
        (3, "name is missing"),
        (4, "'not-an-email' is not a valid e-mail address"),
        (8, "costume 'maybe' is not one of yes, no, 1, 0, true, false or blank"),
        (9, "e-mail good@example.org is also on line 2"),
        (10, "taken@example.org is already registered for this tournament"),
        (11, "'@@' is not a valid e-mail address"),
        (11, "costume 'perhaps' is not one of yes, no, 1, 0, true, false or blank"),
    ]
    body = response.content.decode()
    assert "Nothing was imported: the file has 7 problems" in body
    assert "<strong>Line 9:</strong> e-mail good@example.org is also on line 2" in body


@pytest.mark.django_db
def test_duplicate_emails_within_the_file_name_both_lines(tournament, organiser, client_for):
    content = "name,email\nA,a@example.org\nB,b@example.org\nC,A@EXAMPLE.ORG\nD,a@example.org\n"
    response = upload(client_for(organiser), tournament, content)
    assert error_lines(response) == [
        (4, "e-mail a@example.org is also on line 2"),
        (5, "e-mail a@example.org is also on line 2"),
    ]
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_email_already_registered_any_case(tournament, organiser, client_for):
    PlayerFactory(tournament=tournament, email="carol@example.org")
    before = snapshot()
    response = upload(client_for(organiser), tournament, GOOD)
    assert error_lines(response) == [
        (2, "carol@example.org is already registered for this tournament")
    ]
    assert snapshot() == before


@pytest.mark.django_db
def test_capacity_overflow_says_how_many_places_are_left(tournament, organiser, client_for):
    tournament.capacity = 5
    tournament.save()
    PlayerFactory.create_batch(3, tournament=tournament)
    before = snapshot()
    response = upload(client_for(organiser), tournament, GOOD)
    assert error_lines(response) == [
        (
            None,
            "The file has 4 players but only 2 places are left (5 in all, 3 registered). "
            "Remove 2 rows or raise the capacity.",
        )
    ]
    assert snapshot() == before


@pytest.mark.django_db
def test_exactly_filling_the_capacity_is_fine(tournament, organiser, client_for):
    tournament.capacity = 4
    tournament.save()
    assert upload(client_for(organiser), tournament, GOOD).status_code == 302
    assert Player.objects.count() == 4


@pytest.mark.django_db
def test_unknown_and_missing_header_columns(tournament, organiser, client_for):
    client = client_for(organiser)
    response = upload(client, tournament, "name,emial,phone\nAda,ada@example.org,\n")
    assert response.status_code == 200
    [(line, message)] = error_lines(response)
    assert line == 1 and message.startswith("unknown column 'emial'")
    response = upload(client, tournament, "full name,email\nAda,ada@example.org\n")
    lines = error_lines(response)
    assert lines[0] == (
        1,
        "unknown column 'full name'. The columns are name, email, phone, "
        "group, costume; the export's code, status, source, checked_in_at "
        "and registered_at are accepted and ignored",
    )
    assert lines[1] == (1, "the required column 'name' is missing")
    response = upload(client, tournament, "Ada,ada@example.org\nBo,bo@example.org\n")
    assert "the first line must be the header row" in error_lines(response)[-1][1]
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_row_with_too_many_values(tournament, organiser, client_for):
    response = upload(
        client_for(organiser), tournament, "name,email\nHill, Carol,carol@example.org\nBo,\n"
    )
    assert error_lines(response) == [
        (
            2,
            "has 3 values but the header has 2 columns "
            "(a value containing a comma must be in double quotes)",
        )
    ]


# --- import: whole-file refusals ------------------------------------------------------------


def refusal(client, tournament, content, name="players.csv"):
    response = upload(client, tournament, content, name)
    assert response.status_code == 200
    assert not Player.objects.exists()
    return " ".join(response.context["form"].errors["file"])


@pytest.mark.django_db
def test_oversized_file_refused(tournament, organiser, client_for):
    content = b"name\n" + b"x" * (2 * 1024 * 1024)
    message = refusal(client_for(organiser), tournament, content)
    assert "the limit is 2 MB" in message


@pytest.mark.django_db
def test_non_utf8_file_refused_with_save_as_hint(tournament, organiser, client_for):
    content = "name,email\nAda,ada@example.org\nRené Dupré,rene@example.org\n".encode("cp1252")
    message = refusal(client_for(organiser), tournament, content)
    assert "not saved as UTF-8" in message and "line 3" in message
    assert "CSV UTF-8" in message


@pytest.mark.django_db
def test_excel_workbook_refused(tournament, organiser, client_for):
    message = refusal(client_for(organiser), tournament, b"PK\x03\x04rest-of-zip", "p.xlsx")
    assert "workbook" in message and "CSV UTF-8" in message


@pytest.mark.django_db
@pytest.mark.parametrize("content", [b"", b"\xef\xbb\xbf", b"\n\n  \n", b",,,\n,,\n"])
def test_empty_file_refused(content, tournament, organiser, client_for):
    assert "The file is empty." in refusal(client_for(organiser), tournament, content)


@pytest.mark.django_db
def test_header_without_rows_refused(tournament, organiser, client_for):
    message = refusal(client_for(organiser), tournament, "name,email\n")
    assert "no players" in message


@pytest.mark.django_db
def test_more_than_5000_rows_refused(tournament, organiser, client_for):
    content = "name\n" + "".join(f"P{i}\n" for i in range(5001))
    message = refusal(client_for(organiser), tournament, content)
    assert "more than 5000 rows" in message


@pytest.mark.django_db
def test_import_page_shows_sample_and_template(tournament, organiser, client_for):
    client = client_for(organiser)
    body = client.get(reverse("player-import", args=[tournament.slug])).content.decode()
    assert "<code>costume</code>" in body and "CSV UTF-8" in body
    template_url = reverse("player-import-template", args=[tournament.slug])
    assert template_url in body
    response = client.get(template_url)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.decode("utf-8") == "\ufeffname,email,phone,group,costume\r\n"
    # The template itself imports cleanly once a row is added.
    filled = response.content + b"Ada Lace,ada@example.org,,,yes\r\n"
    assert upload(client, tournament, filled).status_code == 302


# --- export ---------------------------------------------------------------------------------


def read_export(response):
    raw = response.content
    assert raw.startswith("\ufeff".encode())  # BOM, so Excel opens it as UTF-8
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


@pytest.mark.django_db
def test_export_neutralises_formulas_and_includes_withdrawn(tournament, organiser, client_for):
    PlayerFactory(
        tournament=tournament,
        name='=HYPERLINK("http://evil.example","Click")',
        email="evil@example.org",
        phone="+1 555 0100",
        group_name="@SUM(A1)",
        checked_in_at=timezone.now(),
    )
    PlayerFactory(
        tournament=tournament,
        name="-Dash",
        email="gone@example.org",
        group_name="\tTabbed",
        status=Player.Status.WITHDRAWN,
    )
    response = client_for(organiser).get(reverse("player-export", args=[tournament.slug]))
    assert response["Content-Disposition"] == (
        f'attachment; filename="{tournament.slug}-players.csv"'
    )
    header, *rows = read_export(response)
    assert header == [
        "name",
        "email",
        "phone",
        "group",
        "costume",
        "code",
        "status",
        "source",
        "checked_in_at",
        "registered_at",
    ]
    by_email = {row[1]: dict(zip(header, row, strict=True)) for row in rows}
    evil = by_email["evil@example.org"]
    assert evil["name"] == '\'=HYPERLINK("http://evil.example","Click")'
    assert evil["phone"] == "'+1 555 0100"
    assert evil["group"] == "'@SUM(A1)"
    assert evil["status"] == "registered" and evil["checked_in_at"]
    gone = by_email["gone@example.org"]
    assert gone["name"] == "'-Dash" and gone["group"] == "'\tTabbed"
    assert gone["status"] == "withdrawn"
    assert all(
        not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for cell in row
    )
    assert AuditEntry.objects.filter(action="player.exported", actor=organiser).exists()


@pytest.mark.django_db
def test_admin_exports_emails_but_not_phones(tournament, admin_user, client_for):
    PlayerFactory(tournament=tournament, email="carol@example.org", phone="555-0100")
    response = client_for(admin_user).get(reverse("player-export", args=[tournament.slug]))
    assert response.status_code == 200
    header, row = read_export(response)
    assert row[1] == "carol@example.org" and row[2] == ""


@pytest.mark.django_db
def test_export_then_import_into_an_empty_tournament(tournament, organiser, client_for):
    client = client_for(organiser)
    upload(client, tournament, GOOD)
    PlayerFactory(tournament=tournament, name="=cmd|'/C calc'!A0", email="", phone="+44 20 7946")
    withdrawn = PlayerFactory(
        tournament=tournament,
        name="Sam Again",
        email="sam@example.org",
        status=Player.Status.WITHDRAWN,  # same e-mail as an active row: must be skipped
    )
    assert withdrawn.email == "sam@example.org"
    exported = client.get(reverse("player-export", args=[tournament.slug])).content

    empty = TournamentFactory(organiser=organiser)
    response = upload(client, empty, exported, f"{tournament.slug}-players.csv")
    assert response.status_code == 302

    def people(t):
        return sorted(
            t.players.filter(status=Player.Status.REGISTERED).values_list(
                "name", "email", "phone", "group_name", "costume_contest"
            )
        )

    assert people(empty) == people(tournament)
    assert ("=cmd|'/C calc'!A0", "", "+44 20 7946", "", False) in people(empty)
    assert empty.players.count() == 5
    assert len(set(empty.players.values_list("code", flat=True))) == 5  # new, unique codes
    entry = AuditEntry.objects.get(tournament=empty, action="player.imported")
    assert entry.data["count"] == 5 and entry.data["skipped_withdrawn"] == 1


# --- the parser on its own ------------------------------------------------------------------


def test_neutralise():
    assert csv_files.neutralise("=1+1") == "'=1+1"
    assert csv_files.neutralise("\rx") == "'\rx"
    assert csv_files.neutralise("Carol") == "Carol"
    assert csv_files.neutralise("") == ""
    assert csv_files.neutralise("'=x") == "''=x"  # reversible: the import takes one off
    assert csv_files.neutralise("'ok") == "'ok"


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
def test_parser_never_fails_with_anything_but_a_clear_message(data):
    try:
        parsed = csv_io.parse_players_csv(b"name,email,costume\n" + data)
    except UserFacingError as exc:
        assert exc.message
    else:
        lines = (b"name,email,costume\n" + data).count(b"\n") + 2
        for error in parsed.errors:
            assert error.line is None or 1 <= error.line <= lines
        for row in parsed.rows:
            assert row.registrant.name.strip()


cell_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("=+-@\t\"',;"),
    max_size=20,
)


@hsettings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(cell_text.filter(lambda s: s.split()), cell_text, st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_neutralised_cells_read_back_unchanged(rows):
    """What the export writes, the import reads back (the apostrophe is taken off again)."""
    lines = [["name", "phone", "group", "costume"]] + [
        [csv_files.neutralise(n), csv_files.neutralise(p), "", "yes" if c else "no"]
        for n, p, c in rows
    ]
    parsed = csv_io.parse_players_csv(csv_files.to_csv(lines).encode("utf-8"))
    assert not parsed.errors
    assert [
        (r.registrant.name, r.registrant.phone, r.registrant.costume_contest) for r in parsed.rows
    ] == [(" ".join(n.split()), p.strip(), c) for n, p, c in rows]
