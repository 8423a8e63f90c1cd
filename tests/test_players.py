"""The organiser's player pages: who may do what, search, edit, withdraw and reinstate."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PlayerFactory, TournamentFactory
from tournaments.models import AuditEntry, Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def player(tournament):
    return PlayerFactory(
        tournament=tournament,
        name="Carol Hill",
        email="carol@example.org",
        phone="555-0100",
        group_name="Dice Divas",
    )


def snapshot():
    return (
        list(
            Player.objects.order_by("pk").values_list(
                "pk", "name", "email", "phone", "group_name", "costume_contest", "status"
            )
        ),
        AuditEntry.objects.count(),
    )


def url(name, tournament, player=None):
    args = [tournament.slug] + ([player.pk] if player is not None else [])
    return reverse(name, args=args)


LIST_AND_EXPORT = ["player-list", "player-export"]
MANAGE_ONLY = ["player-add", "player-import", "player-import-template"]
MANAGE_PLAYER = ["player-edit", "player-withdraw", "player-reinstate"]
EVERY_URL = LIST_AND_EXPORT + MANAGE_ONLY + MANAGE_PLAYER
EDIT_POST = {"name": "Hacked", "email": "x@example.org", "reason": "no", "costume_contest": "on"}


def target(name, tournament, player):
    return url(name, tournament, player if name in MANAGE_PLAYER else None)


# --- permissions ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", EVERY_URL)
def test_staff_gets_403_on_every_url_on_get_and_post(
    name, tournament, player, staff_user, client_for
):
    client = client_for(staff_user)
    before = snapshot()
    assert client.get(target(name, tournament, player)).status_code == 403
    assert client.post(target(name, tournament, player), EDIT_POST).status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("name", MANAGE_ONLY + MANAGE_PLAYER)
def test_admin_gets_403_on_changes_on_get_and_post(
    name, tournament, player, admin_user, client_for
):
    client = client_for(admin_user)
    before = snapshot()
    assert client.get(target(name, tournament, player)).status_code == 403
    assert client.post(target(name, tournament, player), EDIT_POST).status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("name", EVERY_URL)
def test_anonymous_is_sent_to_login(name, tournament, player, client):
    before = snapshot()
    for response in (
        client.get(target(name, tournament, player)),
        client.post(target(name, tournament, player), EDIT_POST),
    ):
        assert response.status_code == 302
        assert response.url.startswith(reverse("login"))
    assert snapshot() == before


def test_organiser_of_another_tournament_is_refused(tournament, player, client_for):
    from tests.support.factories import OrganiserFactory

    other = OrganiserFactory()
    TournamentFactory(organiser=other)
    client = client_for(other)
    assert client.get(url("player-list", tournament)).status_code == 403
    assert client.post(url("player-withdraw", tournament, player)).status_code == 403


def test_admin_lists_read_only_with_emails_but_without_phones(
    tournament, player, admin_user, client_for
):
    response = client_for(admin_user).get(url("player-list", tournament))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Carol Hill" in body and "carol@example.org" in body and player.code in body
    assert "555-0100" not in body
    assert url("player-edit", tournament, player) not in body
    assert url("player-add", tournament) not in body
    assert url("player-import", tournament) not in body
    assert url("player-export", tournament) in body


def test_organiser_list_has_edit_buttons_and_phones(tournament, player, organiser, client_for):
    body = client_for(organiser).get(url("player-list", tournament)).content.decode()
    assert url("player-edit", tournament, player) in body
    assert "555-0100" in body
    assert url("player-add", tournament) in body


def test_public_pages_never_show_emails(tournament, player, client):
    for name in ("tournament-public", "register"):
        body = client.get(reverse(name, args=[tournament.slug])).content.decode()
        assert "carol@example.org" not in body


def test_player_of_another_tournament_is_404(tournament, organiser, client_for):
    stranger = PlayerFactory(tournament=TournamentFactory())
    client = client_for(organiser)
    assert client.get(url("player-edit", tournament, stranger)).status_code == 404
    assert client.post(url("player-withdraw", tournament, stranger)).status_code == 404
    assert Player.objects.get(pk=stranger.pk).status == Player.Status.REGISTERED


def test_withdraw_and_reinstate_are_post_only(tournament, player, organiser, client_for):
    client = client_for(organiser)
    assert client.get(url("player-withdraw", tournament, player)).status_code == 405
    assert client.get(url("player-reinstate", tournament, player)).status_code == 405
    assert Player.objects.get(pk=player.pk).status == Player.Status.REGISTERED


# --- the list -------------------------------------------------------------------------------


@pytest.fixture
def crowd(tournament):
    now = timezone.now()
    people = {
        "carol": PlayerFactory(
            tournament=tournament,
            name="Carol Hill",
            email="carol.h@example.org",
            group_name="Dice Divas",
            checked_in_at=now,
        ),
        "dee": PlayerFactory(
            tournament=tournament, name="Dee Door", email="dee@roller.net", group_name="Dice Divas"
        ),
        "sam": PlayerFactory(tournament=tournament, name="Sam Roll", email="sam@example.org"),
        "wendy": PlayerFactory(
            tournament=tournament,
            name="Wendy Gone",
            email="wendy@example.org",
            status=Player.Status.WITHDRAWN,
        ),
    }
    return people


def listed(client, tournament, **params):
    response = client.get(url("player-list", tournament), params)
    assert response.status_code == 200
    return {p.name for p in response.context["players"]}


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("caro", {"Carol Hill"}),  # partial name
        ("HILL", {"Carol Hill"}),  # case-insensitive
        ("ROLLER.NET", {"Dee Door"}),  # partial e-mail
        ("dice div", {"Carol Hill", "Dee Door"}),  # group, every word must match
        ("divas dee", {"Dee Door"}),  # words across fields
        ("nobody-like-this", set()),
    ],
)
def test_search(q, expected, tournament, crowd, organiser, client_for):
    assert listed(client_for(organiser), tournament, q=q) == expected


def test_search_by_partial_code_any_case(tournament, crowd, organiser, client_for):
    code = crowd["sam"].code
    assert "Sam Roll" in listed(client_for(organiser), tournament, q=code[1:5].lower())


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("", {"Carol Hill", "Dee Door", "Sam Roll", "Wendy Gone"}),
        ("registered", {"Carol Hill", "Dee Door", "Sam Roll"}),
        ("withdrawn", {"Wendy Gone"}),
        ("checked_in", {"Carol Hill"}),
        ("not_arrived", {"Dee Door", "Sam Roll"}),
        ("nonsense", {"Carol Hill", "Dee Door", "Sam Roll", "Wendy Gone"}),
    ],
)
def test_status_filter(status, expected, tournament, crowd, organiser, client_for):
    assert listed(client_for(organiser), tournament, status=status) == expected


def test_search_and_filter_combine(tournament, crowd, organiser, client_for):
    assert listed(client_for(organiser), tournament, q="divas", status="not_arrived") == {
        "Dee Door"
    }


def test_counts_at_the_top(tournament, crowd, organiser, client_for):
    response = client_for(organiser).get(url("player-list", tournament))
    counts = response.context["counts"]
    assert (counts.registered, counts.checked_in, counts.not_arrived, counts.withdrawn) == (
        3,
        1,
        2,
        1,
    )
    body = response.content.decode()
    assert '<div class="stat" id="count-registered">3</div>' in body
    assert f'id="count-capacity-left">{tournament.capacity - 3}</div>' in body


def make_players(tournament, n, start=0):
    Player.objects.bulk_create(
        Player(tournament=tournament, name=f"Player {i:04d}", email=f"p{i}@example.org")
        for i in range(start, start + n)
    )


def test_pagination_50_per_page_keeps_the_search(tournament, organiser, client_for):
    make_players(tournament, 120)
    client = client_for(organiser)
    first = client.get(url("player-list", tournament), {"q": "player"})
    assert len(first.context["players"]) == 50
    assert first.context["paginator"].num_pages == 3
    assert "?q=player&amp;page=2" in first.content.decode()
    last = client.get(url("player-list", tournament), {"q": "player", "page": 3})
    assert [p.name for p in last.context["players"]][-1] == "Player 0119"
    assert len(last.context["players"]) == 20
    # A page number past the end shows the last page instead of an error.
    assert client.get(url("player-list", tournament), {"page": 99}).status_code == 200


def test_query_count_does_not_grow_with_players(
    tournament, organiser, client_for, django_assert_max_num_queries
):
    client = client_for(organiser)
    client.get(url("player-list", tournament))  # warm up: session, content types

    def count_queries():
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url("player-list", tournament), {"q": "player"}).status_code == 200
        return len(ctx.captured_queries)

    make_players(tournament, 10)
    small = count_queries()
    make_players(tournament, 290, start=10)
    with django_assert_max_num_queries(small):
        response = client.get(url("player-list", tournament), {"q": "player"})
    assert len(response.context["players"]) == 50
    assert count_queries() == small
    assert small <= 12  # session, user, tournament, roles, counts, page count, rows…


# --- add ------------------------------------------------------------------------------------

NEW = {
    "name": "  Nina   New ",
    "email": "Nina@Example.org",
    "phone": "555-0199",
    "group_name": "Late Rollers",
    "costume_contest": "on",
}


def test_organiser_adds_player_while_public_registration_is_closed(
    tournament, organiser, client_for
):
    tournament.registration_open = False
    tournament.save()
    response = client_for(organiser).post(url("player-add", tournament), NEW)
    assert response.status_code == 302 and response.url == url("player-list", tournament)
    p = Player.objects.get()
    assert (p.name, p.email, p.phone, p.group_name, p.costume_contest) == (
        "Nina New",
        "nina@example.org",
        "555-0199",
        "Late Rollers",
        True,
    )
    assert p.source == Player.Source.ORGANISER
    entry = AuditEntry.objects.get(action="player.registered")
    assert entry.actor == organiser and entry.target_id == str(p.pk)


def test_add_without_email_and_add_another(tournament, organiser, client_for):
    response = client_for(organiser).post(
        url("player-add", tournament), {**NEW, "email": "", "another": "1"}
    )
    assert response.url == url("player-add", tournament)
    assert Player.objects.get().email == ""


def test_add_refused_when_full_and_input_kept(tournament, organiser, client_for):
    tournament.capacity = 4
    tournament.save()
    PlayerFactory.create_batch(4, tournament=tournament)
    before = snapshot()
    response = client_for(organiser).post(url("player-add", tournament), NEW)
    body = response.content.decode()
    assert response.status_code == 200
    assert "is full" in body
    assert 'value="Late Rollers"' in body
    assert snapshot() == before


def test_add_duplicate_email_refused(tournament, player, organiser, client_for):
    before = snapshot()
    response = client_for(organiser).post(
        url("player-add", tournament), {**NEW, "email": "CAROL@example.org"}
    )
    assert "already registered" in response.content.decode()
    assert snapshot() == before


def test_add_blank_name_refused(tournament, organiser, client_for):
    response = client_for(organiser).post(url("player-add", tournament), {**NEW, "name": "   "})
    assert response.status_code == 200
    assert response.context["form"].errors["name"]
    assert not Player.objects.exists()


# --- edit -----------------------------------------------------------------------------------


def test_edit_page_shows_current_values(tournament, player, organiser, client_for):
    body = client_for(organiser).get(url("player-edit", tournament, player)).content.decode()
    assert 'value="carol@example.org"' in body and 'value="Dice Divas"' in body
    assert url("player-withdraw", tournament, player) in body


def test_edit_saves_and_audits_changed_fields(tournament, player, organiser, client_for):
    response = client_for(organiser).post(
        url("player-edit", tournament, player),
        {
            "name": "Carol  Hill",
            "email": "Carol.New@Example.org",
            "phone": "555-0100",
            "group_name": "Dice Divas",
            "costume_contest": "on",
        },
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.email == "carol.new@example.org" and player.costume_contest
    entry = AuditEntry.objects.get(action="player.edited")
    assert entry.actor == organiser
    assert entry.data["changes"] == {
        "email": ["carol@example.org", "carol.new@example.org"],
        "costume_contest": [False, True],
    }
    assert "e-mail" in entry.summary and "costume contest" in entry.summary


def test_edit_with_no_change_is_not_audited(tournament, player, organiser, client_for):
    client_for(organiser).post(
        url("player-edit", tournament, player),
        {
            "name": "Carol Hill",
            "email": "CAROL@example.org",
            "phone": "555-0100",
            "group_name": "Dice Divas",
        },
    )
    assert not AuditEntry.objects.filter(action="player.edited").exists()


def test_edit_to_taken_email_refused_nothing_changes(tournament, player, organiser, client_for):
    PlayerFactory(tournament=tournament, email="dee@example.org")
    before = snapshot()
    response = client_for(organiser).post(
        url("player-edit", tournament, player),
        {"name": "Carol Renamed", "email": "DEE@example.org", "phone": "", "group_name": ""},
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "dee@example.org is already registered" in body
    assert 'value="Carol Renamed"' in body  # what was typed is kept
    assert snapshot() == before


def test_edit_to_email_of_withdrawn_player_is_allowed(tournament, player, organiser, client_for):
    PlayerFactory(tournament=tournament, email="dee@example.org", status=Player.Status.WITHDRAWN)
    client_for(organiser).post(
        url("player-edit", tournament, player),
        {"name": "Carol Hill", "email": "dee@example.org"},
    )
    player.refresh_from_db()
    assert player.email == "dee@example.org"


def test_editing_a_withdrawn_player_whose_email_was_reused(
    tournament, player, organiser, client_for
):
    """Unchanged e-mail is not re-checked, so the phone of a withdrawn row can be fixed."""
    player.status = Player.Status.WITHDRAWN
    player.save()
    PlayerFactory(tournament=tournament, email="carol@example.org")
    client_for(organiser).post(
        url("player-edit", tournament, player),
        {"name": "Carol Hill", "email": "carol@example.org", "phone": "555-0111"},
    )
    player.refresh_from_db()
    assert player.phone == "555-0111"


# --- withdraw and reinstate ---------------------------------------------------------------


def test_withdraw_frees_the_place_and_the_email(tournament, organiser, client, client_for):
    tournament.capacity = 4
    tournament.save()
    players = PlayerFactory.create_batch(4, tournament=tournament)
    leaving = players[0]
    response = client_for(organiser).post(
        url("player-withdraw", tournament, leaving), {"reason": "Sick child"}
    )
    assert response.status_code == 302
    leaving.refresh_from_db()
    assert leaving.status == Player.Status.WITHDRAWN  # kept, not deleted
    entry = AuditEntry.objects.get(action="player.withdrawn")
    assert entry.data == {"reason": "Sick child"} and "Sick child" in entry.summary
    # The place and the e-mail address can be taken by someone else now.
    response = client.post(
        reverse("register", args=[tournament.slug]), {"name": "Next", "email": leaving.email}
    )
    assert response.status_code == 302
    assert Player.objects.filter(email=leaving.email).count() == 2


def test_withdraw_twice_is_refused_clearly(tournament, player, organiser, client_for):
    player.status = Player.Status.WITHDRAWN
    player.save()
    before = snapshot()
    response = client_for(organiser).post(url("player-withdraw", tournament, player))
    assert response.status_code == 200
    assert "already withdrawn" in response.content.decode()
    assert snapshot() == before


def test_reinstate(tournament, player, organiser, client_for):
    player.status = Player.Status.WITHDRAWN
    player.save()
    response = client_for(organiser).post(
        url("player-reinstate", tournament, player), {"reason": "Came after all"}
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.status == Player.Status.REGISTERED
    assert AuditEntry.objects.get(action="player.reinstated").data == {"reason": "Came after all"}


def test_reinstate_refused_when_full(tournament, player, organiser, client_for):
    tournament.capacity = 4
    tournament.save()
    player.status = Player.Status.WITHDRAWN
    player.save()
    PlayerFactory.create_batch(4, tournament=tournament)
    before = snapshot()
    response = client_for(organiser).post(
        url("player-reinstate", tournament, player), {"reason": "typed reason"}
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "Cannot reinstate Carol Hill" in body and "is full" in body
    assert 'value="typed reason"' in body
    assert snapshot() == before


def test_reinstate_refused_when_email_was_taken_meanwhile(
    tournament, player, organiser, client_for
):
    player.status = Player.Status.WITHDRAWN
    player.save()
    PlayerFactory(tournament=tournament, email="carol@example.org")
    before = snapshot()
    response = client_for(organiser).post(url("player-reinstate", tournament, player))
    body = response.content.decode()
    assert "Cannot reinstate Carol Hill" in body
    assert "carol@example.org is already registered" in body
    assert snapshot() == before
