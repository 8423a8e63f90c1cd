"""Parties: one form registers friends; capacity treats them as the organiser chose; the desk
checks them in with one tap; a costume prize is offered to those who entered the contest."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PlayerFactory
from tournaments.models import AuditEntry, Party, Player, PrizeCategory
from tournaments.services.costume import entrants_only
from tournaments.services.registration import Registrant, register_party

pytestmark = pytest.mark.django_db


def snapshot():
    return (
        list(Player.objects.order_by("pk").values_list("pk", "status")),
        Party.objects.count(),
        AuditEntry.objects.count(),
    )


def form(rows, **extra):
    data = {
        "name": "Ann Booker",
        "email": "ann@example.org",
        "phone": "",
        "group_name": "Dice Divas",
        "member-TOTAL_FORMS": "5",
        "member-INITIAL_FORMS": "0",
        **extra,
    }
    for i, row in enumerate(rows):
        for key, value in row.items():
            data[f"member-{i}-{key}"] = value
    return data


def post(client, tournament, data):
    return client.post(reverse("register", args=[tournament.slug]), data)


def test_a_party_of_three_in_one_form(client, tournament):
    response = post(
        client,
        tournament,
        form(
            [{"name": "Bea"}, {"name": "Cid", "email": "cid@example.org", "costume_contest": "on"}]
        ),
    )
    assert response.status_code == 302
    party = Party.objects.get()
    names = list(party.members.order_by("pk").values_list("name", "group_name", "costume_contest"))
    assert names == [
        ("Ann Booker", "Dice Divas", False),
        ("Bea", "Dice Divas", False),
        ("Cid", "Dice Divas", True),
    ]
    page = client.get(response.url).content.decode()
    for member in party.members.all():
        assert member.code in page


def test_the_form_offers_the_organisers_party_size(client, tournament):
    tournament.party_size_max = 3
    tournament.save()
    body = client.get(reverse("register", args=[tournament.slug])).content.decode()
    assert "up to 2 more" in body and 'name="member-1-name"' in body
    assert 'name="member-2-name"' not in body
    # A friend's row may stay empty, so its name is not marked as required.
    party = body[body.index('id="party"') : body.index("</fieldset>", body.index('id="party"'))]
    assert "asteriskField" not in party and "Leave a row empty for nobody" in party
    assert 'type="tel"' in body and 'autocomplete="tel"' in body


@pytest.mark.parametrize(
    ("rows", "extra", "message"),
    [
        (
            [{"email": "bea@example.org"}],
            {},
            "Please give this player&#x27;s name, or clear the row.",
        ),
        ([{"name": "Bea", "email": "not-mail"}], {}, "valid email"),
        ([{"name": "Bea", "email": "ann@example.org"}], {}, "same e-mail"),
        ([{"name": "B"}] * 6, {"member-TOTAL_FORMS": "6"}, "at most"),
    ],
)
def test_bad_party_input_changes_nothing(client, tournament, rows, extra, message):
    before = snapshot()
    response = post(client, tournament, form(rows, **extra))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert snapshot() == before
    assert 'value="Dice Divas"' in response.content.decode()  # nothing typed is lost


def test_all_or_none_puts_the_whole_party_on_the_waitlist(client, tournament):
    tournament.capacity = 5
    tournament.save()
    PlayerFactory.create_batch(3, tournament=tournament)
    before = snapshot()
    response = post(client, tournament, form([{"name": "Bea"}, {"name": "Cid"}]))
    assert "Put me on the waitlist" in response.content.decode()
    assert snapshot() == before
    post(client, tournament, form([{"name": "Bea"}, {"name": "Cid"}], join_waitlist="on"))
    statuses = list(Party.objects.get().members.order_by("pk").values_list("status", flat=True))
    assert statuses == ["waitlisted"] * 3


def test_registration_closes_at_its_closing_time(client, tournament):
    tournament.registration_closes_at = timezone.now() + datetime.timedelta(hours=1)
    tournament.save()
    public = client.get(reverse("tournament-public", args=[tournament.slug])).content.decode()
    assert "Registration closes" in public and "places left" in public
    tournament.registration_closes_at = timezone.now() - datetime.timedelta(minutes=1)
    tournament.save()
    public = client.get(reverse("tournament-public", args=[tournament.slug])).content.decode()
    assert "closed at its closing time" in public and "Register</a>" not in public
    before = snapshot()
    response = post(client, tournament, form([]))
    assert "closed at its closing time" in response.content.decode()
    assert snapshot() == before


def test_public_page_shows_fee_and_places(client, tournament):
    tournament.entry_fee = 20
    tournament.capacity = 10
    tournament.save()
    PlayerFactory.create_batch(3, tournament=tournament)
    body = client.get(reverse("tournament-public", args=[tournament.slug])).content.decode()
    assert "Entry fee: $20" in body and "7 places left" in body


def test_the_desk_checks_a_party_in_with_one_tap(client_for, tournament, organiser):
    ann, bea, cid = register_party(
        tournament, [Registrant("Ann", "ann@example.org"), Registrant("Bea"), Registrant("Cid")]
    )
    Player.objects.filter(pk=cid.pk).update(status=Player.Status.WITHDRAWN)  # cancelled
    desk = client_for(organiser)
    results = desk.get(reverse("checkin-desk", args=[tournament.slug]), {"q": "Bea"})
    assert "Whole party" in results.content.decode()
    response = desk.post(reverse("checkin-party", args=[tournament.slug, bea.pk]), {"q": "Bea"})
    assert response.status_code == 302
    assert (
        Player.objects.get(pk=ann.pk).checked_in_at and Player.objects.get(pk=bea.pk).checked_in_at
    )
    assert Player.objects.get(pk=cid.pk).checked_in_at is None
    assert AuditEntry.objects.filter(action="player.checked_in").count() == 2
    again = desk.post(reverse("checkin-party", args=[tournament.slug, ann.pk]), follow=True)
    assert "already checked in" in again.content.decode()
    assert AuditEntry.objects.filter(action="player.checked_in").count() == 2


def test_staff_cannot_check_a_party_in(client_for, tournament, staff_user):
    ann, _ = register_party(tournament, [Registrant("Ann", "ann@example.org"), Registrant("Bea")])
    before = snapshot()
    url = reverse("checkin-party", args=[tournament.slug, ann.pk])
    assert client_for(staff_user).post(url).status_code == 403
    assert snapshot() == before


def test_best_costume_offers_the_contest_entrants(tournament):
    entered = PlayerFactory(tournament=tournament, costume_contest=True)
    other = PlayerFactory(tournament=tournament)
    costume = PrizeCategory(tournament=tournament, key="costume", scope="pod")
    most_wins = PrizeCategory(tournament=tournament, key="wins", scope="pod")
    assert entrants_only(costume, {entered.pk, other.pk}) == {entered.pk}
    assert entrants_only(most_wins, {entered.pk, other.pk}) == {entered.pk, other.pk}
    Player.objects.filter(pk=entered.pk).update(costume_contest=False)
    assert entrants_only(costume, {entered.pk, other.pk}) == {entered.pk, other.pk}


def test_the_organiser_sets_party_size_fit_offer_hours_and_closing_time(
    client_for, tournament, organiser
):
    from tests.support.web import settings_data

    client = client_for(organiser)
    url = reverse("tournament-edit", args=[tournament.slug])
    before = snapshot()
    bad = settings_data(tournament, party_size_max="0", registration_closes_at="soon")
    body = client.post(url, bad).content.decode()
    assert "Enter a valid date/time" in body and "greater than or equal to 1" in body
    tournament.refresh_from_db()
    assert tournament.party_size_max == 6 and tournament.registration_closes_at is None
    assert snapshot() == before
    good = settings_data(
        tournament,
        party_size_max="4",
        party_fit="as_many",
        offer_hours="6",
        registration_closes_at="2030-05-01T18:30",
    )
    assert client.post(url, good).status_code == 302
    tournament.refresh_from_db()
    assert (tournament.party_size_max, tournament.party_fit, tournament.offer_hours) == (
        4,
        "as_many",
        6,
    )
    local = timezone.localtime(tournament.registration_closes_at)
    assert (local.year, local.month, local.day, local.hour, local.minute) == (2030, 5, 1, 18, 30)
