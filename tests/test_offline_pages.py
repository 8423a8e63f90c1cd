"""What the phone's queue and service worker need from the pages (docs/offline.md): each
table's form on the pod page, the queued forms marked, and the worker served from the root."""

import re

import pytest

from tests.support.factories import drawn_stage, record_pod, table_result
from tests.support.web import text, url
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def forms_on(body: str) -> dict[str, str]:
    """Each queued form's id and its opening tag."""
    return {
        re.search(r'id="([^"]+)"', tag).group(1): tag
        for tag in re.findall(r"<form [^>]*data-queue=[^>]*>", body)
    }


def test_the_pod_page_holds_each_tables_form_for_the_queue(
    tournament, organiser, staff_user, client_for
):
    stage = drawn_stage(tournament, organiser, players=12, staff=staff_user)
    client = client_for(staff_user)
    body = text(client.get(url("pod-detail", tournament, 1)))
    forms = forms_on(body)
    assert sorted(forms) == ["table-1-form", "table-2-form", "table-3-form"]
    for table in (1, 2, 3):
        action = url("table-result", tournament, 1, 1, table)
        assert f'action="{action}"' in forms[f"table-{table}-form"]
        assert f'data-queue-label="Table {table}, round 1"' in forms[f"table-{table}-form"]
        # Three tables on one page: every box's id is the table's own.
        assert f'id="t{table}-winner-0"' in body and f'id="t{table}-base_version"' in body
    assert body.count('name="base_version" value="0"') == 3
    assert 'id="winner-0"' not in body
    ids = re.findall(r'\sid="([^"]+)"', body)
    assert len(ids) == len(set(ids))

    # A reported table's form corrects the version shown; a closed round asks for a reason.
    record_pod(stage.pods.get(), stage.rounds.get(number=1), organiser, [0, 1, 0])
    Round.objects.filter(stage=stage, number=1).update(status=Round.Status.CLOSED)
    body = text(client.get(url("pod-detail", tournament, 1)))
    assert body.count('name="base_version" value="1"') == 3
    assert body.count("(required: the round is closed)") == 3


def test_a_pod_page_before_the_bell_has_no_forms(tournament, organiser, staff_user, client_for):
    drawn_stage(tournament, organiser, staff=staff_user, start=False)
    body = text(client_for(staff_user).get(url("pod-detail", tournament, 1)))
    assert forms_on(body) == {}


def test_the_result_and_card_forms_queue_and_the_sign_out_is_marked(
    tournament, organiser, staff_user, client_for
):
    drawn_stage(tournament, organiser, players=12, staff=staff_user)
    client = client_for(staff_user)
    body = text(client.get(url("table-result", tournament, 1, 1, 2)))
    assert forms_on(body)["result-form"].count('data-queue="result"') == 1
    assert "data-sign-out" in body and "js/queue.js" in body
    assert f'data-user-id="{staff_user.pk}"' in body


def test_the_service_worker_is_served_from_the_root_to_anyone(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    assert response["Service-Worker-Allowed"] == "/"
    assert b"bunco-staff-pages" in response.content


def test_signed_out_pages_load_no_queue(client):
    body = text(client.get("/"))
    assert "queue-banner" not in body and "js/queue.js" not in body


def test_the_shared_table_forms_follow_a_correction_and_a_name(
    tournament, organiser, staff_user, client_for
):
    """The pod page's table forms are rendered once per what they show and shared
    (views/pods.py): what a phone sees still follows every change that matters."""
    from tournaments.services.players import update_player
    from tournaments.services.registration import Registrant

    stage = drawn_stage(tournament, organiser, players=12, staff=staff_user)
    pod, first = stage.pods.get(), stage.rounds.get(number=1)
    client = client_for(staff_user)
    address = url("pod-detail", tournament, 1)
    record_pod(pod, first, organiser, [0])
    text(client.get(address))  # the three forms rendered, and kept

    # A correction at table 1: its form shows the new version, the others stay as they were.
    table_result(
        pod,
        first,
        organiser,
        table=1,
        winner=1,
        base_version=1,
        points=(12, 30),
        reason="swapped",
    )
    body = text(client.get(address))
    assert 'name="points_24" value="30"' in body
    assert "recorded as winner now (v2)" in body
    assert body.count('name="base_version" value="0"') == 2

    # A name corrected at the desk shows in the forms' labels at once.
    seat = pod.seats.filter(round=first, table=2, seat=1).select_related("player").get()
    update_player(seat.player, Registrant(name="Renamed Person"), actor=organiser)
    body = text(client.get(address))
    assert body.count("Renamed Person") >= 3  # the seat, the points label, the winner button
