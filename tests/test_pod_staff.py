"""One Save for the staff of every pod: ticks in several rows are all saved, a pod left as
shown is not touched, and a pod someone else changed meanwhile is refused with nothing saved."""

from __future__ import annotations

import pytest

from tests.support.factories import UserFactory, checked_in, grant
from tests.support.web import text, url
from tournaments.models import AuditEntry
from tournaments.services import stages as stage_service

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(tournament, organiser):
    checked_in(tournament, 36)  # three pods
    return stage_service.draw_qualifying(tournament, actor=organiser, seed=20260501)


@pytest.fixture
def crew(tournament, staff_user):
    second = UserFactory(username="second")
    grant(tournament, second, "staff")
    return staff_user, second


def form(shown: dict[int, list[int]], ticked: dict[int, list[int]]) -> dict:
    data: dict = {"pod": list(shown)}
    for number, ids in shown.items():
        data[f"shown-{number}"] = ",".join(map(str, ids))
        data[f"staff-{number}"] = ticked.get(number, [])
    return data


def test_ticks_in_several_rows_are_saved_by_one_save(
    tournament, drawn, organiser, client_for, crew
):
    a, b = crew
    org = client_for(organiser)
    page = text(org.get(url("stage-control", tournament)))
    assert 'id="save-staff"' in page and 'form="staff-form"' in page
    sent = form({1: [], 2: [], 3: []}, {1: [a.pk], 2: [a.pk, b.pk]})
    page = text(org.post(url("stage-staff-all", tournament), sent, follow=True))
    assert "Staff saved for pods 1, 2." in page
    assert list(drawn.pods.get(number=1).staff.all()) == [a]
    assert set(drawn.pods.get(number=2).staff.all()) == {a, b}
    assert not drawn.pods.get(number=3).staff.exists()
    assert AuditEntry.objects.filter(action="pod.staff").count() == 2


def test_a_pod_changed_by_someone_else_is_refused_and_nothing_saved(
    tournament, drawn, organiser, client_for, crew
):
    a, b = crew
    org = client_for(organiser)
    # Another organiser gives pod 2 to b after this page was drawn (showing nobody).
    drawn.pods.get(number=2).staff.set([b])
    sent = form({1: [], 2: [], 3: []}, {1: [a.pk], 2: [a.pk]})
    page = text(org.post(url("stage-staff-all", tournament), sent, follow=True))
    assert "Someone else changed the staff of pod 2" in page
    assert not drawn.pods.get(number=1).staff.exists()
    assert list(drawn.pods.get(number=2).staff.all()) == [b]
    # Untouched rows do not overwrite it: pod 2 sent as shown now, pod 1 ticked.
    sent = form({1: [], 2: [b.pk]}, {1: [a.pk], 2: [b.pk]})
    page = text(org.post(url("stage-staff-all", tournament), sent, follow=True))
    assert "Staff saved for pod 1." in page
    assert list(drawn.pods.get(number=2).staff.all()) == [b]


def test_bad_ticks_change_nothing(tournament, drawn, organiser, client_for, crew):
    org = client_for(organiser)
    outsider = UserFactory(username="outsider")
    sent = form({1: []}, {1: [outsider.pk]})
    page = text(org.post(url("stage-staff-all", tournament), sent, follow=True))
    assert "Only staff accounts of this tournament" in page
    page = text(org.post(url("stage-staff-all", tournament), {"pod": ["x"]}, follow=True))
    assert "could not be read" in page
    assert not AuditEntry.objects.filter(action="pod.staff").exists()
