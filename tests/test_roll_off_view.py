"""One view takes every roll-off's dice (issue 14, "one form/view pair"): the kind in its URL
says which named permission it needs, checked on GET and POST alike before anything is read,
and each kind goes back to the page it is thrown from."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.events import TIES_SEED, played_qualifying, played_without_prizes
from tests.support.factories import member
from tests.support.web import url
from tournaments.models import AuditEntry, Draw, RollOff
from tournaments.rules.draws import draw_code
from tournaments.services import prizes

pytestmark = pytest.mark.django_db

CUT = {"stage": "qualifying", "group": "1", "category": "wins"}


def state():
    return AuditEntry.objects.count(), RollOff.objects.count(), Draw.objects.count()


def test_a_cut_roll_off_needs_the_advancement_permission_on_get_and_post(client_for):
    event = played_qualifying(24, TIES_SEED)
    address = url("roll-off", event.tournament, "cut")
    admin = member(event.tournament, "admin", "cut-admin")  # prizes.award, not stages.run
    before = state()
    for user in (event.staff[0], admin):
        client = client_for(user)
        assert client.get(address).status_code == 403, user
        assert client.post(address, {**CUT, "first": ["5", "2"]}).status_code == 403, user
        assert client.post(address, {**CUT, "roll": "on"}).status_code == 403, user
    assert state() == before
    organiser = client_for(event.organiser)
    assert organiser.get(address).status_code == 405  # allowed in, but POST only
    response = organiser.post(address, {**CUT, "first": ["5", "2"]})
    assert response.status_code == 302
    assert response["Location"] == reverse("advancement", args=[event.tournament.slug])
    typed = RollOff.objects.get(kind="cut", category_key="wins")
    assert (typed.faces, typed.source, typed.seed) == ([5, 2], "entered", None)
    # On screen, from the draw code the secret gives the label, listed before it is used.
    organiser.post(address, {"stage": "qualifying", "group": "1", "category": "buncos", "roll": 1})
    rolled = RollOff.objects.get(kind="cut", category_key="buncos")
    label = "roll-off:qualifying:1:buncos"
    assert rolled.source == "site"
    assert rolled.seed == draw_code(event.tournament.draw_secret, f"{label}#1")
    assert Draw.objects.get(tournament=event.tournament, subject=label).seed == rolled.seed


def test_a_prize_roll_off_needs_the_prizes_permission_on_get_and_post(monkeypatch, client_for):
    tournament = played_without_prizes(monkeypatch)
    prizes.load_template(tournament, "mesquite", actor=tournament.created_by)
    address = url("roll-off", tournament, "prize")
    staff = member(tournament, "staff", "prize-staff")
    admin = member(tournament, "admin", "prize-desk")
    key = prizes.plan_prizes(tournament).pending[0].key
    before = state()
    client = client_for(staff)
    assert client.get(address).status_code == 403
    assert client.post(address, {"key": key, "roll": "1"}).status_code == 403
    assert state() == before
    desk = client_for(admin)
    assert desk.get(address).status_code == 405
    # A cut's form sent to the prize kind names no prize tie: refused, nothing stored.
    response = desk.post(address, {**CUT, "roll": "1"}, follow=True)
    assert "Key: This field is required." in [str(m) for m in response.context["messages"]]
    assert state() == before
    # On screen by the prize desk, from the draw code the secret gives the label.
    response = desk.post(address, {"key": key, "roll": "1"})
    assert response["Location"] == reverse("prize-winners", args=[tournament.slug])
    rolled = RollOff.objects.get(kind="prize", key=key)
    assert rolled.source == "site" and rolled.recorded_by == admin
    assert rolled.seed == draw_code(tournament.draw_secret, f"prize-roll-off:{key}#1")
    # Typed dice by the organiser, who holds both codes, reach the same service (which says
    # the tie is settled; typed prize dice that settle a tie are in test_prize_pages).
    response = client_for(tournament.created_by).post(
        address, {"key": key, "first": ["6"] * len(rolled.players)}, follow=True
    )
    assert [str(m) for m in response.context["messages"]] == [
        "That roll-off is not needed (or is already recorded)."
    ]
    assert RollOff.objects.filter(kind="prize", key=key).count() == 1


def test_an_unknown_kind_of_roll_off_is_not_found(client_for):
    event = played_qualifying(12, TIES_SEED)
    organiser = client_for(event.organiser)
    for kind in ("order", "final", "x"):
        address = f"/t/{event.tournament.slug}/manage/roll-offs/{kind}/"
        assert organiser.post(address, {**CUT, "roll": "on"}).status_code == 404
    assert not RollOff.objects.exists()
