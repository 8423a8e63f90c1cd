"""The database failing after a save committed: the page says it WAS stored.

A result is saved (committed), then building the page after it hits a restarting database.
"Nothing you were saving was stored" would be false and staff would enter it again; the
503 page says what was stored and not to save it again. A failure before the commit still
says nothing was stored. The real restart under gunicorn is in test_faults.py; here the
failing read is simulated by patching it.
"""

from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from bunco_site.outages import MESSAGE
from scoring.models import TableResult
from tests.support.events import awarded_directly
from tests.support.factories import checked_in, drawn_stage
from tests.support.web import text, url

# Real commits: what was stored is known from the commits (on_commit), which a test wrapped
# in one transaction would never make.
pytestmark = pytest.mark.django_db(transaction=True)

LOST = OperationalError("terminating connection due to administrator command")
HTMX = {"HX-Request": "true"}


@pytest.fixture
def staff(tournament, organiser, staff_user, client_for):
    drawn_stage(tournament, organiser, staff=staff_user)
    return client_for(staff_user)


def entry_url(tournament, table=1):
    return url("table-result", tournament, 1, 1, table)


def test_a_result_stored_before_the_page_failed_says_it_was_stored(tournament, staff):
    form = entry_url(tournament)
    with mock.patch("scoring.views.results.pod_url", side_effect=LOST):
        response = staff.post(form, {"winner": "0", "base_version": "0"}, HTTP_REFERER=form)
    body = text(response)
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert MESSAGE not in body and "Traceback" not in body
    assert "What you saved was stored (Round 1, Pod 1, table 1: seats 1 & 3 won (v1))" in body
    assert "Do not save it again: reload the page in a few seconds." in body
    assert "Saved, but the page could not be shown" in body
    assert f'id="stored"><a href="{form}">Open the page again</a>' in body
    assert TableResult.objects.filter(table=1).count() == 1

    # Opened again, the form shows the stored result, ready to correct, not to re-enter.
    page = text(staff.get(form))
    assert 'name="base_version" value="1"' in page


def test_a_failure_before_the_commit_still_says_nothing_was_stored(tournament, staff):
    with mock.patch("scoring.services.results.refresh_next_round", side_effect=LOST):
        response = staff.post(entry_url(tournament), {"winner": "0", "base_version": "0"})
    body = text(response)
    assert response.status_code == 503 and MESSAGE in body and "was stored (" not in body
    assert not TableResult.objects.exists()


def test_an_htmx_request_gets_the_stored_message_as_a_fragment(tournament, staff):
    with mock.patch("scoring.views.results.pod_url", side_effect=LOST):
        response = staff.post(
            entry_url(tournament, 2), {"winner": "1", "base_version": "0"}, headers=HTMX
        )
    body = text(response)
    assert response.status_code == 503 and not body.lstrip().startswith("<!doctype")
    assert "What you saved was stored (Round 1, Pod 1, table 2: seats 2 & 4 won (v1))" in body


def test_a_payment_stored_before_a_middleware_failed_says_it_was_paid(
    tournament, admin_user, client_for
):
    """The failure here is in a middleware after the view (the messages), not in the view."""
    (player,) = checked_in(tournament, 1)
    (award,) = awarded_directly(tournament, [player])
    admin = client_for(admin_user)
    admin.raise_request_exception = False
    pay = url("payout-pay", tournament, award.pk)
    with mock.patch(
        "django.contrib.messages.middleware.MessageMiddleware.process_response",
        side_effect=LOST,
    ):
        response = admin.post(pay, {"present": "on", "id_checked": "on"})
    body = text(response)
    assert response.status_code == 503 and MESSAGE not in body
    assert f"What you saved was stored (Most Buncos: $50.00 paid to {player.name})" in body
    assert award.payouts.count() == 1
    # Nothing else stored in between: a second request with the database fine is normal.
    assert Client().get("/").status_code == 200
