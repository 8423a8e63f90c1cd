"""The settings form refuses a capacity below the players registered, and a change of sets
or rules once pods are drawn, with a message on the form and nothing saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.factories import PlayerFactory
from tests.support.web import settings_data
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, RulePreset
from tournaments.services import tournaments as service
from tournaments.services.rehearsal_event import create_event
from tournaments.services.stages import draw_qualifying

pytestmark = pytest.mark.django_db


def post(client_for, tournament, organiser, **changes):
    return client_for(organiser).post(
        reverse("tournament-edit", args=[tournament.slug]),
        settings_data(tournament, name="Renamed", **changes),
    )


def test_capacity_below_the_registered_is_refused(tournament, organiser, client_for):
    for _ in range(6):
        PlayerFactory(tournament=tournament)
    response = post(client_for, tournament, organiser, capacity=5)
    assert response.status_code == 200
    page = response.content.decode()
    assert "6 players are registered: the capacity cannot be lower" in page
    assert 'value="Renamed"' in page
    tournament.refresh_from_db()
    assert tournament.capacity == 120 and tournament.name != "Renamed"
    ok = post(client_for, tournament, organiser, capacity=6)
    assert ok.status_code == 302
    tournament.refresh_from_db()
    assert tournament.capacity == 6
    assert AuditEntry.objects.filter(action="tournament.edited").count() == 1


def test_sets_and_rules_are_fixed_once_pods_are_drawn(client_for):
    tournament, organiser = create_event(players=12, preset="classic", seed=1, slug="fixed")
    draw_qualifying(tournament, actor=organiser)
    mingle = RulePreset.objects.get(slug="mingle")
    page = post(client_for, tournament, organiser, qualifying_sets=4).content.decode()
    assert "the pods are drawn, so the number of sets can no longer change" in page
    page = post(client_for, tournament, organiser, preset=mingle.pk).content.decode()
    assert "the pods are drawn, so the rules can no longer change" in page
    tournament.refresh_from_db()
    assert tournament.qualifying_sets == 3 and tournament.preset.slug == "classic"
    assert post(client_for, tournament, organiser).status_code == 302  # other changes save


def test_the_service_checks_again_under_the_lock(tournament, organiser):
    for _ in range(3):
        PlayerFactory(tournament=tournament)
    tournament.capacity = 2
    with pytest.raises(UserFacingError, match="3 players are registered"):
        service.update_tournament(tournament, ["capacity"], actor=organiser)
    tournament.refresh_from_db()
    assert tournament.capacity == 120
    assert not AuditEntry.objects.filter(action="tournament.edited").exists()
