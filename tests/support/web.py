"""Requests as a person makes them: addresses, page text, signing in, the settings form."""

import html
from urllib.parse import urlsplit

from django.test import Client
from django.urls import reverse

from tests.support.factories import PASSWORD


def url(name, tournament, *args):
    return reverse(name, args=[tournament.slug, *args])


def text(response) -> str:
    return html.unescape(response.content.decode())


def log_in(page, user, next_url, *, tap=False):
    """Signs in through the login form in a browser, as a person would; `tap` on a phone.
    Waits by path: the login page's own URL ends with "?next=<next_url>"."""
    page.goto(f"{reverse('login')}?next={next_url}")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(PASSWORD)
    button = page.get_by_role("button", name="Log in")
    button.tap() if tap else button.click()
    page.wait_for_url(lambda address: urlsplit(address).path == next_url)


def sign_in(username, password, address="127.0.0.1", client=None):
    """Posts the login page from `address`, as a phone behind it would: (client, response)."""
    client = client or Client()
    response = client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )
    return client, response


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail_sign_ins(username, times, address):
    for _ in range(times):
        sign_in(username, "wrong", address)


def settings_data(tournament, **changes):
    """The tournament settings form as saved, with `changes` applied."""
    data = {
        "name": tournament.name,
        "charity": tournament.charity,
        "date": tournament.date.isoformat(),
        "venue": tournament.venue,
        "entry_fee": tournament.entry_fee,
        "capacity": tournament.capacity,
        "qualifying_sets": tournament.qualifying_sets,
        "preset": tournament.preset_id,
        "wins_places": tournament.wins_places,
        "buncos_places": tournament.buncos_places,
        "top_both": tournament.top_both,
        "semi_final_sets": tournament.semi_final_sets,
    }
    return {**data, **changes}
