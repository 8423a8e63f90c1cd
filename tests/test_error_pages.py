"""400, 403, 404, 500 and CSRF failures answer in the site's layout, in plain words, with the
way back; a CSRF failure keeps what was typed (never a password) for one more press of Save."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.factories import PASSWORD, UserFactory, drawn_stage, grant
from tests.support.web import text, url
from tournaments.models import AuditEntry, Player

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.error_urls")]

LAYOUT = 'class="navbar-brand fw-bold"'


@pytest.fixture(autouse=True)
def _production(settings):
    settings.DEBUG = False


def test_an_unknown_address_is_a_404_in_the_layout(client):
    response = client.get("/no/such/page/")
    page = text(response)
    assert response.status_code == 404
    assert LAYOUT in page and "There is no page at this address" in page
    assert f'href="{reverse("home")}"' in page and "Staff sign-in" in page
    assert "Resolver404" not in page and "tried" not in page


def test_a_404_says_the_views_own_reason(tournament, organiser, client_for):
    drawn_stage(tournament, organiser)
    response = client_for(organiser).get(url("pod-detail", tournament, 1) + "?round=99")
    assert response.status_code == 404
    page = text(response)
    assert '<p id="error-reason">No such round.</p>' in page
    assert f'href="{url("tournament-public", tournament)}"' in page


def test_a_forms_address_opened_as_a_page_is_a_405_in_the_layout(tournament, organiser, client_for):
    """Back, a reload from history or a bookmark opens a form-only address with GET: Django's
    empty 405 was a blank screen. It stays a 405, with its Allow header, and says why."""
    drawn_stage(tournament, organiser)
    before = AuditEntry.objects.count()
    response = client_for(organiser).get(url("stage-start", tournament))
    assert response.status_code == 405 and "POST" in response["Allow"]
    page = text(response)
    assert LAYOUT in page and "This address only takes a form's answer" in page
    assert "nothing was sent and nothing changed" in page
    assert f'href="{url("tournament-public", tournament)}"' in page
    assert AuditEntry.objects.count() == before


def test_a_403_names_the_organisers_who_can_grant_the_role(
    tournament, organiser, staff_user, client_for
):
    response = client_for(staff_user).get(url("stage-control", tournament))
    assert response.status_code == 403
    page = text(response)
    assert LAYOUT in page and "This page is not open to your account" in page
    assert "signed in as <strong>staffer</strong>" in page
    grant = page.split('id="who-can-grant"')[1].split("</p>")[0]
    assert f"<strong>{organiser.username}</strong>" in grant and "Staff & admins" in grant
    assert f'href="{reverse("landing")}"' in page


def test_a_403_to_staff_not_assigned_to_the_pod_does_not_say_they_have_no_role(
    tournament, organiser, client_for
):
    """A walk: staff opening a semi-final pod they were not yet ticked for read "that account
    has no role at …", though they are staff there."""
    drawn_stage(tournament, organiser)
    helper = UserFactory(username="helper")
    grant(tournament, helper, "staff")
    response = client_for(helper).get(reverse("pod-detail", args=[tournament.slug, 1]))
    assert response.status_code == 403
    page = text(response)
    assert "You are not assigned to Pod 1 of the qualifying stage." in page
    assert "has no role" not in page
    assert f"helper</strong>, staff at <strong>{tournament.name}</strong>, but that" in page
    grant_text = page.split('id="who-can-grant"')[1].split("</p>")[0]
    assert "assigns staff to pods on the stage page" in grant_text


def test_a_403_outside_a_tournament_still_says_who_to_ask(staff_user, client_for):
    page = text(client_for(staff_user).get("/fail/403/"))
    assert "The organiser of your tournament can give you a role" in page


def test_a_400_in_plain_words(client):
    response = client.get("/fail/400/")
    assert response.status_code == 400
    page = text(response)
    assert LAYOUT in page and "The site could not read that request" in page
    assert "nothing was changed" in page


def test_a_500_in_the_layout_without_the_fault(client):
    response = Client(raise_request_exception=False).get("/fail/500/")
    assert response.status_code == 500
    page = text(response)
    assert LAYOUT in page and "Something went wrong on the site's side" in page
    assert "RuntimeError" not in page and "own fault" not in page
    assert 'href="/static/css/site.css"' in page


def resent(page: str) -> dict[str, list[str]]:
    form = page.split('id="resubmit"')[1].split("</form>")[0]
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form):
        fields.setdefault(name, []).append(value)
    return fields


def test_a_csrf_failure_keeps_the_entry_and_saves_it_once_on_one_press(tournament, organiser):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organiser)
    address = url("player-add", tournament)
    client.get(address)
    entry = {
        "csrfmiddlewaretoken": "from-a-page-opened-before-signing-in-again",
        "name": "Dorothy Vance",
        "email": "dorothy@example.org",
        "phone": "555 0101",
        "group_name": "Tuesday Club",
        "costume_contest": "on",
    }
    response = client.post(address, entry, HTTP_REFERER=f"http://testserver{address}")
    page = text(response)
    assert response.status_code == 403 and LAYOUT in page
    assert "Nothing was saved yet: press save once more" in page
    assert not Player.objects.filter(name="Dorothy Vance").exists()
    fields = resent(page)
    token = fields.pop("csrfmiddlewaretoken")
    assert token != [entry["csrfmiddlewaretoken"]] and entry["csrfmiddlewaretoken"] not in page
    assert fields == {k: [v] for k, v in entry.items() if k != "csrfmiddlewaretoken"}
    assert "Tuesday Club" in page.split('id="kept-entry"')[1]
    assert f'action="{address}"' in page and f'href="http://testserver{address}"' in page

    saved = client.post(address, {"csrfmiddlewaretoken": token[0], **fields})
    assert saved.status_code == 302
    assert Player.objects.filter(name="Dorothy Vance", tournament=tournament).count() == 1


def test_a_csrf_failure_never_shows_a_password_again(organiser):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organiser)
    secret = "my-new-secret-phrase-42"
    page = text(
        client.post(
            reverse("password_change"),
            {"old_password": PASSWORD, "new_password1": secret, "new_password2": secret},
        )
    )
    assert secret not in page and PASSWORD not in page
    assert "Passwords are never shown again" in page
    assert not AuditEntry.objects.exists()


def test_a_players_link_to_unpublished_results_says_so(tournament, client):
    for name in ("results", "standings"):
        response = client.get(url(name, tournament))
        page = text(response)
        assert response.status_code == 403, name
        assert "The results are not published yet" in page and "Log in" not in page
        assert f'href="{url("tournament-public", tournament)}"' in page
