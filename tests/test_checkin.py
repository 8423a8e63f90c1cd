"""The check-in desk: search, check in, undo and walk-ins; each refusal changes nothing."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PlayerFactory, TournamentFactory, UserFactory, grant
from tests.support.web import url
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, Player
from tournaments.services import checkin
from tournaments.services.tournaments import counts

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def snapshot():
    return (
        list(
            Player.objects.order_by("pk").values_list(
                "pk", "name", "status", "source", "checked_in_at", "checked_in_by"
            )
        ),
        AuditEntry.objects.count(),
    )


def count_in(html: str, name: str) -> int:
    match = re.search(rf'id="count-{name}">(\d+)<', html)
    assert match, f"no count-{name} in the page"
    return int(match.group(1))


@pytest.fixture
def desk(organiser, client_for):
    return client_for(organiser)


@pytest.fixture
def carol(tournament):
    return PlayerFactory(
        tournament=tournament,
        name="Carol Hill",
        email="carol.hill@example.org",
        group_name="Dice Divas",
        code="CAR9XH",
    )


@pytest.fixture
def others(tournament):
    return [
        PlayerFactory(tournament=tournament, name="Dave Stone", email="dave@example.org"),
        PlayerFactory(tournament=tournament, name="Erin Brook", email="erin@example.com"),
    ]


# Permissions ---------------------------------------------------------------------------


def every_checkin_url(tournament, player):
    return [
        url("checkin-desk", tournament),
        url("checkin-search", tournament) + "?q=car",
        url("checkin-walk-in", tournament),
        url("checkin-player", tournament, player.pk),
        url("checkin-undo", tournament, player.pk),
    ]


@pytest.mark.parametrize("role", ["staff", "admin"])
def test_staff_and_admin_get_403_on_every_checkin_url(role, tournament, carol, client_for):
    user = UserFactory(username=f"not-organiser-{role}")
    grant(tournament, user, role)
    client = client_for(user)
    carol.checked_in_at = timezone.now()
    carol.save()
    before = snapshot()
    for target in every_checkin_url(tournament, carol):
        for headers in ({}, HTMX):
            assert client.get(target, headers=headers).status_code == 403, target
            response = client.post(target, {"name": "Sneaky Walkin", "q": "x"}, headers=headers)
            assert response.status_code == 403, target
    assert snapshot() == before


def test_anonymous_is_sent_to_login_and_htmx_gets_a_full_page_redirect(tournament, carol, client):
    before = snapshot()
    for target in every_checkin_url(tournament, carol):
        response = client.post(target, {"name": "Sneaky"})
        assert response.status_code == 302 and response.url.startswith(reverse("login"))
    response = client.post(url("checkin-player", tournament, carol.pk), headers=HTMX)
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith(reverse("login"))
    assert snapshot() == before


def test_organiser_sees_the_desk(desk, tournament, carol):
    response = desk.get(url("checkin-desk", tournament))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="checkin-q"' in body and url("checkin-search", tournament) in body
    assert count_in(body, "registered") == 1 and count_in(body, "checked-in") == 0
    assert carol.name not in body  # nothing listed until someone types or checks in


# Search --------------------------------------------------------------------------------


def search(client, tournament, q):
    response = client.get(url("checkin-search", tournament), {"q": q}, headers=HTMX)
    assert response.status_code == 200
    return response


@pytest.mark.parametrize(
    "q",
    [
        "car",
        "CAROL",
        "hill",
        "carol hill",
        "  carol   hill ",
        "car9",
        "car9xh",
        "carol.hill@",
        "example.org hill",
    ],
)
def test_search_finds_by_partial_name_code_or_email(desk, tournament, carol, others, q):
    body = search(desk, tournament, q).content.decode()
    assert f'id="player-{carol.pk}"' in body
    assert "Dice Divas" in body and carol.code in body
    assert "Dave Stone" not in body and "Erin Brook" not in body


def test_search_partial_updates_counts_and_url(desk, tournament, carol):
    response = search(desk, tournament, "carol")
    body = response.content.decode()
    assert re.search(r'id="checkin-counts"[^>]*hx-swap-oob="true"', body)
    assert response["HX-Replace-Url"] == url("checkin-desk", tournament) + "?q=carol"


def test_search_lists_active_players_of_this_tournament_only(desk, tournament, carol):
    gone = PlayerFactory(tournament=tournament, name="Carol Gone", status=Player.Status.WITHDRAWN)
    elsewhere = PlayerFactory(tournament=TournamentFactory(), name="Carol Elsewhere")
    body = search(desk, tournament, "carol").content.decode()
    assert "Carol Hill" in body
    assert f'id="player-{gone.pk}"' not in body and f'id="player-{elsewhere.pk}"' not in body


def test_search_marks_checked_in_players_and_offers_undo(desk, tournament, carol, organiser):
    checkin.check_in(carol, organiser)
    body = search(desk, tournament, "carol").content.decode()
    assert "✓ Checked in" in body
    assert url("checkin-undo", tournament, carol.pk) in body
    assert url("checkin-player", tournament, carol.pk) not in body


def test_search_without_match_says_so(desk, tournament, carol):
    body = search(desk, tournament, "zzzz").content.decode()
    assert "No registered player matches" in body and "walk-in" in body


def test_empty_search_shows_recent_check_ins_only(desk, tournament, carol, others, organiser):
    checkin.check_in(others[0], organiser)
    body = search(desk, tournament, "   ").content.decode()
    assert "Latest check-ins" in body and "Dave Stone" in body
    assert "Carol Hill" not in body and "Erin Brook" not in body


def test_search_shows_at_most_25(desk, tournament):
    for i in range(30):
        PlayerFactory(tournament=tournament, name=f"Pat Smith {i}")
    body = search(desk, tournament, "smith").content.decode()
    assert body.count('class="list-group-item checkin-row') == 25
    assert "type more to narrow it down" in body


def test_exact_code_comes_first(desk, tournament, carol):
    PlayerFactory.create_batch(3, tournament=tournament, name=f"{carol.code} Fan")
    players = checkin.search(tournament, carol.code.lower()).players
    assert players[0] == carol and len(players) == 4


def test_search_works_without_javascript(desk, tournament, carol):
    response = desk.get(url("checkin-search", tournament), {"q": "carol"})
    assert response.status_code == 302
    assert response.url == url("checkin-desk", tournament) + "?q=carol"
    body = desk.get(response.url).content.decode()
    assert f'id="player-{carol.pk}"' in body and 'value="carol"' in body


# Check in and undo ---------------------------------------------------------------------


def test_check_in_sets_time_and_volunteer_and_counts_go_up(desk, tournament, carol, organiser):
    response = desk.post(url("checkin-player", tournament, carol.pk), {"q": "carol"}, headers=HTMX)
    assert response.status_code == 200
    carol.refresh_from_db()
    assert carol.checked_in_at is not None and carol.checked_in_by == organiser
    body = response.content.decode()
    assert f'id="player-{carol.pk}"' in body and "✓ Checked in" in body
    assert url("checkin-undo", tournament, carol.pk) in body  # the row now offers Undo
    assert 'hx-swap-oob="true"' in body
    assert count_in(body, "checked-in") == 1 and count_in(body, "not-arrived") == 0
    assert counts(tournament).checked_in == 1


def test_undo_clears_the_check_in(desk, tournament, carol, organiser):
    checkin.check_in(carol, organiser)
    response = desk.post(url("checkin-undo", tournament, carol.pk), headers=HTMX)
    carol.refresh_from_db()
    assert carol.checked_in_at is None and carol.checked_in_by is None
    body = response.content.decode()
    assert count_in(body, "checked-in") == 0
    assert url("checkin-player", tournament, carol.pk) in body


def test_double_check_in_keeps_the_first_time(desk, tournament, carol, organiser):
    first = checkin.check_in(carol, organiser)
    assert first.changed
    other_volunteer = UserFactory(username="door2")
    grant(tournament, other_volunteer, "organiser")
    audit_before = AuditEntry.objects.count()
    second = checkin.check_in(carol, other_volunteer)
    assert not second.changed
    carol.refresh_from_db()
    assert carol.checked_in_at == first.player.checked_in_at
    assert carol.checked_in_by == organiser
    hhmm = timezone.localtime(carol.checked_in_at).strftime("%H:%M")
    assert second.message == f"Carol Hill was already checked in at {hhmm}."
    assert AuditEntry.objects.count() == audit_before

    response = desk.post(url("checkin-player", tournament, carol.pk), headers=HTMX)
    assert f"already checked in at {hhmm}" in response.content.decode()
    assert count_in(response.content.decode(), "checked-in") == 1


def test_undo_of_a_player_not_checked_in_changes_nothing(tournament, carol, organiser):
    before = snapshot()
    outcome = checkin.undo_check_in(carol, organiser)
    assert not outcome.changed and "not checked in" in outcome.message
    assert snapshot() == before


def test_withdrawn_player_refused(desk, tournament, carol, organiser):
    carol.status = Player.Status.WITHDRAWN
    carol.save()
    before = snapshot()
    with pytest.raises(UserFacingError, match="withdrawn"):
        checkin.check_in(carol, organiser)
    response = desk.post(url("checkin-player", tournament, carol.pk), headers=HTMX)
    assert response.status_code == 200 and "has withdrawn" in response.content.decode()
    assert snapshot() == before


def test_other_tournaments_player_is_404(desk, tournament):
    stranger = PlayerFactory(tournament=TournamentFactory(), name="Stranger")
    before = snapshot()
    for name in ("checkin-player", "checkin-undo"):
        assert desk.post(url(name, tournament, stranger.pk)).status_code == 404
        assert desk.post(url(name, tournament, stranger.pk), headers=HTMX).status_code == 404
    assert snapshot() == before


def test_closed_check_in_refused_and_nothing_changes(desk, tournament, carol, others, organiser):
    checkin.check_in(others[0], organiser)
    tournament.check_in_open = False
    tournament.save()
    before = snapshot()
    page = desk.get(url("checkin-desk", tournament)).content.decode()
    assert "Check-in is closed" in page
    # The desk offers no button the server would refuse: no check-in, undo or walk-in form.
    search = desk.get(url("checkin-desk", tournament) + "?q=a").content.decode()
    assert others[0].name in search and carol.name in search
    assert url("checkin-player", tournament, carol.pk) not in search
    assert url("checkin-undo", tournament, others[0].pk) not in search
    assert 'id="walk-in-closed"' in search and url("checkin-walk-in", tournament) not in search
    with pytest.raises(UserFacingError, match="Check-in is closed"):
        checkin.check_in(carol, organiser)
    with pytest.raises(UserFacingError, match="Check-in is closed"):
        checkin.undo_check_in(others[0], organiser)
    r1 = desk.post(url("checkin-player", tournament, carol.pk), headers=HTMX)
    r2 = desk.post(url("checkin-undo", tournament, others[0].pk), headers=HTMX)
    r3 = desk.post(url("checkin-walk-in", tournament), {"name": "Late Larry"}, headers=HTMX)
    for response in (r1, r2, r3):
        assert "Check-in is closed" in response.content.decode()
    assert 'value="Late Larry"' in r3.content.decode()
    assert snapshot() == before


def test_check_in_without_javascript_redirects_back_with_a_message(desk, tournament, carol):
    response = desk.post(url("checkin-player", tournament, carol.pk), {"q": "carol h"})
    assert response.status_code == 302
    assert response.url == url("checkin-desk", tournament) + "?q=carol+h"
    body = desk.get(response.url).content.decode()
    assert "Carol Hill checked in at" in body
    assert count_in(body, "checked-in") == 1
    assert url("checkin-undo", tournament, carol.pk) in body


def test_audit_entries_for_check_in_and_undo(tournament, carol, organiser):
    checkin.check_in(carol, organiser)
    checkin.undo_check_in(carol, organiser)
    entries = list(AuditEntry.objects.filter(tournament=tournament).order_by("id"))
    assert [e.action for e in entries] == ["player.checked_in", "player.check_in_undone"]
    for entry in entries:
        assert entry.actor == organiser
        assert entry.target_type == "tournaments.player" and entry.target_id == str(carol.pk)
        assert carol.code in entry.summary
    assert entries[1].data["was_by"] == organiser.username


# Walk-ins ------------------------------------------------------------------------------

WALK_IN = {
    "name": "  Wanda   Walker ",
    "email": "",
    "phone": "555-0101",
    "group_name": "Late Crowd",
    "costume_contest": "on",
}


def test_walk_in_registers_and_checks_in(desk, tournament, organiser):
    response = desk.post(url("checkin-walk-in", tournament), WALK_IN, headers=HTMX)
    assert response.status_code == 200
    player = Player.objects.get(tournament=tournament)
    assert player.name == "Wanda Walker" and player.email == ""
    assert player.source == Player.Source.WALK_IN and player.costume_contest
    assert player.checked_in_at is not None and player.checked_in_by == organiser
    body = response.content.decode()
    assert f'id="walk-in-code">{player.code}<' in body
    assert count_in(body, "checked-in") == 1 and count_in(body, "registered") == 1
    assert 'value="Wanda Walker"' not in body  # a fresh form for the next walk-in
    entry = AuditEntry.objects.get(action="player.registered")
    assert entry.actor == organiser and "Walk-in" in entry.summary


def test_walk_in_without_javascript_shows_the_code_once(desk, tournament):
    response = desk.post(url("checkin-walk-in", tournament), WALK_IN)
    assert response.status_code == 302 and response.url == url("checkin-desk", tournament)
    code = Player.objects.get().code
    assert f'id="walk-in-code">{code}<' in desk.get(response.url).content.decode()
    assert 'id="walk-in-code"' not in desk.get(response.url).content.decode()


def test_walk_in_when_full_refused_and_typed_values_kept(desk, tournament):
    tournament.capacity = 4
    tournament.save()
    PlayerFactory.create_batch(4, tournament=tournament)
    before = snapshot()
    for headers in (HTMX, {}):
        response = desk.post(url("checkin-walk-in", tournament), WALK_IN, headers=headers)
        assert response.status_code == 200
        body = response.content.decode()
        assert f"Sorry, {tournament.name} is full (4 players)." in body
        assert 'value="  Wanda   Walker "' in body and 'value="Late Crowd"' in body
        assert 'value="555-0101"' in body
    assert snapshot() == before


def test_walk_in_with_a_registered_email_refused(desk, tournament, carol):
    before = snapshot()
    response = desk.post(
        url("checkin-walk-in", tournament),
        {**WALK_IN, "email": "Carol.Hill@example.org"},
        headers=HTMX,
    )
    body = response.content.decode()
    assert "carol.hill@example.org is already registered" in body
    assert 'value="Carol.Hill@example.org"' in body and "is-invalid" in body
    assert snapshot() == before


def test_walk_in_needs_a_name(desk, tournament):
    before = snapshot()
    response = desk.post(
        url("checkin-walk-in", tournament), {**WALK_IN, "name": "   "}, headers=HTMX
    )
    assert "is-invalid" in response.content.decode()
    assert snapshot() == before


# Query counts --------------------------------------------------------------------------


def fill(tournament, n):
    tournament.capacity = n + 50
    tournament.save()
    Player.objects.bulk_create(
        Player(
            tournament=tournament,
            name=f"Guest {i:03d}",
            email=f"guest{i}@example.org",
            code=f"G{i:05d}",
            checked_in_at=timezone.now() if i % 3 == 0 else None,
        )
        for i in range(n)
    )


def queries(client, method, target, data=None):
    with CaptureQueriesContext(connection) as ctx:
        response = getattr(client, method)(target, data or {}, headers=HTMX)
    assert response.status_code == 200
    return len(ctx.captured_queries)


# Session, user, profile, tournament, roles, two permission look-ups of the context processor,
# the counts, plus the request's own work (a write's last: the room's change counter); none of
# it grows with the number of players.
MAX_QUERIES = {"desk": 10, "search": 9, "checkin": 14, "walk_in": 21}


@pytest.mark.parametrize("n", [10, 300])
def test_query_count_does_not_grow_with_players(
    n, desk, tournament, organiser, django_assert_max_num_queries
):
    fill(tournament, n)
    player = Player.objects.filter(tournament=tournament, checked_in_at__isnull=True).first()
    requests = [
        ("desk", "get", url("checkin-desk", tournament), {"q": "guest"}),
        ("search", "get", url("checkin-search", tournament), {"q": "guest"}),
        ("search", "get", url("checkin-search", tournament), {"q": ""}),
        ("checkin", "post", url("checkin-player", tournament, player.pk), {"q": "guest"}),
        ("checkin", "post", url("checkin-undo", tournament, player.pk), {"q": "guest"}),
        ("walk_in", "post", url("checkin-walk-in", tournament), {"name": "Wally"}),
    ]
    for kind, method, target, data in requests:
        headers = {} if kind == "desk" else HTMX
        with django_assert_max_num_queries(MAX_QUERIES[kind]):
            response = getattr(desk, method)(target, data, headers=headers)
        assert response.status_code == 200
    assert Player.objects.filter(name="Wally", source=Player.Source.WALK_IN).exists()


def test_query_count_is_the_same_for_10_and_300_players(organiser, client_for):
    client = client_for(organiser)
    measured = []
    for n in (10, 300):
        t = TournamentFactory(organiser=organiser)
        fill(t, n)
        player = Player.objects.filter(tournament=t, checked_in_at__isnull=True).first()
        measured.append(
            (
                queries(client, "get", url("checkin-search", t), {"q": "guest"}),
                queries(client, "post", url("checkin-player", t, player.pk)),
                queries(client, "post", url("checkin-undo", t, player.pk)),
                queries(client, "post", url("checkin-walk-in", t), {"name": "Wally"}),
            )
        )
    assert measured[0] == measured[1]


def test_closed_check_in_offers_the_fee_only_to_players_already_here(
    desk, tournament, carol, others, organiser
):
    """Paying at the desk checks a player in, so with check-in closed the server refuses a
    fee from someone not here yet; a reviewer saw the Cash/Card/Comp buttons offered to a
    no-show all the same. A player already checked in may still pay late."""
    from tests.support.events import charging

    charging(tournament)
    checkin.check_in(others[0], organiser)
    tournament.check_in_open = False
    tournament.save()
    search = desk.get(url("checkin-desk", tournament) + "?q=a").content.decode()
    assert others[0].name in search and carol.name in search
    assert url("checkin-pay", tournament, others[0].pk) in search
    assert url("checkin-pay", tournament, carol.pk) not in search
