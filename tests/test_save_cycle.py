"""What a staff save costs in queries: the form, the save and the pod page it redirects to.

Staff repeat this cycle all evening, so its query count is pinned, each request and the
three together: 19 for a first entry, 20 for a correction (it also retires the old version)
and 20 when the result credits a bunco (the credits are written; the pages read them with
their results). It was 53 before issue 17; the change
counter's UPDATE, which the room's live pages need in every save's transaction, is counted.
Counted outside a test transaction (`transaction=True`), as the site runs: the save's BEGIN
and COMMIT count, a savepoint the test's own transaction would add does not. Sessions are
read from the shared cache, as they are wherever Redis is configured (settings.py).
"""

import re

import pytest

from tests.support.factories import drawn_stage, record_pod
from tests.test_results_pages import round_of, table_url

pytestmark = pytest.mark.django_db(transaction=True)

FORM, SAVE, POD_PAGE = 4, 11, 6


@pytest.fixture
def cached_sessions(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"


@pytest.fixture
def staff(cached_sessions, tournament, staff_user, client_for):
    return client_for(staff_user)


def cycle(client, url, data, most: int, django_assert_max_num_queries) -> str:
    """Form, save, pod page, each within its count and the three within `most`; the page."""
    with django_assert_max_num_queries(most):
        with django_assert_max_num_queries(FORM):
            form = client.get(url)
        assert form.status_code == 200
        base = re.search(r'name="base_version" value="(\d+)"', form.content.decode()).group(1)
        with django_assert_max_num_queries(SAVE):
            saved = client.post(url, {**data, "base_version": base})
        assert saved.status_code == 302, saved.content.decode()[:2000]
        with django_assert_max_num_queries(POD_PAGE):
            page = client.get(saved["Location"])
        assert page.status_code == 200
    return page.content.decode()


@pytest.mark.parametrize("players", [24, 240])
def test_a_first_entry_cycle_costs_at_most_19_queries(
    players, tournament, organiser, staff_user, staff, django_assert_max_num_queries
):
    tournament.capacity = 300
    tournament.save()
    drawn_stage(tournament, organiser, players=players, staff=staff_user)
    url = table_url(tournament, 1, 1, 2)
    staff.get(url)  # the session is in the cache, as it is after the first page of the night
    page = cycle(staff, url, {"winner": "1"}, 19, django_assert_max_num_queries)
    assert "Table 2 saved (round 1)" in page and "1 of 3 tables reported" in page
    credited = table_url(tournament, 1, 1, 3)
    page = cycle(
        staff, credited, {"winner": "0", "buncos_1": "1"}, 20, django_assert_max_num_queries
    )
    assert "Table 3 saved (round 1)" in page and "2 of 3 tables reported" in page


def test_a_correction_cycle_on_a_complete_pod_costs_at_most_20_queries(
    tournament, organiser, staff_user, staff, django_assert_max_num_queries
):
    stage = drawn_stage(tournament, organiser, staff=staff_user)
    pod = stage.pods.get(number=1)
    record_pod(pod, round_of(stage, 1), organiser, [0, 1, 0])
    url = table_url(tournament, 1, 1, 1)
    staff.get(url)
    page = cycle(
        staff,
        url,
        {"winner": "0", "points_13": "30", "points_24": "12"},
        20,
        django_assert_max_num_queries,
    )
    assert "Table 1 corrected (round 1)" in page and "Round 2 seating" in page
