"""Printouts made from the database, read back: cards, tallies, QR codes, results and the
payout sheet match the records; the task is safe to run twice, retries a lost database,
survives a lost worker with one file, and the clean-up removes what expired.

Tasks run in-process here (eager), whatever REDIS_URL says: tests/test_printout_worker.py
runs them on a real worker.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import time
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit

import pypdf
import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from bunco_site.celery import app as celery_app
from scoring.rules.cards import STATUS_LABELS
from scoring.services.cards import load_stage, standings
from tests.pdf_reading import cards_by_cell, placed_text
from tests.support.factories import PlayerFactory, UserFactory, drawn_stage, grant
from tournaments.foundation.text import money
from tournaments.models import FinalTable, Payout, Printout, Seat, Stage
from tournaments.printouts.layout import page_size
from tournaments.services import ledger as ledger_service
from tournaments.services import payouts as payout_service
from tournaments.services import printouts as service
from tournaments.services.printouts import documents, jobs
from tournaments.services.rehearsal import rehearse
from tournaments.tasks import render_printout

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

BASE = "http://testserver"
NAMES = [f"{first} {last}" for first in ("Ada", "Bea", "Cy", "Di", "Eve") for last in "KLMNOP"]


def media_files(settings) -> list[str]:
    folder = Path(settings.MEDIA_ROOT) / "printouts"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def make(tournament, kind, actor=None, capture=None, **kwargs) -> Printout:
    """Asks for a printout and runs the on-commit callbacks, as a committed request would."""
    kwargs.setdefault("base_url", BASE)
    with capture(execute=True):
        printout = service.request_printout(tournament, kind, actor, **kwargs)
    printout.refresh_from_db()
    return printout


def read_pdf(printout: Printout) -> pypdf.PdfReader:
    with printout.file.open("rb") as handle:
        reader = pypdf.PdfReader(io.BytesIO(handle.read()))
    assert len(reader.pages) == printout.pages
    return reader


def cards_in(printout: Printout) -> list[list[str]]:
    """The per-player texts of each card cell: [name, code, pod, start]."""
    event = service.event_info(printout.tournament, printout.stage)
    return cards_by_cell(read_pdf(printout), event, page_size(printout.pagesize))


@pytest.fixture
def drawn(tournament, organiser):
    """30 checked-in players drawn into three pods (12, 11 and 7: two ghosts); one no-show."""
    stage = drawn_stage(tournament, organiser, players=30, start=False, names=NAMES)
    PlayerFactory(tournament=tournament, name="Nora No-Show")
    return stage


# --- what the documents say --------------------------------------------------------------------


@pytest.mark.parametrize("pagesize", ["letter", "A4"])
def test_every_checked_in_player_has_exactly_one_card_with_name_and_pod(
    drawn, tournament, organiser, pagesize, django_capture_on_commit_callbacks
):
    printout = make(
        tournament,
        "score_cards",
        organiser,
        django_capture_on_commit_callbacks,
        pagesize=pagesize,
    )
    assert printout.status == Printout.Status.DONE, printout.error
    assert printout.progress == 100 and printout.pages == 6  # three pods: 6+4, 6+4, 6+2
    found = cards_in(printout)
    by_code = Counter(texts[1] for texts in found)
    checked_in = tournament.players.filter(checked_in_at__isnull=False)
    assert checked_in.count() == 30
    assert by_code == Counter({p.code: 1 for p in checked_in})
    pod_of = {
        s.player_id: s.pod.number
        for s in Seat.objects.filter(round__stage=drawn, round__number=1, player__isnull=False)
    }
    for player in checked_in:
        name, code, pod, start = next(t for t in found if t[1] == player.code)
        assert (name, pod) == (player.name, str(pod_of[player.pk]))
        assert start.startswith("Table ")
    assert "Nora No-Show" not in {t[0] for t in found}


def test_one_pods_cards_only(drawn, tournament, organiser, django_capture_on_commit_callbacks):
    pod = drawn.pods.get(number=2)
    printout = make(
        tournament, "score_cards", organiser, django_capture_on_commit_callbacks, pod=pod
    )
    found = cards_in(printout)
    assert {t[2] for t in found} == {"2"}
    assert len(found) == Seat.objects.filter(pod=pod, round__number=1, player__isnull=False).count()
    assert (
        service.file_name(printout) == f"{tournament.slug}-score-cards-qualifying-pod-2-letter.pdf"
    )


def test_every_table_of_every_set_has_a_tally_sheet(
    drawn, tournament, organiser, django_capture_on_commit_callbacks
):
    printout = make(tournament, "tally_sheets", organiser, django_capture_on_commit_callbacks)
    height = page_size("letter")[1]
    found = []
    for page in read_pdf(printout).pages:
        halves = defaultdict(list)
        for _, y, text in placed_text(page):
            halves[y > height / 2].append(text)
        for texts in halves.values():
            ident = next(t for t in texts if t.startswith("Pod "))
            pod, table = map(int, re.fullmatch(r"Pod (\d+) · Table (\d+)", ident).groups())
            set_number = int(next(t for t in texts if t.startswith("Set "))[4:])
            found.append((pod, table, set_number))
    expected = [
        (pod.number, table, s)
        for pod in drawn.pods.all()
        for table in range(1, pod.tables + 1)
        for s in range(1, drawn.sets + 1)
    ]
    assert sorted(found) == sorted(expected) and len(found) == 8 * 3  # 30 players: 8 tables
    # Set 1 names the starting seats, ghosts included.
    first = read_pdf(printout).pages[0].extract_text()
    seats = Seat.objects.filter(round__stage=drawn, round__number=1, pod__number=1, table=1)
    for seat in seats.select_related("player"):
        assert f"{seat.seat} {seat.player.name}" in first


def test_seating_charts_name_hostess_staff_and_seats(
    drawn, tournament, organiser, staff_user, django_capture_on_commit_callbacks
):
    printout = make(tournament, "seating_charts", organiser, django_capture_on_commit_callbacks)
    pages = [page.extract_text() for page in read_pdf(printout).pages]
    assert len(pages) == drawn.pods.count()
    for text, pod in zip(pages, drawn.pods.order_by("number"), strict=True):
        assert f"Pod {pod.number}" in text and f"Hostess: {pod.hostess.name}" in text
        assert "After each round: Progressive" in text
    assert "Ghost" in pages[-1]


def test_qr_codes_open_their_cards_verification_page(
    drawn, tournament, organiser, client, staff_user, django_capture_on_commit_callbacks, tmp_path
):
    zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp to decode QR codes")
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is missing: apt-get install poppler-utils to check QR codes")
    from PIL import Image

    printout = make(tournament, "score_cards", organiser, django_capture_on_commit_callbacks)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", "-singlefile"]
        + [printout.file.path, str(tmp_path / "page")],
        check=True,
        timeout=60,
    )
    decoded = [c.text for c in zxingcpp.read_barcodes(Image.open(tmp_path / "page.png"))]
    first_page = (
        Seat.objects.filter(round__stage=drawn, round__number=1, player__isnull=False)
        .select_related("player", "pod")
        .order_by("pod__number", "table", "seat")[:6]
    )
    expected = {
        service.card_url(BASE, tournament.slug, s.player_id, "qualifying"): s for s in first_page
    }
    assert len(decoded) == 6 and set(decoded) == set(expected)
    for url, seat in expected.items():
        path = urlsplit(url).path
        assert path.startswith(f"/t/{tournament.slug}/card/")
        # Anyone: the card, read-only, with the player's name and pod.
        response = client.get(path)
        body = response.content.decode()
        assert response.status_code == 200
        assert seat.player.name in body and f"pod {seat.pod.number}" in body
        assert 'name="action"' not in body
    # Staff assigned to the pod are taken to the card's verification page.
    seat = first_page[0]
    seat.pod.staff.add(staff_user)
    staff = client.__class__()
    staff.force_login(staff_user)
    response = staff.get(
        urlsplit(service.card_url(BASE, tournament.slug, seat.player_id, "qualifying")).path
    )
    assert response.status_code == 302
    assert response["Location"] == (
        f"/t/{tournament.slug}/pods/{seat.pod.number}/cards/{seat.player_id}/?stage=qualifying"
    )
    assert staff.get(response["Location"]).status_code == 200


def test_card_tokens_cannot_be_made_up(drawn, tournament, client):
    player = Seat.objects.filter(round__stage=drawn, player__isnull=False).first().player
    token = service.card_token(player.pk, "qualifying")
    assert service.read_card_token(token) == (player.pk, "qualifying")
    forged = f"{player.pk + 1}.q:{token.split(':', 1)[1]}"
    assert service.read_card_token(forged) is None
    assert service.read_card_token("1.q") is None
    assert client.get(f"/t/{tournament.slug}/card/{forged}/").status_code == 404
    # A real token of a stage this tournament does not have yet.
    semi = service.card_token(player.pk, "semi_final")
    assert client.get(f"/t/{tournament.slug}/card/{semi}/").status_code == 404


def result_rows(text: str, statuses: tuple[str, ...]) -> Counter:
    """(name, wins, losses, buncos, minis) of each standings row; a snake eyes column, when
    the rules have one, sits between the minis and the status."""
    status = "|".join(re.escape(s) for s in statuses)
    row = re.compile(rf"\n([^\n]+)\n(\d+)\n(\d+)\n(\d+)\n(\d+)\n(?:\d+\n)?(?:{status})")
    return Counter(m.groups() for m in row.finditer(text))


def text_of(printout: Printout) -> str:
    return "\n".join(page.extract_text() for page in read_pdf(printout).pages)


@pytest.fixture
def played():
    """A whole classic event of 24 players, to the grand prize and the prize table."""
    return rehearse(players=24, preset="classic", seed=3)


def test_rehearsal_prints_through_the_tasks_and_reports_pages(played, settings):
    summary = played.as_dict()["printouts"]
    rows = Printout.objects.filter(tournament=played.tournament)
    assert set(summary) == {"packet", "results_qualifying", "results_semi_final", "payout_sheet"}
    assert rows.count() == 4 and all(r.status == "done" and r.attempts == 1 for r in rows)
    packet = rows.get(kind="packet")
    assert summary["packet"] == packet.pages == len(read_pdf(packet).pages)
    assert packet.stage.kind == "qualifying"
    # 24 players: 4 pages of cards, 9 of tallies (6 tables x 3 sets, two a page), 2 charts.
    assert packet.pages == 4 + 9 + 2
    assert len(media_files(settings)) == 4


def test_results_sheet_matches_the_database(played):
    tournament = played.tournament
    statuses = tuple(STATUS_LABELS.values()) + ("withdrawn",)
    for stage in tournament.stages.all():
        text = text_of(Printout.objects.get(tournament=tournament, kind="results", stage=stage))
        assert f"Results: {stage.get_kind_display()}" in text
        expected = Counter(
            (r.player.name, str(r.card.wins), str(r.card.losses))
            + (str(r.card.buncos), str(r.card.minis))
            for r in standings(load_stage(stage))
        )
        assert result_rows(text, statuses) == expected
        for number in stage.pods.values_list("number", flat=True):
            assert f"\nPod {number}\nPlayer\nWins" in text
    qualifying = tournament.stages.get(kind=Stage.Kind.QUALIFYING)
    text = text_of(Printout.objects.get(tournament=tournament, kind="results", stage=qualifying))
    going_on = text[text.index("Going on") : text.index("Roll-offs")]
    expected = Counter(
        (q.player.name, q.group) for q in qualifying.qualifiers.select_related("player")
    )
    assert Counter(re.findall(r"\n([^\n]+)\n(Pod \d+)\n", going_on)) == expected
    final = FinalTable.objects.get(tournament=tournament)
    text = text_of(
        Printout.objects.get(tournament=tournament, kind="results", stage=final.semi_stage)
    )
    assert f"Winner: {final.winner.name}" in text
    table = text[text.index("Final table") : text.index("\nPod 1\nPlayer")]
    assert re.findall(r"\n([1-4])\n([^\n]+)\n", table) == [
        (str(s.seat), s.player.name) for s in final.seats.select_related("player")
    ]


def payout_rows(text: str) -> Counter:
    row = re.compile(r"\n([^\n]+)\n([A-Z0-9]{6})\n(\$[\d,]+\.\d\d)\n([^\n]*)")
    return Counter(m.groups()[:3] for m in row.finditer(text))


def test_payout_sheet_matches_the_database(played, django_capture_on_commit_callbacks):
    tournament = played.tournament
    printout = Printout.objects.get(tournament=tournament, kind="payout_sheet")
    text = text_of(printout)
    awards = tournament.awards.select_related("player")
    assert awards.exists()
    expected = Counter((a.player.name, a.player.code, money(a.amount_cents)) for a in awards)
    assert payout_rows(text) == expected
    books = ledger_service.ledger(tournament)
    total = sum(int(a.amount_cents) for a in awards)
    assert books.awarded_cents == total == books.paid_cents
    assert text.count("organiser, ") == awards.count()  # every line paid, by whom

    # A voided payment: the prize is owed again, the void is listed greyed with its reason.
    payout = Payout.objects.filter(award__tournament=tournament).first()
    organiser = payout.paid_by
    payout_service.void(payout, actor=organiser, reason="Paid the wrong Ann")
    again = make(tournament, "payout_sheet", organiser, django_capture_on_commit_callbacks)
    text = text_of(again)
    assert "VOID: Paid the wrong Ann" in " ".join(text.split())
    assert text.count("organiser, ") == awards.count() - 1  # the one voided is unpaid again
    assert sum(payout_rows(text).values()) == awards.count() + 1


# --- the task ------------------------------------------------------------------------------------


@pytest.fixture
def with_a_queue():
    """As with Redis: `delay` sends the task (patched in the tests) instead of running it."""
    celery_app.conf.task_always_eager = False


def test_sent_only_after_commit(
    drawn, tournament, organiser, with_a_queue, django_capture_on_commit_callbacks
):
    with mock.patch.object(render_printout, "delay") as delay:
        delay.return_value.id = "task-1"
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            printout = service.request_printout(tournament, "packet", organiser)
        assert delay.call_count == 0 and len(callbacks) == 1
        callbacks[0]()
    delay.assert_called_once_with(printout.pk)
    printout.refresh_from_db()
    assert printout.status == Printout.Status.QUEUED and printout.task_id == "task-1"
    assert printout.requested_by == organiser and printout.requested_at is not None
    assert abs(printout.expires_at - printout.requested_at - timedelta(hours=24)).seconds < 2


def test_safe_to_run_twice_one_file(drawn, tournament, organiser, settings):
    printout = service.request_printout(tournament, "tally_sheets", organiser, send=False)
    first = render_printout.apply(args=[printout.pk]).get()
    printout.refresh_from_db()
    name, finished = printout.file.name, printout.finished_at
    assert first["status"] == "done" and name.startswith("printouts/")
    second = render_printout.apply(args=[printout.pk]).get()
    printout.refresh_from_db()
    assert second["status"] == "skipped"
    assert (printout.file.name, printout.finished_at, printout.attempts) == (name, finished, 1)
    assert media_files(settings) == [Path(name).name]


def test_run_again_after_a_lost_worker_replaces_the_half_made_file(
    drawn, tournament, organiser, settings
):
    """A worker died after claiming the row and while writing: the next run writes the
    reserved name again and clears the leftovers; one file."""
    printout = service.request_printout(tournament, "packet", organiser, send=False)
    claimed = jobs._claim(printout.pk, "task-1")
    folder = Path(settings.MEDIA_ROOT) / "printouts"
    folder.mkdir(parents=True)
    (folder / (Path(claimed.file.name).name + ".part-x1y2")).write_bytes(b"%PDF-1.4 half")
    printout.refresh_from_db()
    assert printout.status == Printout.Status.RUNNING and printout.file.name
    render_printout.apply(args=[printout.pk], task_id="task-1")
    printout.refresh_from_db()
    assert printout.status == Printout.Status.DONE and printout.attempts == 2
    assert printout.file.name == claimed.file.name
    assert media_files(settings) == [Path(claimed.file.name).name]


def test_a_lost_database_connection_is_retried(drawn, tournament, organiser):
    printout = service.request_printout(tournament, "seating_charts", organiser, send=False)
    real = documents.render
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(*args, **kwargs)

    with mock.patch.object(documents, "render", flaky):
        render_printout.apply(args=[printout.pk], throw=False)
    printout.refresh_from_db()
    assert len(calls) == 2
    assert printout.status == Printout.Status.DONE and printout.attempts == 2


def test_a_rendering_error_fails_with_a_message_and_retry_works(
    drawn, tournament, organiser, django_capture_on_commit_callbacks
):
    with mock.patch.object(documents, "render", side_effect=ValueError("bad page size")):
        printout = make(tournament, "score_cards", organiser, django_capture_on_commit_callbacks)
    assert printout.status == Printout.Status.FAILED
    assert "could not be made (ValueError: bad page size)" in printout.error
    with django_capture_on_commit_callbacks(execute=True):
        service.retry_printout(printout, organiser)
    printout.refresh_from_db()
    assert printout.status == Printout.Status.DONE and printout.error == ""


def test_broker_down_keeps_the_request_waiting_for_the_queue(
    drawn, tournament, organiser, with_a_queue, django_capture_on_commit_callbacks
):
    with mock.patch.object(
        render_printout, "delay", side_effect=BrokerError("Error 111 connecting to redis")
    ):
        printout = make(tournament, "packet", organiser, django_capture_on_commit_callbacks)
    assert printout.status == Printout.Status.QUEUED and printout.error == service.QUEUE_DOWN
    assert service.waiting_for_queue(printout) and printout.task_id == ""
    with pytest.raises(service.UserFacingError):  # nothing failed: no "try again" needed
        service.retry_printout(printout, organiser)


def test_progress_is_saved_in_steps_not_per_page(drawn, tournament, organiser):
    printout = service.request_printout(tournament, "packet", organiser, send=False)
    jobs._claim(printout.pk, "")
    progress = jobs._Progress(printout.pk)
    with mock.patch.object(Printout.objects, "filter", wraps=Printout.objects.filter) as spy:
        for done in range(1, 201):
            progress(done, 200)
    printout.refresh_from_db()
    assert printout.progress == 95  # saved every 5 %; 100 once the file is saved
    assert spy.call_count == 19


def test_a_payout_sheet_needs_no_stage_but_cards_need_pods(
    tournament, organiser, django_capture_on_commit_callbacks
):
    printout = make(tournament, "payout_sheet", organiser, django_capture_on_commit_callbacks)
    assert printout.status == "done" and printout.stage is None
    assert "No prizes to pay." in read_pdf(printout).pages[0].extract_text()
    with pytest.raises(service.UserFacingError, match="Draw the pods first"):
        service.request_printout(tournament, "score_cards", organiser)


def test_print_packet_command(drawn, tournament, tmp_path):
    out = tmp_path / "packet.pdf"
    err = io.StringIO()
    call_command("print_packet", tournament.slug, "--out", str(out), "--pagesize", "A4", stderr=err)
    reader = pypdf.PdfReader(out)
    printout = Printout.objects.get(tournament=tournament, kind="packet")
    # 30 players: 6 pages of cards, 8 tables x 3 sets two a page (12), 3 charts.
    assert len(reader.pages) == printout.pages == 6 + 12 + 3
    assert round(float(reader.pages[0].mediabox.width)) == 595  # A4
    assert "pages" in err.getvalue() and printout.requested_by is None
    with pytest.raises(Exception, match="No tournament"):
        call_command("print_packet", "no-such-event", "--out", str(out))


def test_clean_up_removes_expired_printouts_and_their_files(
    drawn, tournament, organiser, settings, django_capture_on_commit_callbacks
):
    old = make(tournament, "tally_sheets", organiser, django_capture_on_commit_callbacks)
    fresh = make(tournament, "seating_charts", organiser, django_capture_on_commit_callbacks)
    folder = Path(settings.MEDIA_ROOT) / "printouts"
    stray_old, stray_new = folder / "stray-old.pdf", folder / "stray-new.pdf"
    for stray in (stray_old, stray_new):
        stray.write_bytes(b"%PDF")
    day_ago = time.time() - 2 * 86400
    os.utime(stray_old, (day_ago, day_ago))
    Printout.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("purge_printouts", stdout=io.StringIO())
    assert list(Printout.objects.values_list("pk", flat=True)) == [fresh.pk]
    assert sorted(media_files(settings)) == sorted([Path(fresh.file.name).name, "stray-new.pdf"])


def test_deleting_a_tournament_deletes_its_printout_files(
    drawn, tournament, organiser, settings, django_capture_on_commit_callbacks
):
    from tournaments.services.rehearsal_event import purge_tournament

    make(tournament, "tally_sheets", organiser, django_capture_on_commit_callbacks)
    assert len(media_files(settings)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        purge_tournament(tournament)
    assert media_files(settings) == []


def test_file_names_are_random_not_ids(
    drawn, tournament, organiser, django_capture_on_commit_callbacks
):
    a = make(tournament, "tally_sheets", organiser, django_capture_on_commit_callbacks)
    b = make(tournament, "tally_sheets", organiser, django_capture_on_commit_callbacks)
    for printout in (a, b):
        stem = Path(printout.file.name).stem
        assert len(stem) == 32 and str(printout.pk) != stem and tournament.slug not in stem
    assert a.file.name != b.file.name


def test_staff_who_may_not_verify_see_the_read_only_card(drawn, tournament, client):
    seat = (
        Seat.objects.filter(round__stage=drawn, player__isnull=False)
        .select_related("player")
        .first()
    )
    other = UserFactory(username="other-staff")
    grant(tournament, other, "staff")  # not assigned to the pod
    client.force_login(other)
    url = urlsplit(service.card_url(BASE, tournament.slug, seat.player_id, "qualifying")).path
    response = client.get(url)
    assert response.status_code == 200 and seat.player.name in response.content.decode()
