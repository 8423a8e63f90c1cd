"""The hand-written pod statement builds what querysets load: the same rows, the same values of
the same types (dates, JSON, decimals through the ORM's converters), the same roles and staff
membership, on SQLite and PostgreSQL alike (CI runs this file on both)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.services.pod_lookup import pod_for_request
from tests.support.events import played_qualifying, semi_played
from tests.support.factories import UserFactory
from tests.support.scenarios import module_scenario
from tournaments.models import ChangeCounter, Pod, Role, Round, Stage, TournamentRole

pytestmark = pytest.mark.django_db


def build(monkeypatch):
    """Qualifying played and the semi-final drawn and played: two stages."""
    event = played_qualifying(24, 7, slug="pod-lookup")
    event.semi = semi_played(event)
    return event


event = module_scenario(build)


def values(instance) -> dict:
    return {
        f.attname: (type(getattr(instance, f.attname)), getattr(instance, f.attname))
        for f in type(instance)._meta.concrete_fields
    }


def expected_pod(event, kind: str | None, number: int) -> Pod:
    stages = Stage.objects.filter(tournament=event.tournament).order_by("-drawn_at", "-pk")
    stage = stages.filter(kind=kind).first() if kind else stages.first()
    return Pod.objects.select_related(
        "stage__tournament__preset", "stage__tournament__change_counter", "hostess"
    ).get(stage=stage, number=number)


def assert_same(found: Pod, expected: Pod) -> None:
    assert values(found) == values(expected)
    assert found.stage.get_deferred_fields() == {"draw_input"}  # read only if asked for
    assert values(found.stage) == values(expected.stage)
    tournament = found.stage.tournament
    assert values(tournament) == values(expected.stage.tournament)
    assert values(tournament.preset) == values(expected.stage.tournament.preset)
    assert values(tournament.change_counter) == values(expected.stage.tournament.change_counter)
    if expected.hostess is None:
        assert found.hostess is None
    else:
        assert values(found.hostess) == values(expected.hostess)


@pytest.mark.parametrize(
    "kind, round_number",
    [(None, 1), (Stage.Kind.QUALIFYING, 2), (Stage.Kind.SEMI_FINAL, None), ("bogus", 3)],
)
def test_the_pod_its_stage_and_round_are_what_querysets_load(event, kind, round_number):
    known_kind = kind if kind in Stage.Kind.values else None
    with CaptureQueriesContext(connection) as queries:
        found = pod_for_request(event.organiser, "pod-lookup", 1, kind, round_number)
    assert len(queries) == 1
    expected = expected_pod(event, known_kind, 1)
    assert_same(found, expected)
    assert found.latest_stage == event.semi.pk
    if round_number is None:
        assert found.url_round is None
    else:
        url_round = Round.objects.get(stage=expected.stage, number=round_number)
        assert values(found.url_round) == values(url_round)
        assert found.url_round.stage is found.stage


def test_a_hostess_is_read_with_her_pod(event):
    pod = Pod.objects.get(stage=event.semi, number=1)
    member = event.tournament.players.filter(seats__round__stage=event.semi).first()
    Pod.objects.filter(pk=pod.pk).update(hostess=member)
    found = pod_for_request(event.organiser, "pod-lookup", 1, None)
    assert values(found.hostess) == values(member)
    Pod.objects.filter(pk=pod.pk).update(hostess=None)
    assert pod_for_request(event.organiser, "pod-lookup", 1, None).hostess is None


def test_roles_and_staff_membership_are_the_persons_own(event):
    pod = expected_pod(event, None, 1)
    on_staff = pod.staff.first()
    outsider = UserFactory(username="pod-lookup-outsider")
    TournamentRole.objects.create(user=outsider, tournament=event.tournament, role=Role.STAFF)
    for user, assigned in [(on_staff, True), (outsider, False), (event.organiser, False)]:
        found = pod_for_request(user, "pod-lookup", 1, None, 1)
        held = set(
            TournamentRole.objects.filter(user=user, tournament=event.tournament).values_list(
                "role", flat=True
            )
        )
        assert {r for r in Role.values if getattr(found, f"holds_{r}")} == held
        assert found.assigned_to == (user.pk, assigned)
    anonymous = pod_for_request(AnonymousUser(), "pod-lookup", 1, None, 1)
    assert not any(getattr(anonymous, f"holds_{r}") for r in Role.values)
    assert not hasattr(anonymous, "assigned_to")


@pytest.mark.parametrize("round_number", [99, 2**40, 2**63 + 1])
def test_a_round_the_stage_does_not_have_is_none(event, round_number):
    found = pod_for_request(event.organiser, "pod-lookup", 1, None, round_number)
    assert found is not None and found.url_round is None


@pytest.mark.parametrize(
    "slug, number, kind",
    [("no-such-event", 1, None), ("pod-lookup", 99, None), ("pod-lookup", 2**63 + 1, None)],
)
def test_no_such_pod_is_none(event, slug, number, kind):
    assert pod_for_request(event.organiser, slug, number, kind, 1) is None


def test_a_tournament_without_a_counter_reads_it_later(event):
    ChangeCounter.objects.filter(tournament=event.tournament).delete()
    found = pod_for_request(event.organiser, "pod-lookup", 1, None, 1)
    with pytest.raises(ChangeCounter.DoesNotExist):
        found.stage.tournament.change_counter  # noqa: B018 - the access is the assertion
