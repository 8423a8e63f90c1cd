"""Shared fixtures: accounts per role, a browser, and the rule that CI never skips.

With BUNCO_REQUIRE_SERVICES=1 (set by .ci/run) a test that would be skipped because
PostgreSQL, Redis or Chromium is missing fails instead, so a green CI means they ran.
"""

import os
import shutil

import pytest

from tests.support.overrides import settings_for_tests

# Playwright's sync API runs an event loop in the test thread; Django's ORM refuses to run
# inside one unless told the test knows what it is doing.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

REQUIRE_SERVICES = os.environ.get("BUNCO_REQUIRE_SERVICES") == "1"
CHROMIUM = os.environ.get("BUNCO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_SERVICES and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"Skipped, but BUNCO_REQUIRE_SERVICES=1 forbids skips: {reason}"


@pytest.fixture(autouse=True)
def _settings_for_tests(settings, tmp_path):
    """The fast hasher, media in the test's own folder, plain static files: see
    tests/support/overrides.py, which module-scoped scenarios share."""
    for name, value in settings_for_tests(settings, tmp_path / "media").items():
        setattr(settings, name, value)


@pytest.fixture
def eager_tasks():
    """Celery tasks run in-process even when REDIS_URL is set; a test may switch it off."""
    from bunco_site.celery import app as celery_app

    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = saved


@pytest.fixture(autouse=True)
def _service_markers(request):
    if request.node.get_closest_marker("postgres"):
        from django.db import connection

        if connection.vendor != "postgresql":
            pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://...")
    if request.node.get_closest_marker("redis") and not os.environ.get("REDIS_URL"):
        pytest.skip("needs Redis: set REDIS_URL=redis://...")


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.skip(f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def policy_violations(context) -> list[str]:
    """What the content security policy blocked in this browser context, as Chromium logs it:
    a browser test that passes while the policy blocked something would hide a broken page."""
    found: list[str] = []
    context.on(
        "console",
        lambda msg: (
            found.append(f"{msg.page.url if msg.page else '?'}: {msg.text}")
            if "Content Security Policy" in msg.text
            else None
        ),
    )
    return found


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    violations = policy_violations(context)
    page = context.new_page()
    yield page
    context.close()
    assert not violations, violations


@pytest.fixture
def phone_page(browser, live_server):
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    context.set_default_timeout(10_000)
    violations = policy_violations(context)
    page = context.new_page()
    yield page
    context.close()
    assert not violations, violations


@pytest.fixture
def organiser(db):
    from tests.support.factories import OrganiserFactory

    return OrganiserFactory()


@pytest.fixture
def tournament(organiser):
    from tests.support.factories import TournamentFactory

    return TournamentFactory(organiser=organiser)


@pytest.fixture
def staff_user(tournament):
    from tests.support.factories import member

    return member(tournament, "staff", "staffer")


@pytest.fixture
def admin_user(tournament):
    from tests.support.factories import member

    return member(tournament, "admin", "prizeadmin")


@pytest.fixture
def client_for(client):
    """A fresh logged-in client for a given user: `client_for(user)`."""
    from django.test import Client

    def make(user):
        c = Client()
        c.force_login(user)
        return c

    return make
