"""Each role sees and may do only its own part, on GET and on POST."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import OrganiserFactory, TournamentFactory, UserFactory
from tournaments.models import AuditEntry, Player, Tournament, TournamentRole

pytestmark = pytest.mark.django_db

ORGANISER_PAGES = [
    ("tournament-edit", {}),
    ("people", {}),
    ("player-list", {}),
    ("checkin-desk", {}),
    ("audit-log", {}),
]


@pytest.mark.parametrize(("name", "extra"), ORGANISER_PAGES)
def test_staff_gets_403_on_organiser_pages_on_get_and_post(
    name, extra, tournament, staff_user, client_for
):
    client = client_for(staff_user)
    url = reverse(name, kwargs={"slug": tournament.slug, **extra})
    assert client.get(url).status_code == 403
    before = (AuditEntry.objects.count(), Player.objects.count(), TournamentRole.objects.count())
    assert (
        client.post(url, {"action": "create", "username": "sneaky", "role": "admin"}).status_code
        == 403
    )
    assert (
        AuditEntry.objects.count(),
        Player.objects.count(),
        TournamentRole.objects.count(),
    ) == before


def test_staff_cannot_flip_registration(tournament, staff_user, client_for):
    url = reverse("tournament-switch", args=[tournament.slug, "registration"])
    assert client_for(staff_user).post(url, {"value": "off"}).status_code == 403
    tournament.refresh_from_db()
    assert tournament.registration_open


def test_admin_sees_players_but_cannot_manage_people(tournament, admin_user, client_for):
    client = client_for(admin_user)
    assert client.get(reverse("player-list", args=[tournament.slug])).status_code == 200
    assert client.get(reverse("people", args=[tournament.slug])).status_code == 403
    assert client.get(reverse("checkin-desk", args=[tournament.slug])).status_code == 403


def test_staff_dashboard_hides_organiser_links(tournament, staff_user, client_for):
    response = client_for(staff_user).get(reverse("tournament-dashboard", args=[tournament.slug]))
    assert response.status_code == 200
    body = response.content.decode()
    assert reverse("people", args=[tournament.slug]) not in body
    assert reverse("checkin-desk", args=[tournament.slug]) not in body


def test_anonymous_is_sent_to_login(tournament, client):
    url = reverse("tournament-dashboard", args=[tournament.slug])
    response = client.get(url)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    assert (
        client.post(
            reverse("tournament-switch", args=[tournament.slug, "registration"]), {"value": "off"}
        ).status_code
        == 302
    )
    tournament.refresh_from_db()
    assert tournament.registration_open


def test_organiser_of_another_tournament_is_refused(tournament, client_for):
    other = OrganiserFactory()
    TournamentFactory(organiser=other)
    client = client_for(other)
    assert client.get(reverse("tournament-dashboard", args=[tournament.slug])).status_code == 403
    assert client.post(reverse("tournament-edit", args=[tournament.slug]), {}).status_code == 403


def test_only_organisers_create_tournaments(client_for, staff_user):
    client = client_for(staff_user)
    assert client.get(reverse("tournament-create")).status_code == 403
    assert client.post(reverse("tournament-create"), {"name": "Mine"}).status_code == 403


def new_tournament(day) -> dict:
    from tournaments.models import RulePreset

    return {
        "name": "Spring  Fling Bunco",
        "charity": "Food bank",
        "date": day.isoformat(),
        "venue": "Elks Lodge",
        "entry_fee": "20.00",
        "capacity": "96",
        "qualifying_sets": "3",
        "preset": RulePreset.objects.get(slug="mingle").pk,
    }


def test_organiser_creates_tournament_and_becomes_its_organiser(organiser, client_for):
    day = timezone.localdate() + timedelta(days=140)
    response = client_for(organiser).post(reverse("tournament-create"), new_tournament(day))
    t = Tournament.objects.get(name="Spring Fling Bunco")
    assert response.status_code == 302 and response.url == t.get_absolute_url()
    assert t.slug == f"spring-fling-bunco-{day.year}"
    assert TournamentRole.objects.filter(tournament=t, user=organiser, role="organiser").exists()


def test_a_new_tournament_on_a_past_date_is_refused_and_today_is_not(organiser, client_for):
    """A reviewer created an event dated last year by a slip of the year: it was filed
    among the finished ones. An existing event keeps its date, past or not."""
    client = client_for(organiser)
    yesterday = timezone.localdate() - timedelta(days=1)
    response = client.post(reverse("tournament-create"), new_tournament(yesterday))
    assert response.status_code == 200
    assert "has passed: pick today or a later date." in response.content.decode()
    assert not Tournament.objects.filter(name="Spring Fling Bunco").exists()
    today = timezone.localdate()
    assert client.post(reverse("tournament-create"), new_tournament(today)).status_code == 302
    t = Tournament.objects.get(name="Spring Fling Bunco")
    Tournament.objects.filter(pk=t.pk).update(date=yesterday)
    edit = {**new_tournament(yesterday), "name": "Spring Fling Bunco"}
    assert client.post(reverse("tournament-edit", args=[t.slug]), edit).status_code == 302
    t.refresh_from_db()
    assert t.date == yesterday


def test_organiser_adds_staff_with_one_time_password_shown_once(tournament, organiser, client_for):
    client = client_for(organiser)
    url = reverse("people", args=[tournament.slug])
    response = client.post(
        url,
        {"action": "create", "username": "door1", "full_name": "Dee Door", "role": "staff"},
        follow=True,
    )
    issued = response.context["issued"]
    assert issued["username"] == "door1"
    assert issued["password"] in response.content.decode()
    assert issued["password"] not in client.get(url).content.decode()  # shown once only

    staff = client.__class__()
    # Through the login page, as the new staff member would: the sign-in limits see it.
    signed_in = staff.post(reverse("login"), {"username": "door1", "password": issued["password"]})
    assert signed_in.status_code == 302 and "_auth_user_id" in staff.session
    # The one-time password must be replaced before anything else.
    dash = reverse("tournament-dashboard", args=[tournament.slug])
    assert staff.get(dash).url == reverse("password_change")
    staff.post(
        reverse("password_change"),
        {
            "old_password": issued["password"],
            "new_password1": "Rolling-6-sixes!",
            "new_password2": "Rolling-6-sixes!",
        },
    )
    assert staff.get(dash).status_code == 200
    assert TournamentRole.objects.get(user__username="door1").role == "staff"


def test_duplicate_username_is_a_form_error(tournament, organiser, client_for):
    UserFactory(username="taken")
    response = client_for(organiser).post(
        reverse("people", args=[tournament.slug]),
        {"action": "create", "username": "taken", "role": "staff"},
    )
    assert response.status_code == 200
    assert "is taken" in response.content.decode()


def test_last_organiser_cannot_be_removed(tournament, organiser, client_for):
    tr = TournamentRole.objects.get(tournament=tournament, role="organiser")
    client_for(organiser).post(reverse("role-revoke", args=[tournament.slug, tr.pk]))
    assert TournamentRole.objects.filter(pk=tr.pk).exists()


def test_staff_only_see_their_own_tournaments_on_home(tournament, staff_user, client_for):
    other = TournamentFactory()
    body = client_for(staff_user).get(reverse("home")).content.decode()
    assert tournament.name in body
    assert reverse("tournament-dashboard", args=[other.slug]) not in body
    # The date written as every other page writes it ("Dec. 12, 2026" was Django's default).
    d = tournament.date
    yours = body[body.index("Your tournaments") :]
    assert f'{tournament.name}<br><small class="text-muted">{d:%A} {d.day} {d:%B %Y}<' in yours


def test_both_ways_of_adding_someone_start_at_staff(tournament, organiser, client_for):
    """Inviting an existing account used to offer Organiser first: one hurried tap handed
    over the whole tournament."""
    page = client_for(organiser).get(reverse("people", args=[tournament.slug])).content.decode()
    for prefix in ("new", "existing"):
        select = page.split(f'id="{prefix}_role"')[1].split("</select>")[0]
        options = re.findall(r'<option value="(\w+)"( selected)?>', select)
        chosen = next((value for value, selected in options if selected), options[0][0])
        assert chosen == "staff", prefix
