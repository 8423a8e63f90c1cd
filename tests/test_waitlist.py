"""The waitlist: who is offered it, who gets a freed place, and the organiser's list."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PlayerFactory, checked_in, drawn_stage
from tests.support.web import settings_data
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, Player, RosterChange
from tournaments.services import waitlist
from tournaments.services.players import withdraw
from tournaments.services.registration import Registrant, register_party

pytestmark = pytest.mark.django_db


@pytest.fixture
def full(tournament):
    tournament.capacity = 4
    tournament.save()
    return PlayerFactory.create_batch(4, tournament=tournament)


def wait(tournament, *names):
    return [
        register_party(tournament, [Registrant(n, f"{n.lower()}@example.org")], waitlist_ok=True)[0]
        for n in names
    ]


def snapshot():
    return (
        list(Player.objects.order_by("pk").values_list("pk", "status", "waitlist_position")),
        AuditEntry.objects.count(),
    )


def test_full_event_offers_the_waitlist_before_the_form(client, tournament, full):
    public = client.get(reverse("tournament-public", args=[tournament.slug])).content.decode()
    assert "The tournament is full" in public and "Join the waitlist" in public
    form = client.get(reverse("register", args=[tournament.slug])).content.decode()
    # Full, the button is the yes: it sends the waitlist's field, with no box to tick too.
    assert re.search(
        r'<button[^>]*type="submit" name="join_waitlist" value="on">Join the waitlist</button>',
        form,
    )
    assert "Put me (and my party) on the waitlist" not in form


def test_joining_the_waitlist_from_the_form(client, tournament, full):
    # What the full form's "Join the waitlist" button sends.
    data = {"name": "Wendy Wait", "email": "wendy@example.org", "join_waitlist": "on"}
    response = client.post(reverse("register", args=[tournament.slug]), data)
    assert response.status_code == 302
    wendy = Player.objects.get(name="Wendy Wait")
    assert wendy.status == Player.Status.WAITLISTED and wendy.waitlist_position == 1
    done = client.get(response.url).content.decode()
    assert "on the waitlist" in done and "You have no place yet." in done
    assert "finds your seat" not in done


def test_waitlisted_email_cannot_register_twice(tournament, full):
    wait(tournament, "Wendy")
    before = snapshot()
    with pytest.raises(Exception, match="already registered"):
        register_party(tournament, [Registrant("W2", "WENDY@example.org")], waitlist_ok=True)
    assert snapshot() == before


def test_newcomers_queue_behind_the_waitlist(tournament, full):
    first, second = wait(tournament, "First", "Second")
    tournament.capacity = 5  # raised without promoting (as a script might)
    tournament.save()
    (late,) = wait(tournament, "Late")
    assert late.status == Player.Status.WAITLISTED and late.waitlist_position == 3


def test_withdrawal_promotes_the_first_in_line(tournament, full, organiser):
    first, second = wait(tournament, "First", "Second")
    withdraw(full[0], actor=organiser)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == Player.Status.REGISTERED and first.promoted_at
    assert second.status == Player.Status.WAITLISTED
    entry = AuditEntry.objects.get(action="player.promoted")
    assert entry.target_id == str(first.pk) and entry.actor == organiser


def test_raising_the_capacity_promotes(client_for, tournament, full, organiser):
    first, second, third = wait(tournament, "First", "Second", "Third")
    tournament.refresh_from_db()
    response = client_for(organiser).post(
        reverse("tournament-edit", args=[tournament.slug]), settings_data(tournament, capacity=6)
    )
    assert response.status_code == 302
    assert [Player.objects.get(pk=p.pk).status for p in (first, second, third)] == [
        "registered",
        "registered",
        "waitlisted",
    ]
    desk = client_for(organiser).get(reverse("checkin-desk", args=[tournament.slug]))
    body = desk.content.decode()
    assert "From the waitlist: tell them" in body and first.code in body


def test_organiser_reorders_the_list_audited(client_for, tournament, full, organiser):
    a, b, c = wait(tournament, "Ann", "Bea", "Cid")
    client = client_for(organiser)
    page = client.get(reverse("waitlist", args=[tournament.slug])).content.decode()
    assert page.index("Ann") < page.index("Bea") < page.index("Cid")
    before = snapshot()
    for bad in ({}, {"to": "first"}, {"to": "0"}, {"to": "1.5"}):
        response = client.post(reverse("waitlist-move", args=[tournament.slug, c.pk]), bad)
        assert response.status_code == 302
        assert snapshot() == before
    assert "whole number" in client.get(response.url).content.decode()
    client.post(reverse("waitlist-move", args=[tournament.slug, c.pk]), {"to": "1"})
    order = list(waitlist.queue(tournament).values_list("name", flat=True))
    assert order == ["Cid", "Ann", "Bea"]
    entry = AuditEntry.objects.get(action="waitlist.moved")
    assert entry.data == {"from": 3, "to": 1} and entry.actor == organiser
    withdraw(full[0], actor=organiser)
    assert Player.objects.get(pk=c.pk).status == Player.Status.REGISTERED


def test_staff_cannot_see_or_reorder_the_waitlist(client_for, tournament, full, staff_user):
    (a,) = wait(tournament, "Ann")
    client = client_for(staff_user)
    assert client.get(reverse("waitlist", args=[tournament.slug])).status_code == 403
    before = snapshot()
    url = reverse("waitlist-move", args=[tournament.slug, a.pk])
    assert client.post(url, {"to": "1"}).status_code == 403
    assert snapshot() == before


def test_walk_in_from_the_waitlist_takes_a_ghost_seat(client_for, tournament, organiser):
    tournament.capacity = 10
    tournament.save()
    checked_in(tournament, 10)
    (wendy,) = wait(tournament, "Wendy")  # before the draw: the public form closes with it
    stage = drawn_stage(tournament, organiser, players=0)  # the ten: two ghost seats
    client = client_for(organiser)
    assert "ghost seat" in client.get(reverse("waitlist", args=[tournament.slug])).content.decode()
    response = client.post(reverse("waitlist-seat", args=[tournament.slug, wendy.pk]))
    assert response.status_code == 302
    assert "takes a ghost seat" in client.get(response.url).content.decode()
    wendy.refresh_from_db()
    assert wendy.status == Player.Status.REGISTERED and wendy.checked_in_at <= timezone.now()
    assert RosterChange.objects.get(player=wendy, kind="join").pod.stage == stage
    assert AuditEntry.objects.filter(action="stage.player_joined", target_id=str(wendy.pk))


def test_the_ghost_seat_button_shows_only_while_a_ghost_seat_is_free(
    client_for, tournament, organiser
):
    """The page offered "Here now: check in to a ghost seat" with every seat taken, and the
    tap was refused. It now says how many ghost seats are free, from which round, as the
    stage page counts them, and offers the button only while one is."""
    from tournaments.services.stages import player_leaves

    tournament.capacity = 10
    tournament.save()
    checked_in(tournament, 10)
    wendy, xena, yola = wait(tournament, "Wendy", "Xena", "Yola")
    stage = drawn_stage(tournament, organiser, players=0)  # round 1 open, two ghost seats
    client = client_for(organiser)
    page_url = reverse("waitlist", args=[tournament.slug])

    def page():
        body = client.get(page_url).content.decode()
        note = re.sub(r"<[^>]+>", "", body.split('id="ghost-seats"')[1].split("</p>")[0])
        return note, body.count("Here now: check in to a ghost seat")

    note, buttons = page()
    assert "2 ghost seats free from round 2." in note and buttons == 3
    for player in (wendy, xena):
        client.post(reverse("waitlist-seat", args=[tournament.slug, player.pk]))
    note, buttons = page()
    assert "No ghost seat is free from round 2: every seat has a player." in note
    assert "stage page" in note and buttons == 0
    player_leaves(stage, wendy, actor=organiser)
    note, buttons = page()
    assert "1 ghost seat free from round 2." in note and buttons == 1
    assert yola.pk and Player.objects.get(pk=yola.pk).status == Player.Status.WAITLISTED


def test_a_place_offered_to_the_waitlist_is_not_given_to_a_walk_in(tournament, organiser):
    """Ann was offered the freed place and has until tomorrow to accept: the desk must not
    give it away meanwhile, and says why the room is full. Once her offer lapses, it may."""
    from tournaments.services.checkin import walk_in

    tournament.capacity = 3
    tournament.check_in_open = True
    tournament.save()
    PlayerFactory.create_batch(2, tournament=tournament)
    ann = PlayerFactory(
        tournament=tournament,
        status=Player.Status.WAITLISTED,
        waitlist_position=1,
        offer_expires_at=timezone.now() + timezone.timedelta(hours=12),
    )
    before = snapshot()
    with pytest.raises(UserFacingError) as refused:
        walk_in(tournament, Registrant("Walk In"), actor=organiser)
    assert "is full" in refused.value.message
    assert "1 of the places is held for the waitlist" in refused.value.message
    assert snapshot() == before
    Player.objects.filter(pk=ann.pk).update(
        offer_expires_at=timezone.now() - timezone.timedelta(minutes=1)
    )
    assert walk_in(tournament, Registrant("Walk In"), actor=organiser).status == "registered"


def test_a_party_bigger_than_the_places_left_is_told_so(tournament):
    """A walk read "Sorry, … is full (1 place left)" for a party of three: full and a place
    left at once. The refusal says how many places are left against the party's size."""
    tournament.capacity = 4
    tournament.save()
    PlayerFactory.create_batch(3, tournament=tournament)
    party = [Registrant(n, f"{n.lower()}@example.org") for n in ("Ann", "Bea", "Cid")]
    with pytest.raises(UserFacingError) as refused:
        register_party(tournament, party)
    assert refused.value.message == (
        f"Sorry, {tournament.name} has only 1 place left, and this party has 3 players. "
        "Tick “Put me on the waitlist” to wait for a freed place."
    )
    assert tournament.players.count() == 3
