"""Sign-in limits stop a guesser, whatever they mix in, and never lock a venue out: through the
real login page, each phone's address set as the venue's router would show it."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db.models import F
from django.urls import reverse

from tests.support.factories import PASSWORD, TournamentFactory, UserFactory, grant
from tests.support.web import fail_sign_ins, sign_in, signed_in, text
from tournaments.lockout import forwarded_client_ip
from tournaments.models import AuditEntry, SignInFailure, UserProfile

PAIR = settings.SIGN_IN_PAIR_LIMIT
ACCOUNT = settings.SIGN_IN_ACCOUNT_LIMIT
BUSY = settings.SIGN_IN_ADDRESS_LIMIT
WRONG = "Please enter a correct username and password"
VENUE = "192.0.2.50"  # every phone in the hall, behind its router


def page_text(response) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", text(response)).split())


def shows_lockout(response, minutes=15) -> bool:
    words = page_text(response)
    return (
        response.status_code == 429
        and "Too many wrong passwords were tried for this account" in words
        and f"paused for {minutes} more minutes" in words
        and "the organiser of your tournament can unlock your account now, on their "
        "Staff & admins page"
        in words
        and f"Otherwise wait {minutes} minutes and try again" in words
    )


def refused_as_wrong(client, response) -> bool:
    return response.status_code == 200 and WRONG in text(response) and not signed_in(client)


def lets_in(username, address, password=PASSWORD) -> bool:
    client, response = sign_in(username, password, address)
    return response.status_code == 302 and signed_in(client)


@pytest.fixture
def door(db):
    return UserFactory(username="door1")


def test_twenty_failures_lock_the_account_from_any_address(door):
    """Guessing spread over many addresses: each address stays under its own limit."""
    for i in range(ACCOUNT - 1):
        assert refused_as_wrong(*sign_in("door1", "wrong", f"10.0.{i // 4}.{i % 4 + 1}"))
    # The failure that reaches the limit is answered with the page that says why.
    assert shows_lockout(sign_in("door1", "wrong", "10.0.8.8")[1])
    # The right password, from an address never seen before, is refused with the page.
    client, response = sign_in("door1", PASSWORD, "10.0.9.9")
    assert shows_lockout(response) and not signed_in(client)
    assert "<form" not in response.content.decode().split("<main", 1)[1]
    # Another account from a fresh address is not affected.
    UserFactory(username="door2")
    assert lets_in("door2", "10.0.9.10")


def test_five_failures_lock_the_account_from_that_address_only(door):
    for _ in range(PAIR - 1):
        assert refused_as_wrong(*sign_in("door1", "wrong", VENUE))
    assert shows_lockout(sign_in("door1", "wrong", VENUE)[1])
    client, response = sign_in("door1", PASSWORD, VENUE)
    assert shows_lockout(response) and not signed_in(client)
    # The owner on another network (a phone on mobile data) still gets in.
    assert lets_in("door1", "198.51.100.77")


def test_failures_for_other_accounts_never_stop_a_right_password(door):
    """Replaces the old rule that five failures locked the address for every account: at a
    venue every phone shares it."""
    UserFactory(username="typist")
    fail_sign_ins("typist", PAIR, VENUE)  # one person mistypes until their own account pauses
    for i in range(PAIR):
        sign_in(f"nobody{i}", "wrong", VENUE)  # and others try names that do not exist
    assert shows_lockout(sign_in("typist", PASSWORD, VENUE)[1])
    assert lets_in("door1", VENUE)


def test_signing_in_to_ones_own_account_does_not_wipe_the_guesses_at_another(door):
    """4 guesses at a victim, then 1 sign-in to the guesser's own account, 25 times over:
    only the first 5 guesses are even tried, and the victim is paused from that address."""
    UserFactory(username="mallory")
    attacker = "203.0.113.66"
    outcomes = []
    for cycle in range(25):
        for guess in range(4):
            outcomes.append(sign_in("door1", f"guess-{cycle}-{guess}", attacker)[1].status_code)
        assert lets_in("mallory", attacker)
    assert outcomes[: PAIR - 1] == [200] * (PAIR - 1)
    assert outcomes[PAIR - 1 :] == [429] * (100 - PAIR + 1)
    assert SignInFailure.objects.filter(username="door1").count() == PAIR
    client, response = sign_in("door1", PASSWORD, attacker)
    assert shows_lockout(response) and not signed_in(client)
    # The owner, on their own network, is not locked out by someone else's guessing.
    assert lets_in("door1", "198.51.100.8")


def test_a_busy_address_still_lets_in_an_account_with_no_failures_of_its_own(door):
    UserFactory(username="typo")
    sign_in("typo", "wrong", VENUE)  # one slip, early in the evening
    for i in range(BUSY + 5):
        sign_in(f"spray{i}", "wrong", VENUE)
    assert SignInFailure.objects.filter(address=VENUE).count() >= BUSY
    assert lets_in("door1", VENUE)
    # Past the address limit one failure of one's own from there is enough to pause.
    assert shows_lockout(sign_in("typo", PASSWORD, VENUE)[1])
    assert lets_in("typo", "198.51.100.9")


def test_a_lockout_changes_nothing_else(door):
    fail_sign_ins("door1", PAIR, "198.51.100.1")
    failures = list(SignInFailure.objects.values_list("username", "address", "at"))
    door.refresh_from_db()
    last_login, password = door.last_login, door.password
    for password_tried in ("wrong", PASSWORD, "wrong"):
        client, response = sign_in("door1", password_tried, "198.51.100.1")
        assert shows_lockout(response) and not signed_in(client)
    # Tries during the lockout neither count nor extend it, and the account is untouched.
    assert list(SignInFailure.objects.values_list("username", "address", "at")) == failures
    door.refresh_from_db()
    assert (door.last_login, door.password) == (last_login, password)


def test_a_successful_sign_in_before_the_limit_starts_the_count_again(door):
    for _ in range(2):
        fail_sign_ins("door1", PAIR - 1, "203.0.113.5")
        assert lets_in("door1", "203.0.113.5")


def test_the_page_counts_down_and_the_pause_ends_by_itself(door):
    fail_sign_ins("door1", PAIR, VENUE)
    SignInFailure.objects.update(at=F("at") - timedelta(minutes=11))
    assert shows_lockout(sign_in("door1", PASSWORD, VENUE)[1], minutes=4)
    SignInFailure.objects.update(at=F("at") - timedelta(minutes=4))
    assert lets_in("door1", VENUE)


def door_admin_sign_in(password):
    from django.test import Client

    return Client().post(
        reverse("admin:login"), {"username": "door1", "password": password}, REMOTE_ADDR=VENUE
    )


def test_the_admin_sites_sign_in_counts_too(door):
    for _ in range(PAIR):
        response = door_admin_sign_in("wrong")
        assert response.status_code == 200
    assert shows_lockout(sign_in("door1", PASSWORD, VENUE)[1])


# --- unlocking ----------------------------------------------------------------------------------


@pytest.fixture
def locked_staff(tournament):
    """A staff member of two of the organiser's tournaments, paused at the venue."""
    staff = UserFactory(username="door1")
    UserProfile.objects.create(user=staff)
    other = TournamentFactory(organiser=tournament.roles.get(role="organiser").user)
    grant(other, staff, "staff")
    role = grant(tournament, staff, "staff")
    fail_sign_ins("door1", PAIR, VENUE)
    assert shows_lockout(sign_in("door1", PASSWORD, VENUE)[1])
    return role, other


def test_the_organiser_unlocks_a_locked_staff_account_from_the_page(
    tournament, organiser, client_for, locked_staff
):
    role, other = locked_staff
    client = client_for(organiser)
    page = client.get(reverse("people", args=[tournament.slug]))
    unlock = reverse("role-unlock", args=[tournament.slug, role.pk])
    assert "Locked out, 15 min left" in text(page) and unlock in text(page)
    response = client.post(unlock, follow=True)
    assert "door1 can sign in again." in text(response)
    assert unlock not in text(response)
    assert lets_in("door1", VENUE)
    for where in (tournament, other):
        assert AuditEntry.objects.filter(tournament=where, action="account.unlocked").count() == 1


def test_an_account_that_is_not_locked_shows_no_unlock_button(tournament, organiser, client_for):
    role = grant(tournament, UserFactory(username="calm"), "staff")
    page = client_for(organiser).get(reverse("people", args=[tournament.slug]))
    assert reverse("role-unlock", args=[tournament.slug, role.pk]) not in text(page)


def test_the_organisers_password_reset_unlocks_the_account(
    tournament, organiser, client_for, locked_staff
):
    role, _ = locked_staff
    organiser_client = client_for(organiser)
    organiser_client.post(reverse("role-password", args=[tournament.slug, role.pk]))
    issued = organiser_client.get(reverse("people", args=[tournament.slug])).context["issued"]
    assert lets_in("door1", VENUE, issued["password"])


def test_the_server_command_unlocks(door):
    fail_sign_ins("door1", PAIR, VENUE)
    fail_sign_ins("door2", PAIR, "10.9.9.9")
    call_command("unlock_sign_ins", username="door1")
    assert lets_in("door1", VENUE)
    assert SignInFailure.objects.filter(username="door2").count() == PAIR
    call_command("unlock_sign_ins", all=True)
    assert not SignInFailure.objects.exists()
    with pytest.raises(CommandError):
        call_command("unlock_sign_ins")


def test_behind_a_proxy_the_address_is_the_one_the_proxy_saw(rf):
    request = rf.get("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9", REMOTE_ADDR="10.0.0.1")
    assert forwarded_client_ip(request) == "203.0.113.9"
    assert forwarded_client_ip(rf.get("/", REMOTE_ADDR="10.0.0.1")) == "10.0.0.1"
