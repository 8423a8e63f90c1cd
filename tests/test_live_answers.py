"""The parts of pages the room asks for again: ETag from the change counter, 304 when nothing
changed for the price of reading the tournament's row, a changed answer rendered once per
count and shared; and the feed (`/changes/`) that tells a page when to ask."""

import pytest
from django.test import Client
from django.urls import reverse

from scoring.services.results import ResultEntry, record_result
from tests.support.factories import OrganiserFactory, drawn_stage, grant, member
from tests.support.web import text, url
from tournaments.models import UserProfile

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def stage(tournament, organiser):
    return drawn_stage(tournament, organiser, 24, names=["Ann Smith"])


def save(stage, organiser, pod=1, table=1, winner=0, base=0):
    return record_result(
        round_=stage.rounds.get(number=1),
        pod=stage.pods.get(number=pod),
        table=table,
        entry=ResultEntry(winner=winner),
        actor=organiser,
        base_version=base,
    )


def asked_again(client, address, response, **headers):
    return client.get(address, headers={**headers, "If-None-Match": response["ETag"]})


@pytest.mark.parametrize("part", ["board", "seat"])
def test_an_unchanged_public_part_is_a_304_for_one_query(
    part, stage, organiser, client, django_assert_max_num_queries
):
    tournament = stage.tournament
    if part == "board":
        address, headers = url("board-live", tournament), {}
    else:
        address, headers = url("seat-finder", tournament) + "?q=Ann", HTMX
    first = client.get(address, headers=headers)
    assert first.status_code == 200 and first["ETag"].startswith('W/"')
    assert first["Cache-Control"] == "no-cache" and "HX-Request" in first["Vary"]
    with django_assert_max_num_queries(1):  # the tournament's row, which carries the count
        again = asked_again(client, address, first, **headers)
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert again.content == b""

    # Another phone at the same count is answered from the cache, not from the room.
    with django_assert_max_num_queries(1):
        shared = Client().get(address, headers=headers)
    assert shared.status_code == 200 and shared.content == first.content

    save(stage, organiser)
    changed = asked_again(client, address, first, **headers)
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]


def test_the_board_shows_a_save_at_the_next_count(stage, organiser, client):
    address = url("board-live", stage.tournament)
    before = text(client.get(address))
    assert "0/3 reported" in before
    save(stage, organiser)
    assert "1/3 reported" in text(client.get(address))


def test_the_seat_finder_shows_next_round_seats_at_the_next_count(stage, organiser, client):
    address = url("seat-finder", stage.tournament) + "?q=Ann+Smith"
    assert "Round 2 — go to:" not in text(client.get(address, headers=HTMX))
    pod = stage.pods.get(seats__player__name="Ann Smith", seats__round__number=1)
    for table in range(1, pod.tables + 1):
        save(stage, organiser, pod=pod.number, table=table)
    assert "Round 2 — go to:" in text(client.get(address, headers=HTMX))


def test_round_progress_is_private_and_a_304_when_unchanged(
    stage, organiser, client_for, django_assert_max_num_queries
):
    tournament = stage.tournament
    org = client_for(organiser)
    address = url("stage-rounds", tournament)
    org.get(url("stage-control", tournament))  # the page first: its browser's CSRF cookie
    first = org.get(address, headers=HTMX)
    assert first.status_code == 200 and 'id="round-control"' in text(first)
    assert first["Cache-Control"] == "private, no-cache"
    # Session, account, its profile, the tournament with its count, the account's roles: what
    # any signed-in page pays before its own work; nothing of the round is read.
    with django_assert_max_num_queries(5):
        again = asked_again(org, address, first, **HTMX)
    assert again.status_code == 304

    # A second organiser never gets the first one's answer (its buttons carry their token).
    other = OrganiserFactory()
    grant(tournament, other, "organiser")
    theirs = client_for(other)
    theirs.get(url("stage-control", tournament))
    assert theirs.get(address, headers=HTMX)["ETag"] != first["ETag"]
    assert asked_again(theirs, address, first, **HTMX).status_code == 200

    save(stage, organiser)
    changed = asked_again(org, address, first, **HTMX)
    assert changed.status_code == 200 and 'id="tables-reported">1/6<' in text(changed)


def test_the_pod_page_fetches_its_tables_and_next_seats_alone(stage, organiser, client_for):
    tournament = stage.tournament
    staff = member(tournament, "staff", "floor")
    stage.pods.get(number=1).staff.add(staff)
    phone = client_for(staff)
    address = url("pod-detail", tournament, 1)
    page = text(phone.get(address))
    assert 'id="pod-live"' in page and 'data-hx-trigger="room-changed from:body"' in page
    assert 'id="live-feed"' in page
    part = phone.get(address, headers=HTMX)
    assert "<html" not in text(part) and 'id="round-banner"' in text(part)
    assert asked_again(phone, address, part, **HTMX).status_code == 304
    for table in (1, 2, 3):
        save(stage, organiser, table=table)
    changed = asked_again(phone, address, part, **HTMX)
    assert changed.status_code == 200 and 'id="next-round"' in text(changed)
    # Staff of another pod are refused the part as they are the page.
    other = member(tournament, "staff", "elsewhere")
    assert client_for(other).get(address, headers=HTMX).status_code == 403


def test_a_save_at_another_pod_leaves_a_pods_tables_a_304(
    stage, organiser, client_for, django_assert_max_num_queries
):
    """Every save moves the count every phone polls; a pod's phone then asks for its tables
    again, and is told they are unchanged unless the save was at its pod or changed the
    whole room (the bell, here)."""
    from scoring.services.rounds import close_round

    tournament = stage.tournament
    staff = member(tournament, "staff", "floor")
    stage.pods.get(number=1).staff.add(staff)
    phone = client_for(staff)
    address = url("pod-detail", tournament, 1)
    phone.get(address)
    part = phone.get(address, headers=HTMX)

    save(stage, organiser, pod=2)
    # Session, account and the pod's statement (which carries both counts): no table is read.
    with django_assert_max_num_queries(3):
        again = asked_again(phone, address, part, **HTMX)
    assert again.status_code == 304 and again["ETag"] == part["ETag"]

    save(stage, organiser, pod=1, table=2)
    mine = asked_again(phone, address, part, **HTMX)
    assert mine.status_code == 200 and "1 of 3 tables reported" in text(mine)
    for table in (2, 3):
        save(stage, organiser, pod=2, table=table)
    assert asked_again(phone, address, mine, **HTMX).status_code == 304

    for table in (1, 3):
        save(stage, organiser, pod=1, table=table)
    done = phone.get(address, headers=HTMX)
    close_round(stage.rounds.get(number=1), actor=organiser)  # the whole room's change
    closed = asked_again(phone, address, done, **HTMX)
    assert closed.status_code == 200 and "Round 1 is closed" in text(closed)


def test_whole_pages_are_never_answered_304(stage, client):
    tournament = stage.tournament
    for name in ("board", "seat-finder"):
        page = client.get(url(name, tournament))
        assert "ETag" not in page  # they carry messages and a CSRF token
        assert f'data-live-url="{url("live-changes", tournament)}"' in text(page)


def test_the_feed_says_204_until_the_count_moves(
    stage, organiser, client, django_assert_max_num_queries
):
    tournament = stage.tournament
    address = url("live-changes", tournament)
    first = client.get(address)
    count = first.json()["count"]
    assert first["Cache-Control"] == "no-store"
    with django_assert_max_num_queries(1):
        same = client.get(address, {"since": count})
    assert same.status_code == 204
    save(stage, organiser)
    # A phone back from a drop-out sends the count it last saw and learns the new one.
    moved = client.get(address, {"since": count})
    assert moved.status_code == 200 and moved.json() == {"count": count + 1}
    assert client.get(address, {"since": "x"}).json() == {"count": count + 1}
    assert (
        client.get(url("live-changes", tournament).replace(tournament.slug, "nope")).status_code
        == 404
    )


def test_a_signed_in_phones_poll_loads_no_account(
    stage, organiser, client_for, django_assert_max_num_queries
):
    tournament = stage.tournament
    staff = member(tournament, "staff", "floor")
    phone = client_for(staff)
    feed = url("live-changes", tournament)
    count = phone.get(feed).json()["count"]
    board = phone.get(url("board-live", tournament))
    with django_assert_max_num_queries(1):  # no session, account or profile: the count only
        assert phone.get(feed, {"since": count}).status_code == 204
    with django_assert_max_num_queries(1):
        assert asked_again(phone, url("board-live", tournament), board).status_code == 304
    # An account still on its one-time password is sent to change it everywhere else.
    UserProfile.objects.create(user=staff, must_change_password=True)
    assert phone.get(url("pod-detail", tournament, 1))["Location"].endswith(
        reverse("password_change")
    )
    assert phone.get(feed, {"since": count}).status_code == 204
