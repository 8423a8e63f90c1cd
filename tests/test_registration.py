"""The public registration page: every refusal is clear and changes nothing."""

import re
import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PlayerFactory, TournamentFactory, checked_in, member
from tournaments.models import AuditEntry, Player, Tournament
from tournaments.services.registration import online_closed_reason, taking_registrations
from tournaments.services.rehearsal import rehearse
from tournaments.services.stages import draw_qualifying

pytestmark = pytest.mark.django_db

GOOD = {
    "name": "Carol  Hill",
    "email": "Carol@Example.org",
    "phone": "",
    "group_name": "",
    "costume_contest": "on",
}


def snapshot():
    return (
        list(Player.objects.order_by("pk").values_list("pk", "name", "email", "status")),
        AuditEntry.objects.count(),
    )


def post(client, tournament, **changes):
    return client.post(reverse("register", args=[tournament.slug]), {**GOOD, **changes})


def test_registration_shows_code(client, tournament):
    response = post(client, tournament)
    player = Player.objects.get()
    assert response.status_code == 302
    page = client.get(response.url)
    assert player.code in page.content.decode()
    assert player.name == "Carol Hill" and player.email == "carol@example.org"
    assert player.costume_contest and player.source == "web"
    assert len(player.code) == 6


def test_full_tournament_refused(client, tournament):
    tournament.capacity = 4
    tournament.save()
    PlayerFactory.create_batch(4, tournament=tournament)
    before = snapshot()
    response = post(client, tournament)
    assert response.status_code == 200
    assert "is full" in response.content.decode()
    assert snapshot() == before


def test_withdrawn_players_free_their_place(client, tournament):
    tournament.capacity = 4
    tournament.save()
    players = PlayerFactory.create_batch(4, tournament=tournament)
    players[0].status = Player.Status.WITHDRAWN
    players[0].save()
    assert post(client, tournament).status_code == 302


def test_closed_registration_refused(client, tournament):
    tournament.registration_open = False
    tournament.save()
    before = snapshot()
    assert (
        "Registration for this tournament is closed"
        in client.get(reverse("register", args=[tournament.slug])).content.decode()
    )
    response = post(client, tournament)
    assert "closed" in response.content.decode()
    assert snapshot() == before


def test_the_public_form_closes_when_the_pods_are_drawn(client, tournament, organiser):
    """Registration left ticked must not take a sign-up for a game already under way: it
    would get no seat, only a no-show mark. The home page stops listing it too."""
    checked_in(tournament, 12)
    assert tournament.slug in client.get(reverse("home")).content.decode()
    draw_qualifying(tournament, actor=organiser)
    tournament.refresh_from_db()
    assert tournament.registration_open
    before = snapshot()
    closed = "Registration closed when the games began: the pods are drawn."
    for name in ("tournament-public", "register"):
        page = client.get(reverse(name, args=[tournament.slug])).content.decode()
        assert closed in page
        assert "Join the waitlist" not in page and 'method="post"' not in page
    response = post(client, tournament)
    assert response.status_code == 200 and closed in response.content.decode()
    assert snapshot() == before
    assert (
        reverse("register", args=[tournament.slug])
        not in client.get(reverse("home")).content.decode()
    )


def test_the_home_page_sends_players_at_tonights_event_to_the_seat_finder(
    client, tournament, organiser, django_assert_max_num_queries
):
    """A reviewer at the venue opened the site on a phone once the pods were drawn and found
    only "No tournament is taking registrations right now": nothing led to a seat."""
    seat_finder = reverse("seat-finder", args=[tournament.slug])
    checked_in(tournament, 12)
    assert seat_finder not in client.get(reverse("home")).content.decode()  # a month away
    tournament.date = timezone.localdate()
    tournament.save(update_fields=["date"])
    page = client.get(reverse("home")).content.decode()
    assert page.count(seat_finder) == 1 and 'id="tonight"' not in page  # still registering
    draw_qualifying(tournament, actor=organiser)
    with django_assert_max_num_queries(3):
        page = client.get(reverse("home")).content.decode()
    tonight = page[page.index('id="tonight"') :]
    assert tournament.name in tonight and f'href="{seat_finder}">Find your seat</a>' in tonight
    assert reverse("register", args=[tournament.slug]) not in page
    assert "No tournament is taking registrations right now." in page
    TournamentFactory(name="Next month", organiser=organiser)
    page = client.get(reverse("home")).content.decode()
    tonight = page[page.index('id="tonight"') : page.index("</section>")]
    assert tournament.name in tonight and "Next month" not in tonight


def test_an_event_played_to_the_end_tonight_offers_its_results_not_seats(client):
    """Once the grand prize is won nobody looks for a seat: the card leads to the results
    (when published) and each player's own card."""
    finished = rehearse(players=24, preset="mesquite", seed=3).tournament
    Tournament.objects.filter(pk=finished.pk).update(
        date=timezone.localdate(), standings_public=True
    )
    page = client.get(reverse("home")).content.decode()
    tonight = page[page.index('id="tonight"') : page.index("</section>")]
    assert reverse("results", args=[finished.slug]) in tonight
    assert reverse("my-card", args=[finished.slug]) in tonight
    assert reverse("seat-finder", args=[finished.slug]) not in tonight


def test_the_same_form_sent_twice_leads_to_the_first_confirmation(client, tournament):
    """Walks: a double tap (on a slow network the second tap leaves before the first answer
    sets any cookie) or back-and-send-again answered "already registered" and the player
    never saw their code. The drawn form's key finds the registration it made; a form drawn
    afresh, or another browser, is still refused, so nobody reads a code by typing an e-mail."""
    key = str(uuid.uuid4())
    first = post(client, tournament, idempotency_key=key)
    assert first.status_code == 302
    before = snapshot()
    again = post(Client(), tournament, idempotency_key=key)  # no cookie from the first
    assert again.status_code == 302 and again.url == first.url
    assert snapshot() == before
    code = Player.objects.get().code
    assert code in client.get(again.url).content.decode()
    # Another registration from the same browser, then back to the first form: still its own.
    second = post(client, tournament, email="bo@example.org", idempotency_key=str(uuid.uuid4()))
    assert post(client, tournament, idempotency_key=key).url == first.url != second.url
    stranger = post(Client(), tournament, idempotency_key=str(uuid.uuid4()))
    assert stranger.status_code == 200 and "already registered" in stranger.content.decode()
    assert code not in stranger.content.decode()
    garbled = post(Client(), tournament, email="cy@example.org", idempotency_key="x")
    assert "This page is out of date: reload it." in garbled.content.decode()


def test_duplicate_email_refused_case_insensitively(client, tournament):
    PlayerFactory(tournament=tournament, email="carol@example.org")
    before = snapshot()
    response = post(client, tournament, email="CAROL@example.org")
    assert response.status_code == 200
    assert "already registered" in response.content.decode()
    assert snapshot() == before


def test_missing_name_refused_and_other_fields_kept(client, tournament):
    before = snapshot()
    response = post(client, tournament, name="   ", group_name="Dice Divas")
    body = response.content.decode()
    assert response.status_code == 200
    assert "This field is required" in body or "Please give your name" in body
    assert 'value="Dice Divas"' in body  # what was typed is not lost
    assert snapshot() == before


def test_bad_email_refused(client, tournament):
    before = snapshot()
    response = post(client, tournament, email="not-an-email")
    assert "valid email" in response.content.decode()
    assert snapshot() == before


def test_confirmation_link_cannot_be_forged(client, tournament):
    player = PlayerFactory(tournament=tournament)
    url = reverse("register-done", args=[tournament.slug, f"{player.pk}:forged"])
    assert client.get(url).status_code == 404


def test_contact_fields_open_the_right_keyboard_and_autofill(client, tournament, organiser):
    """A player's own form offers their saved name, e-mail and phone; the organiser's forms,
    where someone else's details are typed, keep the right keyboards but offer nothing."""
    page = client.get(reverse("register", args=[tournament.slug])).content.decode()
    assert re.search(r'<input type="email" name="email"[^>]*autocomplete="email"', page)
    assert re.search(r'<input type="tel" name="phone"[^>]*autocomplete="tel"', page)
    assert re.search(r'<input type="text" name="name"[^>]*autocomplete="name"', page)
    client.force_login(organiser)
    for name in ("player-add", "checkin-desk"):
        page = client.get(reverse(name, args=[tournament.slug])).content.decode()
        assert re.search(r'<input type="email" name="email"[^>]*autocomplete="off"', page), name
        assert re.search(r'<input type="tel" name="phone"[^>]*autocomplete="off"', page), name


def test_with_emails_off_nobody_is_promised_one(
    client, client_for, tournament, organiser, settings
):
    """E-mail is off on a venue laptop: the form offers no e-mail to each friend, the
    confirmation says to keep the code, and only the organiser (who can have it turned on)
    reads about it on the dashboard."""
    settings.EMAIL_ENABLED = False
    tournament.party_size_max = 3
    tournament.save()
    form = client.get(reverse("register", args=[tournament.slug])).content.decode()
    assert 'name="email_each"' not in form
    done = client.get(post(client, tournament).url).content.decode()
    assert "No e-mail is sent for this event: write the code down" in done
    dashboard = reverse("tournament-dashboard", args=[tournament.slug])
    assert 'id="emails-off"' in client_for(organiser).get(dashboard).content.decode()
    staff = member(tournament, "staff", "table-staff")
    assert 'id="emails-off"' not in client_for(staff).get(dashboard).content.decode()


@pytest.mark.parametrize(
    "state, said",
    [
        ("open", ""),
        ("unticked", "Registration for this tournament is closed."),
        ("past closing time", "Registration for this tournament closed at its closing time."),
        ("drawn", "Registration closed when the games began: the pods are drawn."),
        ("drawn and unticked", "Registration for this tournament is closed."),
    ],
)
def test_the_form_and_the_home_list_read_one_rule(state, said, tournament, organiser):
    """The reason the form gives and the home page's list of events taking sign-ups come from
    the same conditions (`closing_conditions`): an event is listed exactly when the form
    has nothing to say against it."""
    if "drawn" in state:
        checked_in(tournament, 12)
        draw_qualifying(tournament, actor=organiser)
    if "unticked" in state:
        Tournament.objects.filter(pk=tournament.pk).update(registration_open=False)
    if state == "past closing time":
        closes = timezone.now() - timedelta(minutes=1)
        Tournament.objects.filter(pk=tournament.pk).update(registration_closes_at=closes)
    assert online_closed_reason(tournament) == said
    listed = taking_registrations(Tournament.objects.all())
    assert listed.filter(pk=tournament.pk).exists() == (said == "")


def test_the_dashboard_says_registration_closed_once_the_pods_are_drawn(
    tournament, organiser, client_for
):
    """A reviewer read "Registration is open" and a "Close registration" button on the
    dashboard of the mid-game and the finished demo events, whose public form said closed."""
    client = client_for(organiser)
    dashboard = reverse("tournament-dashboard", args=[tournament.slug])

    def switch():
        page = client.get(dashboard).content.decode()
        return page.split('id="switch-registration"')[1].split('<div class="col-md-6">')[0]

    assert "open</span>" in switch() and "Close registration" in switch()
    checked_in(tournament, 12)
    draw_qualifying(tournament, actor=organiser)
    card = switch()
    assert "closed</span>" in card and "Close registration" not in card
    assert "Registration closed when the games began: the pods are drawn." in card
