"""Module-scoped scenarios: an event built once per test module and shared by its tests.

`module_scenario(build)` gives a module-scoped fixture. The first test of the module that asks
for it opens a transaction around the rest of the module, runs `build(monkeypatch)` in it
(with the settings the per-test fixtures of conftest.py give: the fast password hasher,
media files in a temporary folder, plain static files) and returns what `build` returned:
ids, ideally, so each test reads fresh rows. Each test still runs in pytest-django's own
transaction (the `db` fixture), a savepoint inside the module's, so whatever a test writes is
rolled back before the next one: tests may write freely and in any order. At the module's
end the module's transaction is rolled back too, so nothing is ever committed.

Tests that need their own connection (`transactional_db`, threads, a live server) cannot see
an uncommitted scenario; they build their own data.
"""

from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.test import override_settings

from tests.support.events import played_without_prizes
from tests.support.overrides import settings_for_tests
from tournaments.services import rehearsal


@contextmanager
def rolled_back_at_the_end(django_db_blocker):
    """A transaction around everything inside; rolled back, never committed, on the way out."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
    try:
        yield
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def module_scenario(build: Callable[[pytest.MonkeyPatch], Any]):
    """A module-scoped fixture whose value is `build(monkeypatch)`, built once per module."""

    @pytest.fixture(scope="module")
    def scenario(django_db_setup, django_db_blocker, tmp_path_factory):
        media = tmp_path_factory.mktemp("scenario-media")
        with rolled_back_at_the_end(django_db_blocker):
            with (
                django_db_blocker.unblock(),
                override_settings(**settings_for_tests(settings, media)),
                pytest.MonkeyPatch.context() as monkeypatch,
            ):
                built = build(monkeypatch)
            yield built

    return scenario


def prizeless_event(monkeypatch) -> int:
    """24 players of the Mesquite sheet (seed 2) played to the grand prize by the rehearsal,
    every card verified, no prize table yet: the tournament's id."""
    return played_without_prizes(monkeypatch).pk


def event_with_prizes_awarded(monkeypatch, players=24, seed=2):
    """The whole rehearsal of the Mesquite sheet: played, awarded, paid, books closed."""
    return rehearsal.rehearse(players=players, preset="mesquite", seed=seed)
