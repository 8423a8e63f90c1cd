"""An account belongs to its owner: another tournament's organiser can invite it, never take it
over. Everything through the pages, as the organiser of tournament B would try it."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import (
    PASSWORD,
    OrganiserFactory,
    TournamentFactory,
    UserFactory,
    grant,
)
from tests.support.web import fail_sign_ins, sign_in, signed_in, text
from tournaments.models import AuditEntry, Invitation, TournamentRole, UserProfile

pytestmark = pytest.mark.django_db

VENUE = "192.0.2.50"
ONE_TIME_PASSWORD = re.compile(r"\b[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}\b")


@pytest.fixture
def world(client_for):
    """Tournament A (its organiser, a co-organiser, staff, an admin) and B (its organiser)."""
    a_organiser, b_organiser = OrganiserFactory(username="alice"), OrganiserFactory(username="bob")
    a, b = TournamentFactory(organiser=a_organiser), TournamentFactory(organiser=b_organiser)
    accounts = {"organiser": a_organiser}
    for role, name in (("staff", "a-staff"), ("admin", "a-admin"), ("organiser", "a-co")):
        accounts[name] = UserFactory(username=name)
        grant(a, accounts[name], role)
    return a, b, accounts, client_for(b_organiser)


def people(b):
    return reverse("people", args=[b.slug])


def shown_passwords(client, b) -> list[str]:
    """Whatever looks like a one-time password on B's people page."""
    return ONE_TIME_PASSWORD.findall(text(client.get(people(b))))


def invite(client, b, username, role):
    return client.post(people(b), {"action": "existing", "username": username, "role": role})


def accept(user, invitation, client_for, answer="accept"):
    return client_for(user).post(
        reverse("invitation", args=[invitation.token]), {"answer": answer}, follow=True
    )


def cannot_sign_in_as(username, tried) -> bool:
    return not any(signed_in(sign_in(username, password, "198.51.100.20")[0]) for password in tried)


VICTIMS = ["a-staff", "a-admin", "a-co", "organiser"]


@pytest.mark.parametrize("as_role", ["staff", "admin", "organiser"])
@pytest.mark.parametrize("victim_name", VICTIMS)
def test_bs_organiser_never_gets_into_an_account_of_a(world, client_for, victim_name, as_role):
    a, b, accounts, bob = world
    victim = accounts[victim_name]
    victim.refresh_from_db()
    password_before = victim.password

    # Adding the account only invites it: no role in B, nothing to reset.
    assert invite(bob, b, victim.username, as_role).status_code == 302
    assert not TournamentRole.objects.filter(tournament=b, user=victim).exists()
    invitation = Invitation.objects.get(tournament=b, user=victim)
    assert invitation.status == Invitation.Status.PENDING
    for role in TournamentRole.objects.filter(user=victim):  # A's roles, asked through B
        assert bob.post(reverse("role-password", args=[b.slug, role.pk])).status_code == 404
        assert bob.post(reverse("role-unlock", args=[b.slug, role.pk])).status_code == 404
    tried = shown_passwords(bob, b)

    # Even once the owner has accepted, B's organiser cannot issue it a password.
    accept(victim, invitation, client_for)
    role_in_b = TournamentRole.objects.get(tournament=b, user=victim, role=as_role)
    response = bob.post(reverse("role-password", args=[b.slug, role_in_b.pk]), follow=True)
    assert f"You can't issue a password for {victim.username}" in text(response)
    assert "Only its owner can change its password" in text(response)
    assert "or a site superuser" in text(response)
    assert response.context["issued"] is None
    tried += shown_passwords(bob, b)

    assert cannot_sign_in_as(victim.username, [*tried, "", "password"])
    victim.refresh_from_db()
    assert victim.password == password_before
    assert not AuditEntry.objects.filter(action="account.password_reset").exists()
    assert signed_in(sign_in(victim.username, PASSWORD, "198.51.100.21")[0])


def test_an_accepted_invitation_is_logged_in_both_tournaments(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "staff")
    invitation = Invitation.objects.get(user=accounts["a-staff"])
    assert AuditEntry.objects.filter(tournament=b, action="invitation.sent").count() == 1
    response = accept(accounts["a-staff"], invitation, client_for)
    assert f"You are now staff of {b.name}" in text(response)
    assert response.request["PATH_INFO"] == reverse("tournament-dashboard", args=[b.slug])
    for where in (a, b):
        entry = AuditEntry.objects.get(tournament=where, action="invitation.accepted")
        assert entry.actor == accounts["a-staff"]
        assert "a-staff accepted bob's invitation to be staff" in entry.summary
    assert b.name in AuditEntry.objects.get(tournament=a, action="invitation.accepted").summary
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.ACCEPTED and invitation.decided_at


def test_pending_invitations_show_on_the_owners_home_page(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-admin", "admin")
    invitation = Invitation.objects.get(user=accounts["a-admin"])
    home = text(client_for(accounts["a-admin"]).get(reverse("home")))
    assert f"Admin of {b.name}" in home
    assert reverse("invitation", args=[invitation.token]) in home
    # B's organiser sees the link to pass on.
    assert reverse("invitation", args=[invitation.token]) in text(bob.get(people(b)))
    accept(accounts["a-admin"], invitation, client_for)
    assert "my-invitations" not in text(client_for(accounts["a-admin"]).get(reverse("home")))


def test_a_withdrawn_invitation_cannot_be_accepted(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "staff")
    invitation = Invitation.objects.get(user=accounts["a-staff"])
    response = bob.post(reverse("invitation-withdraw", args=[b.slug, invitation.pk]), follow=True)
    assert "The invitation of a-staff is withdrawn." in text(response)
    assert reverse("invitation", args=[invitation.token]) not in text(response)
    page = client_for(accounts["a-staff"]).get(reverse("invitation", args=[invitation.token]))
    assert "no longer open" in text(page) and "withdrawn" in text(page)
    response = accept(accounts["a-staff"], invitation, client_for)
    assert "This invitation is no longer open." in text(response)
    assert not TournamentRole.objects.filter(tournament=b, user=accounts["a-staff"]).exists()
    assert AuditEntry.objects.filter(tournament=b, action="invitation.withdrawn").count() == 1
    assert not AuditEntry.objects.filter(action="invitation.accepted").exists()


def test_a_declined_or_expired_invitation_gives_no_role(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "staff")
    invite(bob, b, "a-admin", "admin")
    declined = Invitation.objects.get(user=accounts["a-staff"])
    assert "You declined" in text(accept(accounts["a-staff"], declined, client_for, "decline"))
    assert AuditEntry.objects.filter(tournament=b, action="invitation.declined").count() == 1
    expired = Invitation.objects.get(user=accounts["a-admin"])
    Invitation.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(1))
    assert "no longer open" in text(accept(accounts["a-admin"], expired, client_for))
    assert not TournamentRole.objects.filter(tournament=b).exclude(role="organiser").exists()


def test_the_link_opens_nothing_for_another_account(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "organiser")
    invitation = Invitation.objects.get(user=accounts["a-staff"])
    # B's organiser (or anyone the link reaches) cannot accept it for the account.
    for someone in (accounts["a-admin"], bob_user(b)):
        page = client_for(someone).get(reverse("invitation", args=[invitation.token]))
        assert "This invitation is for another account." in text(page)
        accept(someone, invitation, client_for)
    assert (
        not TournamentRole.objects.filter(tournament=b, role="organiser")
        .exclude(user=bob_user(b))
        .exists()
    )
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING
    # Signed out, the link asks to sign in first.
    response = Client().get(reverse("invitation", args=[invitation.token]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def bob_user(b):
    return b.roles.get(role="organiser").user


def test_an_invitation_lapses_when_its_sender_stops_being_organiser(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "staff")
    invitation = Invitation.objects.get(user=accounts["a-staff"])
    sender = bob_user(b)
    grant(b, OrganiserFactory(username="carol"), "organiser")
    TournamentRole.objects.filter(tournament=b, user=sender).delete()
    response = accept(accounts["a-staff"], invitation, client_for)
    assert "no longer runs it" in text(response)
    assert not TournamentRole.objects.filter(tournament=b, user=accounts["a-staff"]).exists()


def test_an_organiser_still_looks_after_the_accounts_they_made(tournament, organiser, client_for):
    """The venue path: an account made on the page, its password forgotten and reset."""
    client = client_for(organiser)
    other = TournamentFactory(organiser=organiser)
    client.post(
        people(tournament),
        {"action": "create", "username": "door1", "full_name": "Dee Door", "role": "staff"},
    )
    door = TournamentRole.objects.get(user__username="door1")
    grant(other, door.user, "admin")
    client.get(people(tournament))  # the creation's password, shown once
    client.post(reverse("role-password", args=[tournament.slug, door.pk]))
    issued = client.get(people(tournament)).context["issued"]
    assert signed_in(sign_in("door1", issued["password"])[0])
    for where in (tournament, other):
        assert AuditEntry.objects.filter(tournament=where, action="account.password_reset").count()


@pytest.mark.parametrize("power", ["superuser", "site_staff", "may_create", "organiser_elsewhere"])
def test_no_reset_for_accounts_with_powers_beyond_the_tournament(
    tournament, organiser, client_for, power
):
    user = UserFactory(username="mighty")
    role = grant(tournament, user, "staff")
    if power == "superuser":
        user.is_superuser = True
    elif power == "site_staff":
        user.is_staff = True
    elif power == "may_create":
        user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    else:
        TournamentFactory(organiser=user)
    user.save()
    before = user.password
    response = client_for(organiser).post(
        reverse("role-password", args=[tournament.slug, role.pk]), follow=True
    )
    assert "You can't issue a password for mighty" in text(response)
    user.refresh_from_db()
    assert user.password == before


def test_role_changes_are_logged_in_every_tournament_of_the_account(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "admin")
    accept(accounts["a-staff"], Invitation.objects.get(user=accounts["a-staff"]), client_for)
    role_in_b = TournamentRole.objects.get(tournament=b, user=accounts["a-staff"])
    bob.post(reverse("role-revoke", args=[b.slug, role_in_b.pk]))
    for where in (a, b):
        assert AuditEntry.objects.filter(tournament=where, action="role.revoked").count() == 1
    # A's organiser makes a new account: only A has a stake in it.
    client_for(accounts["organiser"]).post(
        people(a), {"action": "create", "username": "a-new", "full_name": "", "role": "staff"}
    )
    assert AuditEntry.objects.filter(action="role.granted", data__user="a-new").count() == 1


def test_an_unlock_is_refused_for_an_account_shared_with_another_organiser(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "staff")
    accept(accounts["a-staff"], Invitation.objects.get(user=accounts["a-staff"]), client_for)
    UserProfile.objects.create(user=accounts["a-staff"])
    fail_sign_ins("a-staff", settings.SIGN_IN_PAIR_LIMIT, VENUE)
    role_in_b = TournamentRole.objects.get(tournament=b, user=accounts["a-staff"])
    response = bob.post(reverse("role-unlock", args=[b.slug, role_in_b.pk]), follow=True)
    assert "You can't unlock a-staff" in text(response)
    assert "unlocks by itself in 15 minutes, or a site superuser can unlock it" in text(response)
    assert not signed_in(sign_in("a-staff", PASSWORD, VENUE)[0])
    assert not AuditEntry.objects.filter(action="account.unlocked").exists()


def test_forged_and_guessed_invitation_links_are_not_found(world, client_for):
    a, b, accounts, bob = world
    invite(bob, b, "a-staff", "staff")
    invitation = Invitation.objects.get(user=accounts["a-staff"])
    value, signature = invitation.token.split(":")
    pk, user_id = value.split(".")
    owner = client_for(accounts["a-staff"])
    assert owner.get(reverse("invitation", args=[invitation.token])).status_code == 200
    for token in [
        f"{pk}.{accounts['a-admin'].pk}:{signature}",  # the same link, for another account
        f"{int(pk) + 1}.{user_id}:{signature}",
        f"{value}:{signature[:-1]}{'A' if signature[-1] != 'A' else 'B'}",
        value,
        pk,
    ]:
        assert owner.get(reverse("invitation", args=[token])).status_code == 404, token
        answer = owner.post(reverse("invitation", args=[token]), {"answer": "accept"})
        assert answer.status_code == 404, token
    assert not TournamentRole.objects.filter(tournament=b, user=accounts["a-staff"]).exists()
