"""Counted words agree with their number: "1 pod", "12 players", never "1 pods"."""

import pytest

from tests.support.factories import checked_in
from tests.support.web import text, url
from tournaments.foundation.text import count
from tournaments.models import AuditEntry
from tournaments.services import stages as stage_service


def test_count():
    assert count(1, "pod") == "1 pod"
    assert count(0, "ghost seat") == "0 ghost seats"
    assert count(3, "player") == "3 players"


@pytest.mark.django_db
def test_one_pod_reads_as_one_pod(tournament, organiser, client_for):
    checked_in(tournament, 12)
    stage_service.draw_qualifying(tournament, actor=organiser, seed=1)
    drawn = AuditEntry.objects.get(action="stage.drawn").summary
    assert "12 players in 1 pod, 0 ghost seats" in drawn
    page = text(client_for(organiser).get(url("stage-control", tournament)))
    assert "12 players in 1 pod, 0 ghost seats" in page
    assert "1 pods" not in page
