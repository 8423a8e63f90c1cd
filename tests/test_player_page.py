"""A player's own page: their status, seat, card and prizes; cancelling; a note to the staff.

Opened only by the signed link; shows nobody else's e-mail or phone.
"""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.support.events import awarded_directly, full_with_waitlist, seated_final
from tests.support.factories import PlayerFactory, drawn_stage
from tournaments.models import AuditEntry, CardProblem, Party, Player
from tournaments.services import waitlist
from tournaments.services.player_links import player_page_path, player_token
from tournaments.services.registration import Registrant, register_party

pytestmark = pytest.mark.django_db


def page(client, player):
    return client.get(player_page_path(player, player.tournament.slug))


def action(client, player, name, data):
    url = reverse(name, args=[player.tournament.slug, player.code, player_token(player)])
    return client.post(url, data)


def state():
    return (
        list(Player.objects.order_by("pk").values_list("pk", "status", "waitlist_position")),
        CardProblem.objects.count(),
        AuditEntry.objects.count(),
    )


def test_the_page_shows_the_code_and_status(client, tournament):
    player = PlayerFactory(tournament=tournament, name="Carol Hill")
    body = page(client, player).content.decode()
    assert "Carol Hill" in body and player.code in body
    assert "Registered." in body
    assert '<svg class="player-qr"' in body and "style=" not in body.split("<main")[-1]


@pytest.mark.parametrize(
    "change",
    [
        lambda code, token: (code, token[:-1] + ("A" if token[-1] != "A" else "B")),
        lambda code, token: (code[:-1] + ("Z" if code[-1] != "Z" else "Y"), token),
        lambda code, token: (code, ""),
        lambda code, token: (code.lower() + "x", token),
    ],
)
def test_a_tampered_link_is_not_found(client, tournament, change):
    player = PlayerFactory(tournament=tournament)
    PlayerFactory(tournament=tournament)
    code, token = change(player.code, player_token(player))
    if not token:
        token = "x"
    url = reverse("player-page", args=[tournament.slug, code, token])
    assert client.get(url).status_code == 404
    assert action(client, player, "player-page", {}).status_code == 405  # GET only


def test_a_link_of_another_tournament_is_not_found(client, tournament):
    from tests.support.factories import TournamentFactory

    player = PlayerFactory(tournament=tournament)
    other = TournamentFactory()
    url = reverse("player-page", args=[other.slug, player.code, player_token(player)])
    assert client.get(url).status_code == 404


def test_never_another_players_email_or_phone(client, tournament):
    booker, friend = register_party(
        tournament,
        [
            Registrant("Ann Booker", "ann@example.org", phone="555-0100"),
            Registrant("Bea Friend", "bea@example.org", phone="555-0199"),
        ],
    )
    Player.objects.filter(pk=friend.pk).update(phone="555-0199")
    body = page(client, booker).content.decode()
    assert "Bea Friend" in body  # the party is listed by name
    assert "bea@example.org" not in body and "555-0199" not in body
    assert "ann@example.org" not in body  # not even one's own: the link may be shared


def test_waitlisted_with_position(client, tournament):
    tournament.capacity = 4
    tournament.save()
    PlayerFactory.create_batch(4, tournament=tournament)
    first = register_party(tournament, [Registrant("W One", "w1@example.org")], waitlist_ok=True)
    second = register_party(tournament, [Registrant("W Two", "w2@example.org")], waitlist_ok=True)
    assert first[0].status == second[0].status == Player.Status.WAITLISTED
    assert "number 2 in line" in page(client, second[0]).content.decode()


def test_seat_and_partner_after_the_draw(client, tournament, organiser):
    stage = drawn_stage(tournament, organiser, players=12, names=["Carol Hill"])
    carol = Player.objects.get(name="Carol Hill")
    body = page(client, carol).content.decode()
    seat = stage.rounds.get(number=1).seats.get(player=carol)
    assert f"Pod {seat.pod.number}, table {seat.table}, seat {seat.seat}" in body
    assert "Partner:" in body
    assert "Cancel my registration" not in body  # the event has started


def test_cancel_before_the_event_gives_the_place_to_the_first_waitlisted(client, tournament):
    playing, (first, second) = full_with_waitlist(tournament, "first", "second")
    before = state()
    assert action(client, playing[0], "player-cancel", {}).status_code == 302  # no tick
    assert state() == before
    response = action(client, playing[0], "player-cancel", {"confirm": "yes"})
    assert response.status_code == 302
    playing[0].refresh_from_db()
    first.refresh_from_db()
    second.refresh_from_db()
    assert playing[0].status == Player.Status.WITHDRAWN
    assert first.status == Player.Status.REGISTERED and first.promoted_at is not None
    assert second.status == Player.Status.WAITLISTED
    assert "Cancelled." in page(client, playing[0]).content.decode()
    # A second tap promotes nobody more.
    action(client, playing[0], "player-cancel", {"confirm": "yes"})
    second.refresh_from_db()
    assert second.status == Player.Status.WAITLISTED
    assert AuditEntry.objects.filter(action="player.promoted").count() == 1


def test_cancel_refused_once_the_event_started(client, tournament, organiser):
    drawn_stage(tournament, organiser, players=12, names=["Carol Hill"])
    carol = Player.objects.get(name="Carol Hill")
    before = state()
    response = action(client, carol, "player-cancel", {"confirm": "yes"})
    assert response.status_code == 302
    assert state() == before
    assert "The event has started" in client.get(response.url).content.decode()


def test_card_problem_reaches_the_pods_staff(client, client_for, tournament, organiser):
    stage = drawn_stage(tournament, organiser, players=12, names=["Carol Hill"])
    carol = Player.objects.get(name="Carol Hill")
    pod = stage.rounds.get(number=1).seats.get(player=carol).pod
    before = state()
    for bad in ({}, {"message": "   "}, {"message": "x" * 501}):
        response = action(client, carol, "player-card-problem", bad)
        assert response.status_code == 400
        assert "Please" in response.content.decode() or "at most" in response.content.decode()
    assert state() == before
    response = action(client, carol, "player-card-problem", {"message": "Round 4 was a win"})
    assert response.status_code == 302
    note = CardProblem.objects.get()
    assert note.pod == pod and note.player == carol
    cards = client_for(organiser).get(reverse("pod-cards", args=[tournament.slug, pod.number]))
    body = cards.content.decode()
    assert "Players flagged a problem" in body and "Round 4 was a win" in body


def test_as_many_as_fit_and_the_party_listed_with_status(client, tournament):
    tournament.capacity = 5
    tournament.party_fit = "as_many"
    tournament.save()
    PlayerFactory.create_batch(3, tournament=tournament)
    members = register_party(
        tournament,
        [Registrant("Ann", "ann@example.org"), Registrant("Bea"), Registrant("Cid")],
        waitlist_ok=True,
    )
    assert [m.status for m in members] == ["registered", "registered", "waitlisted"]
    assert Party.objects.get().members.count() == 3
    body = page(client, members[0]).content.decode()
    assert "Cid: on the waitlist" in body
    assert waitlist.position_of(members[2]) == 1


PLAYER_PAGE_QUERIES = 17  # measured (a party member): the same for 24 and 240 players


@pytest.mark.parametrize("players", [24, 240])
def test_the_page_runs_a_fixed_number_of_queries(players, client, django_assert_max_num_queries):
    from tournaments.services.rehearsal import rehearse

    r = rehearse(players=players, preset="classic", seed=2, stop_after_round=2)
    player = r.tournament.players.filter(status="registered").order_by("pk").first()
    with django_assert_max_num_queries(PLAYER_PAGE_QUERIES):
        body = page(client, player).content.decode()
    assert player.name in body and "Partner:" in body


def test_a_prize_awarded_again_to_someone_else_leaves_the_players_page(client, tournament):
    """Awarding again supersedes the earlier awards (kept, not deleted): the player's page
    listed them still, telling a player to collect a prize that went to someone else."""
    player = PlayerFactory(tournament=tournament)
    (award,) = awarded_directly(tournament, [player], cents=25_00)
    assert "Most Buncos: $25.00" in page(client, player).content.decode()
    award.superseded_at = timezone.now()
    award.save()
    body = page(client, player).content.decode()
    assert "Most Buncos" not in body and 'id="my-prizes"' not in body


def test_a_finalists_page_names_their_final_seat_and_the_grand_prize():
    """A walk opened the grand prize winner's own page: it said nothing of the final."""
    event, final = seated_final()
    seat = final.seats.select_related("player").get(seat=2)
    body = page(Client(), seat.player).content.decode()
    assert 'id="my-final"' in body and "Your seat at the final table: seat 2 (" in body
    assert "grand prize" not in body
    final.winner = seat.player
    final.save()
    assert "You won the grand prize!" in page(Client(), seat.player).content.decode()
    other = final.seats.select_related("player").get(seat=3).player
    assert f"{seat.player.name} won the grand prize." in page(Client(), other).content.decode()
