"""The pages' side of idempotent writes and of the phone's queue (docs/offline.md): forms
carry a key, a form posted twice stores once, a queued save (`X-Bunco-Queue: 1`) is answered
in JSON with the status its queue acts on, and the queue's length reaches the stage page."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.models import CardEntry, TableResult
from scoring.services import cards as card_service
from scoring.services.results import ResultEntry, record_result
from tests.support.events import awarded_directly
from tests.support.factories import (
    PlayerFactory,
    TournamentFactory,
    checked_in,
    drawn_stage,
    member,
    record_pod,
)
from tests.support.web import text, url
from tournaments.models import AuditEntry, Payout, PhoneSync, Player, WriteReceipt
from tournaments.permissions import forget_cached_roles
from tournaments.services import stages as stage_service
from tournaments.views.phones import NOT_STAFF

pytestmark = pytest.mark.django_db

QUEUE = {"X-Bunco-Queue": "1"}
KEY = re.compile(r'name="idempotency_key" value="([0-9a-f-]{36})"')


@pytest.fixture
def pod_event(tournament, organiser):
    """One pod of three tables in round 1; ann and bea are its staff."""
    ann, bea = member(tournament, "staff", "ann-staff"), member(tournament, "staff", "bea-staff")
    stage = drawn_stage(tournament, organiser, staff=ann)
    pod = stage.pods.get()
    pod.staff.add(bea)
    return tournament, stage, pod, ann, bea


def result_url(tournament, table=1):
    return url("table-result", tournament, 1, 1, table)


def result_data(key, *, winner=0, base_version=0, **extra):
    return {"winner": winner, "base_version": base_version, "idempotency_key": key, **extra}


def test_the_result_form_carries_a_fresh_key_each_time_it_is_drawn(pod_event, client_for):
    tournament, stage, pod, ann, _ = pod_event
    staff = client_for(ann)
    first = KEY.findall(text(staff.get(result_url(tournament))))
    again = KEY.findall(text(staff.get(result_url(tournament))))
    assert len(first) == len(again) == 1 and first != again
    uuid.UUID(first[0])


def test_a_result_form_posted_twice_stores_one_result(pod_event, client_for):
    tournament, stage, pod, ann, _ = pod_event
    staff = client_for(ann)
    key = KEY.search(text(staff.get(result_url(tournament)))).group(1)
    first = staff.post(result_url(tournament), result_data(key))
    second = staff.post(result_url(tournament), result_data(key), follow=True)
    assert first.status_code == 302
    assert "Already saved, nothing changed: Table 1 saved (round 1)" in text(second)
    assert TableResult.objects.filter(pod=pod, table=1).count() == 1
    assert AuditEntry.objects.filter(action="result.recorded").count() == 1


def test_a_queued_result_is_answered_saved_then_duplicate(pod_event, client_for):
    tournament, stage, pod, ann, _ = pod_event
    staff = client_for(ann)
    key = str(uuid.uuid4())
    saved = staff.post(result_url(tournament), result_data(key), headers=QUEUE)
    assert saved.status_code == 200
    body = saved.json()
    assert body["status"] == "saved" and body["version"] == 1 and body["errors"] == {}
    assert body["message"].startswith("Table 1 saved (round 1): Seats 1 & 3")
    again = staff.post(result_url(tournament), result_data(key), headers=QUEUE).json()
    assert again["status"] == "duplicate" and again["version"] == 1
    assert again["message"].startswith("Already saved, nothing changed: Table 1 saved")
    assert TableResult.objects.filter(pod=pod, table=1).count() == 1


def test_a_queued_result_changed_meanwhile_is_a_conflict_never_an_overwrite(pod_event, client_for):
    tournament, stage, pod, ann, bea = pod_event
    record_result(
        round_=stage.rounds.get(number=1),
        pod=pod,
        table=2,
        entry=ResultEntry(winner=1),
        actor=bea,
        base_version=0,
    )
    response = client_for(ann).post(
        result_url(tournament, 2), result_data(str(uuid.uuid4())), headers=QUEUE
    )
    assert response.status_code == 409
    body = response.json()
    assert body["status"] == "conflict" and body["version"] == 1
    assert "bea-staff saved table 2" in body["message"]
    assert list(TableResult.objects.filter(table=2).values_list("winner", "version")) == [(1, 1)]


def test_a_queued_result_that_is_not_valid_is_answered_422_with_its_errors(pod_event, client_for):
    tournament, stage, pod, ann, _ = pod_event
    staff = client_for(ann)
    response = staff.post(result_url(tournament), {"base_version": 0}, headers=QUEUE)
    assert response.status_code == 422
    body = response.json()
    assert body["status"] == "invalid" and body["version"] == 0
    assert body["errors"]["winner"] == ["Tap the winning pair."]
    assert body["message"] == "Winner: Tap the winning pair."
    # The service's refusals too: points that contradict the winner.
    refused = staff.post(
        result_url(tournament),
        result_data(str(uuid.uuid4()), points_13=10, points_24=30),
        headers=QUEUE,
    )
    assert (
        refused.status_code == 422 and "won, not the pair you picked" in refused.json()["message"]
    )
    # And a key another account used: nothing saved, said so.
    key = str(uuid.uuid4())
    client_for(pod_event[4]).post(result_url(tournament, 3), result_data(key), headers=QUEUE)
    stolen = staff.post(result_url(tournament), result_data(key), headers=QUEUE)
    assert stolen.status_code == 422 and "another account" in stolen.json()["message"]
    assert not TableResult.objects.filter(table=1).exists()


def test_a_queued_save_signed_out_or_not_allowed_is_forbidden_in_json(
    pod_event, client_for, client
):
    tournament, stage, pod, ann, _ = pod_event
    data = result_data(str(uuid.uuid4()))
    signed_out = client.post(result_url(tournament), data, headers=QUEUE)
    assert signed_out.status_code == 403
    assert signed_out.json()["status"] == "forbidden"
    assert "signed out" in signed_out.json()["message"]
    otto = member(tournament, "staff", "otto-staff")  # staff, but not of this pod
    other = client_for(otto).post(result_url(tournament), data, headers=QUEUE)
    assert other.status_code == 403
    assert other.json()["message"] == f"You are not assigned to {pod} of the qualifying stage."
    # Without the header the pages answer as before.
    assert client.post(result_url(tournament), data).status_code == 302
    assert not TableResult.objects.exists()


def test_a_queued_save_with_a_stale_csrf_token_is_forbidden_and_kept(pod_event):
    tournament, stage, pod, ann, _ = pod_event
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(ann)
    response = strict.post(
        result_url(tournament),
        {**result_data(str(uuid.uuid4())), "csrfmiddlewaretoken": "x" * 64},
        headers=QUEUE,
    )
    assert response.status_code == 403
    assert response.json()["status"] == "forbidden" and "Reload" in response.json()["message"]
    assert not TableResult.objects.exists()


def played_card(stage, pod, ann):
    """Round 1 reported; the first player's record and the form that types it in."""
    record_pod(pod, stage.rounds.get(number=1), ann, [0] * pod.tables)
    cards = card_service.load_stage(stage)
    player = cards.players[cards.in_pod(1)[0]]
    record = cards.records[player.pk]
    data = {"action": "enter", "base_version": 0, "layout": "rounds"}
    data.update({f"r{n}": mark or "" for n, mark in enumerate(record.rounds, start=1)})
    data.update(buncos=record.buncos, minis=record.minis)
    return player, data


def test_a_card_entry_and_a_confirmation_posted_twice_store_once(pod_event, client_for):
    tournament, stage, pod, ann, bea = pod_event
    player, data = played_card(stage, pod, ann)
    card_url = url("card-detail", tournament, 1, player.pk)
    anna, bert = client_for(ann), client_for(bea)
    key = KEY.search(text(anna.get(card_url))).group(1)
    anna.post(card_url, {**data, "idempotency_key": key})
    again = anna.post(card_url, {**data, "idempotency_key": key}, follow=True)
    assert "Already saved, nothing changed" in text(again)
    assert CardEntry.objects.filter(player=player).count() == 1

    key = KEY.findall(text(bert.get(card_url)))[-1]  # the confirm form's
    confirm = {"action": "confirm", "version": 1, "idempotency_key": key}
    first = bert.post(card_url, confirm, headers=QUEUE)
    assert first.json() == {
        "status": "saved",
        "message": f"{player.name}'s card confirmed (version 1).",
        "errors": {},
        "version": 1,
    }
    second = bert.post(card_url, confirm, headers=QUEUE)
    assert second.status_code == 200 and second.json()["status"] == "duplicate"
    assert AuditEntry.objects.filter(action="card.confirmed").count() == 1


def test_a_queued_card_entry_sends_the_phone_on_to_the_next_card(pod_event, client_for):
    """As the form does without the queue: the answer names the next card to type in."""
    tournament, stage, pod, ann, _ = pod_event
    player, data = played_card(stage, pod, ann)
    card_url = url("card-detail", tournament, 1, player.pk)
    response = client_for(ann).post(
        card_url, {**data, "idempotency_key": str(uuid.uuid4())}, headers=QUEUE
    )
    answer = response.json()
    assert answer["status"] == "saved"
    following = re.fullmatch(
        url("card-detail", tournament, 1, 0).replace("/0/", r"/(\d+)/"), answer["next"]
    )
    after = Player.objects.get(pk=following.group(1))
    assert after != player and answer["message"].endswith(f"Next: {after.name}'s card.")


def test_a_queued_card_entry_on_an_old_version_is_a_conflict(pod_event, client_for):
    tournament, stage, pod, ann, bea = pod_event
    player, data = played_card(stage, pod, ann)
    card_url = url("card-detail", tournament, 1, player.pk)
    client_for(bea).post(card_url, {**data, "idempotency_key": str(uuid.uuid4())})
    response = client_for(ann).post(
        card_url, {**data, "idempotency_key": str(uuid.uuid4())}, headers=QUEUE
    )
    assert response.status_code == 409
    assert response.json()["status"] == "conflict" and response.json()["version"] == 1
    assert CardEntry.objects.filter(player=player).count() == 1


def test_a_check_in_posted_twice_checks_in_once(tournament, organiser, client_for):
    player = PlayerFactory(tournament=tournament, name="Carol Hill")
    desk = client_for(organiser)
    page = text(desk.get(url("checkin-desk", tournament) + "?q=carol"))
    key = KEY.search(page).group(1)
    target = url("checkin-player", tournament, player.pk)
    desk.post(target, {"idempotency_key": key})
    again = desk.post(target, {"idempotency_key": key}, headers={"HX-Request": "true"})
    assert "Already recorded from this tap: Carol Hill checked in at" in text(again)
    assert AuditEntry.objects.filter(action="player.checked_in").count() == 1


def test_a_payment_posted_twice_pays_once(tournament, organiser, client_for):
    (award,) = awarded_directly(tournament, [PlayerFactory(tournament=tournament)])
    desk = client_for(member(tournament, "admin", "prize-admin"))
    pay_url = url("payout-pay", tournament, award.pk)
    key = KEY.search(text(desk.get(pay_url))).group(1)
    data = {"present": "on", "id_checked": "on", "idempotency_key": key}
    assert desk.post(pay_url, data).status_code == 302
    again = desk.post(pay_url, data, follow=True)
    assert "Already saved, nothing changed: Paid $50.00" in text(again)
    assert Payout.objects.count() == 1


# --- what the phones tell the organiser -------------------------------------------------------


def test_the_queue_length_sent_with_a_save_is_noted_for_the_pod(pod_event, client_for):
    tournament, stage, pod, ann, _ = pod_event
    headers = {**QUEUE, "X-Bunco-Queued": "2"}
    client_for(ann).post(result_url(tournament), result_data(str(uuid.uuid4())), headers=headers)
    sync = PhoneSync.objects.get()
    assert (sync.account, sync.pod, sync.queued) == (ann, pod, 2)
    # Not a count: the time is noted, the length kept.
    client_for(ann).post(
        result_url(tournament, 2),
        result_data(str(uuid.uuid4())),
        headers={**QUEUE, "X-Bunco-Queued": "lots"},
    )
    assert PhoneSync.objects.get().queued == 2


def test_the_heartbeat_notes_the_staff_members_pods_and_refuses_others(
    pod_event, client_for, client, organiser
):
    tournament, stage, pod, ann, _ = pod_event
    sync_url = url("staff-sync", tournament)
    response = client_for(ann).post(sync_url, headers={**QUEUE, "X-Bunco-Queued": "3"})
    assert response.status_code == 200
    assert response.json()["message"] == "Pod 1: this phone has 3 saves waiting."
    assert PhoneSync.objects.get(account=ann).queued == 3
    assert client_for(ann).post(sync_url, {"pod": 2}).json()["message"] == NOT_STAFF
    assert client_for(ann).get(sync_url).status_code == 405
    # An organiser's phone is not a pod's, unless they staff it.
    assert client_for(organiser).post(sync_url, headers=QUEUE).json()["message"] == NOT_STAFF
    signed_out = client.post(sync_url, headers=QUEUE)
    assert signed_out.status_code == 403 and "signed out" in signed_out.json()["message"]
    admin = client_for(member(tournament, "admin", "an-admin"))
    assert admin.post(sync_url, headers=QUEUE).status_code == 403
    assert PhoneSync.objects.count() == 1


def new_tournament(organiser):
    forget_cached_roles(organiser)  # roles are cached on the user object
    return TournamentFactory(organiser=organiser)


def phones_of(page: str, number: int) -> str:
    row = page.split(f'id="pod-{number}"')[1].split("</tr>")[0]
    found = re.search(r"data-phones>(.*?)</div>", row, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split()) if found else ""


def test_the_stage_page_shows_each_pods_last_sync_and_saves_waiting(organiser, client_for):
    tournament = new_tournament(organiser)
    checked_in(tournament, 36)
    stage = stage_service.draw_qualifying(tournament, actor=organiser)
    ann, bea = member(tournament, "staff", "ann-staff"), member(tournament, "staff", "bea-staff")
    pods = list(stage.pods.order_by("number"))
    stage_service.assign_staff(pods[0], [ann], actor=organiser)
    stage_service.assign_staff(pods[1], [bea], actor=organiser)
    org = client_for(organiser)
    page = text(org.get(url("stage-control", tournament)))
    assert phones_of(page, 1) == "No phone has synced yet"
    assert phones_of(page, 3) == ""  # no staff: no phones to show

    client_for(ann).post(url("staff-sync", tournament), headers={**QUEUE, "X-Bunco-Queued": "2"})
    synced = timezone.localtime(PhoneSync.objects.get().synced_at)
    # An organiser's own save for pod 2 is not its phones'.
    WriteReceipt.objects.create(
        key=uuid.uuid4(),
        account=organiser,
        kind="result",
        subject="x",
        tournament=tournament,
        pod=pods[1],
    )
    page = text(org.get(url("stage-control", tournament)))
    assert phones_of(page, 1) == f"Phones synced {synced:%H:%M} 2 saves waiting on a phone"
    assert phones_of(page, 2) == "No phone has synced yet"


def test_the_phones_cost_the_stage_page_one_query_whatever_the_pods(organiser, client_for):
    counts = []
    for players in (24, 120):
        tournament = new_tournament(organiser)
        checked_in(tournament, players)
        stage = stage_service.draw_qualifying(tournament, actor=organiser)
        for pod in stage.pods.all():
            staff = member(tournament, "staff", f"staff-{players}-{pod.number}")
            stage_service.assign_staff(pod, [staff], actor=organiser)
            PhoneSync.objects.create(account=staff, pod=pod, queued=pod.number)
        org = client_for(organiser)
        with CaptureQueriesContext(connection) as queries:
            page = text(org.get(url("stage-control", tournament)))
        assert f"{stage.pods.count()} saves waiting" in page
        phone_queries = [q for q in queries if "phonesync" in q["sql"]]
        assert len(phone_queries) == 1
        counts.append(len(queries))
    assert counts[0] == counts[1]
