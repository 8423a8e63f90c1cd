"""The printouts page: who may use it, asking for a document, the progress row htmx polls,
downloading (never from MEDIA directly), failures with a message and "Try again", and the
in-process notice. Tasks run in-process here (eager), whatever REDIS_URL says.
"""

from __future__ import annotations

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from bunco_site.celery import app as celery_app
from tests.support.factories import (
    OrganiserFactory,
    TournamentFactory,
    UserFactory,
    drawn_stage,
    grant,
)
from tournaments.models import AuditEntry, Printout
from tournaments.services import printouts as service
from tournaments.services.printouts import documents
from tournaments.tasks import render_printout

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

HTMX = {"HX-Request": "true"}


@pytest.fixture
def stage(tournament, organiser):
    return drawn_stage(tournament, organiser, players=24, start=False)


@pytest.fixture
def admin(admin_user, client_for):
    return client_for(admin_user)


def page_url(tournament):
    return reverse("printouts", args=[tournament.slug])


def ask(client, tournament, capture, **data):
    """POSTs the form and runs what the commit would run (the in-process task)."""
    fields = {"kind": "score_cards", "stage": "qualifying", "pod": "", "pagesize": "letter"}
    fields.update(data)
    with capture(execute=True):
        response = client.post(page_url(tournament), fields)
    return response


def test_admin_asks_for_score_cards_and_downloads_them(
    stage, tournament, admin, admin_user, django_capture_on_commit_callbacks
):
    page = admin.get(page_url(tournament))
    body = page.content.decode()
    assert page.status_code == 200
    assert 'id="in-process"' in body and "without a separate print worker" in body  # says so
    assert "made in the background" not in body  # and does not say the opposite above it
    assert "REDIS_URL" not in body and "Celery" not in body  # in words an organiser reads
    assert 'id="kind-score_cards"' in body and "Nothing printed yet." in body

    response = ask(admin, tournament, django_capture_on_commit_callbacks, pagesize="A4")
    printout = Printout.objects.get()
    assert response.status_code == 302
    assert response["Location"] == (
        f"{page_url(tournament)}?kind=score_cards&stage=qualifying&pagesize=A4"
        f"#printout-{printout.pk}"
    )
    assert (printout.status, printout.progress, printout.pagesize) == ("done", 100, "A4")
    assert printout.requested_by == admin_user and printout.stage == stage
    assert printout.base_url == "http://testserver"
    assert AuditEntry.objects.filter(action="printout.requested").count() == 1

    body = admin.get(response["Location"]).content.decode()
    assert re.search(r'id="size-A4"[^>]*checked', body)  # the choices made are kept
    download = reverse("printout-download", args=[tournament.slug, printout.pk])
    assert f'href="{download}"' in body and "Download PDF" in body
    assert "4 pages" in body  # 24 players, six cards a page
    assert 'hx-trigger="every 1s"' not in body  # done: nothing polls any more

    pdf = admin.get(download)
    content = b"".join(pdf.streaming_content)
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert content.startswith(b"%PDF") and len(content) == printout.bytes
    assert pdf["Content-Disposition"] == (
        f'attachment; filename="{tournament.slug}-score-cards-qualifying-a4.pdf"'
    )
    assert pdf["Cache-Control"] == "private, no-store"


def test_the_status_row_is_for_htmx_polling(stage, tournament, admin, admin_user):
    printout = service.request_printout(tournament, "packet", admin_user, send=False)
    url = reverse("printout-status", args=[tournament.slug, printout.pk])
    row = admin.get(url, headers=HTMX).content.decode()
    assert f'id="printout-{printout.pk}"' in row and 'data-status="queued"' in row
    assert f'data-hx-get="{url}" data-hx-trigger="every 1s" data-hx-swap="outerHTML"' in row
    assert "Waiting for the print worker" in row
    Printout.objects.filter(pk=printout.pk).update(status="running", progress=45)
    row = admin.get(url, headers=HTMX).content.decode()
    assert (
        'data-progress="45"' in row and 'aria-valuenow="45"' in row and 'data-bar-width="45"' in row
    )
    render_printout.apply(args=[printout.pk])
    row = admin.get(url, headers=HTMX).content.decode()
    assert 'data-status="done"' in row and 'data-progress="100"' in row
    assert "hx-trigger" not in row and "Download PDF" in row
    # A plain visit goes to the page.
    assert admin.get(url).status_code == 302


def test_a_long_wait_asks_whether_a_worker_runs(stage, tournament, admin, admin_user):
    printout = service.request_printout(tournament, "packet", admin_user, send=False)
    Printout.objects.filter(pk=printout.pk).update(
        requested_at=timezone.now() - timedelta(seconds=30)
    )
    celery_app.conf.task_always_eager = False
    url = reverse("printout-status", args=[tournament.slug, printout.pk])
    row = admin.get(url, headers=HTMX).content.decode()
    assert f'id="no-worker-{printout.pk}"' in row and "make worker" in row
    assert 'id="in-process"' not in admin.get(page_url(tournament)).content.decode()


def test_a_failure_shows_its_message_and_try_again_works(
    stage, tournament, admin, django_capture_on_commit_callbacks
):
    with mock.patch.object(documents, "render", side_effect=RuntimeError("printer on fire")):
        ask(admin, tournament, django_capture_on_commit_callbacks, kind="tally_sheets")
    printout = Printout.objects.get()
    assert printout.status == "failed"
    body = admin.get(page_url(tournament)).content.decode()
    assert f'id="error-{printout.pk}"' in body and "printer on fire" in body
    assert f'id="retry-{printout.pk}"' in body
    download = reverse("printout-download", args=[tournament.slug, printout.pk])
    assert admin.get(download).status_code == 404

    retry = reverse("printout-retry", args=[tournament.slug, printout.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(retry)
    assert response.status_code == 302
    printout.refresh_from_db()
    assert printout.status == "done" and printout.attempts == 2 and printout.error == ""
    assert admin.get(download).status_code == 200
    # A printout already made is not made again.
    with django_capture_on_commit_callbacks(execute=True):
        admin.post(retry, follow=True)
    assert Printout.objects.get().attempts == 2


def test_when_the_queue_is_down_the_page_says_the_request_waits(
    stage, tournament, admin, django_capture_on_commit_callbacks
):
    celery_app.conf.task_always_eager = False
    with mock.patch.object(render_printout, "delay", side_effect=BrokerError("refused")):
        response = ask(admin, tournament, django_capture_on_commit_callbacks)
        assert response.status_code == 302
        body = admin.get(response.url).content.decode()
    printout = Printout.objects.get()
    assert (printout.status, printout.error) == ("queued", service.QUEUE_DOWN)
    assert service.QUEUE_DOWN in body and f'id="queue-down-{printout.pk}"' in body
    assert "Try again" not in body


def test_one_pod_and_bad_choices(stage, tournament, admin, django_capture_on_commit_callbacks):
    ask(admin, tournament, django_capture_on_commit_callbacks, kind="seating_charts", pod="2")
    printout = Printout.objects.get()
    assert printout.pod.number == 2 and printout.pages == 1
    response = ask(admin, tournament, django_capture_on_commit_callbacks, pod="7")
    assert response.status_code == 400 and 'id="pod-error"' in response.content.decode()
    response = ask(
        admin, tournament, django_capture_on_commit_callbacks, kind="payout_sheet", pod="1"
    )
    assert response.status_code == 400 and "covers every pod" in response.content.decode()
    response = ask(admin, tournament, django_capture_on_commit_callbacks, kind="menu")
    assert response.status_code == 400
    assert Printout.objects.count() == 1


def test_before_the_draw_only_the_payout_sheet(
    tournament, admin, django_capture_on_commit_callbacks
):
    body = admin.get(page_url(tournament)).content.decode()
    assert re.search(r'id="kind-score_cards"[^>]*disabled', body)
    assert not re.search(r'id="kind-payout_sheet"[^>]*disabled', body)
    assert "Once the pods are drawn." in body
    response = ask(admin, tournament, django_capture_on_commit_callbacks, stage="")
    assert response.status_code == 400 and "Draw the pods first" in response.content.decode()
    ask(admin, tournament, django_capture_on_commit_callbacks, kind="payout_sheet", stage="")
    assert Printout.objects.get().status == "done"


def test_staff_and_strangers_are_refused(
    stage, tournament, admin_user, staff_user, client, client_for
):
    printout = service.request_printout(tournament, "packet", admin_user, send=False)
    render_printout.apply(args=[printout.pk])
    urls = [
        page_url(tournament),
        reverse("printout-status", args=[tournament.slug, printout.pk]),
        reverse("printout-download", args=[tournament.slug, printout.pk]),
    ]
    staff = client_for(staff_user)
    for url in urls:
        assert staff.get(url).status_code == 403
        anonymous = client.get(url)
        assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    assert staff.post(page_url(tournament), {"kind": "packet"}).status_code == 403
    retry = reverse("printout-retry", args=[tournament.slug, printout.pk])
    assert staff.post(retry).status_code == 403
    assert Printout.objects.count() == 1
    # An htmx poll whose session ran out sends the browser to log in, not a login page swap.
    poll = client.get(urls[1], headers=HTMX)
    assert poll.status_code == 200 and poll["HX-Redirect"].startswith(reverse("login"))

    # The admin of another tournament: refused here; and under their own tournament's
    # address this printout does not exist.
    other_tournament = TournamentFactory(organiser=OrganiserFactory())
    other_admin = UserFactory(username="elsewhere-admin")
    grant(other_tournament, other_admin, "admin")
    elsewhere = client_for(other_admin)
    assert elsewhere.get(urls[2]).status_code == 403
    own = reverse("printout-download", args=[other_tournament.slug, printout.pk])
    assert elsewhere.get(own).status_code == 404
    # The organiser may; MEDIA is not served at all.
    assert client_for(tournament.roles.get(role="organiser").user).get(urls[2]).status_code == 200
    assert client.get(f"/media/{printout.file.name}").status_code == 404


def test_expired_printouts_are_gone(stage, tournament, admin, admin_user):
    printout = service.request_printout(tournament, "tally_sheets", admin_user, send=False)
    render_printout.apply(args=[printout.pk])
    Printout.objects.filter(pk=printout.pk).update(expires_at=timezone.now())
    response = admin.get(reverse("printout-download", args=[tournament.slug, printout.pk]))
    assert response.status_code == 410 and "expired" in response.content.decode()
    assert f'id="printout-{printout.pk}"' not in admin.get(page_url(tournament)).content.decode()


def test_admins_see_the_link_staff_do_not(tournament, admin, staff_user, client_for):
    link = f'href="{page_url(tournament)}"'
    dashboard = reverse("tournament-dashboard", args=[tournament.slug])
    body = admin.get(dashboard).content.decode()
    assert body.count(link) == 2  # the menu and the dashboard
    assert link not in client_for(staff_user).get(dashboard).content.decode()
