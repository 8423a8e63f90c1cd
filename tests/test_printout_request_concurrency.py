"""Two admins at the printouts page at once, on real PostgreSQL connections.

- The same document asked for twice at once makes two printouts, each sent once and each
  with its own file: a request is a record of who asked, for which address (the QR codes'
  base URL) and as of when (`request_printout` says why it never hands out another's row),
  so there is nothing shared to race on.
- Two "Try again" on one failed printout: its row lock lets one through; the other is told.
- The hourly clean-up deleting a printout while it is downloaded: the download gets the
  whole PDF (its file was open before the delete) or a clear "gone", never a server error
  or half a file.

The queue is replaced by a mock: these tests are about the rows, not the worker.
"""

from functools import partial
from pathlib import Path
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.factories import UserFactory, drawn_stage, grant
from tests.support.races import at_once, one_wins
from tournaments.models import AuditEntry, Printout
from tournaments.services import printouts as service
from tournaments.tasks import render_printout

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def admins(tournament, organiser):
    drawn_stage(tournament, organiser, start=False)
    pair = [UserFactory(username="ann-admin"), UserFactory(username="bea-admin")]
    for user in pair:
        grant(tournament, user, "admin")
    return pair


@pytest.fixture
def queue():
    with mock.patch.object(render_printout, "delay") as delay:
        delay.return_value.id = "task-id"
        yield delay


def sent(queue) -> list[int]:
    return sorted(call.args[0] for call in queue.call_args_list)


def media_files(settings) -> list[str]:
    folder = Path(settings.MEDIA_ROOT) / "printouts"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_the_same_packet_asked_for_twice_at_once_is_two_printouts(
    tournament, admins, queue, settings
):
    outcomes = at_once(
        *(partial(service.request_printout, tournament, "packet", admin) for admin in admins)
    )
    assert all(isinstance(o, Printout) for o in outcomes), outcomes
    rows = list(Printout.objects.order_by("pk"))
    assert sorted(r.requested_by.username for r in rows) == ["ann-admin", "bea-admin"]
    assert sent(queue) == [r.pk for r in rows]  # each sent once, after its commit
    assert AuditEntry.objects.filter(action="printout.requested").count() == 2

    # Two workers make them at once: each its own file.
    made = at_once(*(partial(service.produce, r.pk) for r in rows))
    assert [m["status"] for m in made] == ["done", "done"], made
    names = sorted(Path(r.file.name).name for r in Printout.objects.all())
    assert len(set(names)) == 2 and media_files(settings) == names


def test_two_admins_trying_a_failed_printout_again_send_it_once(tournament, admins, queue):
    printout = service.request_printout(tournament, "tally_sheets", admins[0], send=False)
    for attempt in range(3):  # a few times: the interleaving differs run to run
        Printout.objects.filter(pk=printout.pk).update(
            status=Printout.Status.FAILED, error="The printer ran out of paper."
        )
        queue.reset_mock()
        retried, told = one_wins(*(partial(service.retry_printout, printout, a) for a in admins))
        assert told == [
            "This printout was sent to the print queue a moment ago; give it a few seconds."
        ]
        assert sent(queue) == [printout.pk]
        assert AuditEntry.objects.filter(action="printout.retried").count() == attempt + 1
        row = Printout.objects.get(pk=printout.pk)
        assert row.status == Printout.Status.QUEUED and row.requested_by == retried.requested_by


def download(client: Client, url: str) -> tuple[int, bytes]:
    """The whole response, read in the calling thread (a file response streams)."""
    response = client.get(url)
    if response.streaming:
        return response.status_code, b"".join(response.streaming_content)
    return response.status_code, response.content


def done_printout(tournament, admin) -> tuple[Printout, bytes, str]:
    printout = service.request_printout(tournament, "seating_charts", admin, send=False)
    assert service.produce(printout.pk)["status"] == "done"
    printout.refresh_from_db()
    with printout.file.open("rb") as handle:
        pdf = handle.read()
    return printout, pdf, reverse("printout-download", args=[tournament.slug, printout.pk])


def test_the_clean_up_racing_a_download_gives_the_whole_pdf_or_a_clear_gone(
    tournament, admins, settings
):
    client = Client()
    client.force_login(admins[0])
    for _ in range(4):
        printout, pdf, url = done_printout(tournament, admins[0])
        # The clean-up runs at the printout's expiry; the download a moment before it.
        got, purged = at_once(
            partial(download, client, url), partial(service.purge_expired, printout.expires_at)
        )
        assert purged == 1, purged
        status, body = got
        assert status in (200, 404), status  # the whole PDF or "not found", never a 500
        if status == 200:
            assert body == pdf  # not half a file
        assert not Printout.objects.filter(pk=printout.pk).exists()
        assert media_files(settings) == []  # the file went with its row

    # The order the race rarely hits: the file is open and streaming when the row and its
    # file are deleted. The open handle still reads the whole PDF.
    printout, pdf, url = done_printout(tournament, admins[0])
    response = client.get(url)
    assert service.purge_expired(printout.expires_at) == 1
    assert media_files(settings) == []
    assert b"".join(response.streaming_content) == pdf
