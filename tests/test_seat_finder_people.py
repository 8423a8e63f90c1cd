"""The seat finder tells apart two players of the same name, and sends a registered player
who has not checked in to the desk (the "my card" page too)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.factories import PlayerFactory, drawn_stage
from tests.support.web import text
from tournaments.models import Player

pytestmark = pytest.mark.django_db

TWIN = "Ann Lee"


@pytest.fixture
def stage(tournament, organiser):
    return drawn_stage(tournament, organiser, players=12, names=[TWIN, TWIN])


def finder(client, tournament, q) -> str:
    return text(client.get(reverse("seat-finder", args=[tournament.slug]), {"q": q}))


def test_two_players_of_the_same_name_are_told_apart_by_code_ending(client, tournament, stage):
    a, b = Player.objects.filter(name=TWIN).order_by("pk")
    page = finder(client, tournament, "ann lee")
    assert f"({'code ending …' + a.code[-2:]})" in page
    assert f"({'code ending …' + b.code[-2:]})" in page
    assert a.code not in page and b.code not in page  # never the whole code


def test_by_group_when_their_groups_differ(client, tournament, stage):
    a, b = Player.objects.filter(name=TWIN).order_by("pk")
    Player.objects.filter(pk=a.pk).update(group_name="Pink Ladies")
    Player.objects.filter(pk=b.pk).update(group_name="Dice Divas")
    page = finder(client, tournament, "ann lee")
    assert "(Pink Ladies)" in page and "(Dice Divas)" in page
    assert "code ending" not in page


def test_a_name_of_its_own_shows_nothing_extra(client, tournament, stage):
    other = Player.objects.exclude(name=TWIN).first()
    assert 'class="match-which"' not in finder(client, tournament, other.name)


def test_registered_but_not_checked_in_is_sent_to_the_desk(client, tournament, stage):
    late = PlayerFactory(tournament=tournament, name="Zelda Quintanilla", checked_in_at=None)
    page = finder(client, tournament, "quintanilla")
    assert "You have not checked in yet: go to the front desk to check in" in page
    card = text(client.get(reverse("my-card", args=[tournament.slug]), {"code": late.code}))
    assert 'id="not-checked-in"' in card and "go to the front desk to check in" in card
    seated = Player.objects.filter(name=TWIN).first()
    card = text(client.get(reverse("my-card", args=[tournament.slug]), {"code": seated.code}))
    assert 'id="not-checked-in"' not in card
