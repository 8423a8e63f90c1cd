"""In Chromium on a phone with the network switched off: staff keep recording, the entries wait
in the phone's queue (static/js/queue.js) and reach the server exactly once when it returns.

Without the service worker the pages are opened as a venue laptop serves them, over plain HTTP
at a name that is not localhost (`venue.test`, mapped to the test server by Chromium's host
resolver): Chromium treats 127.0.0.1 and localhost as secure and would run the worker, and a
switch in the site to turn it off would test a page no venue ever serves. With the worker the
pages come from localhost, and the browser is closed and started again on the same profile.
"""

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from scoring.models import TableResult
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, policy_violations
from tests.support.factories import drawn_stage, member, record_pod
from tests.support.web import log_in
from tournaments.models import Seat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SCREENSHOTS = "/tmp/offline-{}.png"


def results(pod):
    """(table, version, winner) of every stored version, whoever saved it."""
    return sorted(
        TableResult.objects.filter(pod=pod, round__number=1).values_list(
            "table", "version", "winner"
        )
    )


def at_pod(page, tournament, organiser, staff_user):
    """Pod 1 of a drawn qualifying stage, its round 1 open, and its staff member on its page."""
    stage = drawn_stage(tournament, organiser, players=12, staff=staff_user)
    pod_page = reverse("pod-detail", args=[tournament.slug, 1])
    log_in(page, staff_user, pod_page, tap=True)
    return stage, stage.pods.get(), pod_page


def waiting(page, text):
    from playwright.sync_api import expect

    expect(page.locator("#queue-banner .queue-count")).to_contain_text(text)


def record_writes(context, traffic):
    """Every POST the browser tried and how it ended, for a failure's message."""
    context.on("requestfailed", lambda r: r.method == "POST" and traffic.append((r.url, r.failure)))
    context.on(
        "response", lambda r: r.request.method == "POST" and traffic.append((r.url, r.status))
    )


def sent_everything(page, traffic=()):
    from playwright.sync_api import expect

    try:
        expect(page.locator("#queue-banner")).to_have_attribute("data-waiting", "0", timeout=20_000)
    except AssertionError as error:
        raise AssertionError(f"{error}\nWrites tried: {list(traffic)}") from None
    expect(page.locator("#queue-banner")).to_have_attribute("data-held", "0")


@pytest.fixture
def venue_page(browser, live_server, settings):
    """A phone on the venue's network: http://venue.test:<port>, not a secure context. Its
    own Chromium (the host mapping is a launch option), from the session's Playwright."""
    port = urlsplit(live_server.url).port
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "venue.test"]
    args = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP venue.test 127.0.0.1"]
    venue = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=args)
    context = venue.new_context(base_url=f"http://venue.test:{port}", **PHONE)
    context.set_default_timeout(10_000)
    violations = policy_violations(context)
    yield context.new_page()
    venue.close()
    assert not violations, violations


def test_three_tables_recorded_offline_on_plain_http_are_stored_once(
    venue_page, tournament, organiser, staff_user
):
    page = venue_page
    _, pod, _ = at_pod(page, tournament, organiser, staff_user)
    assert page.evaluate("[window.isSecureContext, 'serviceWorker' in navigator]") == [
        False,
        False,
    ]

    page.context.set_offline(True)
    for table, winner in {1: 0, 2: 1, 3: 1}.items():
        page.locator(f"#t{table}-winner-{winner}").tap()
        form = page.locator(f"#table-{table}-form")
        assert "Waiting to send" in form.locator(".queue-status").inner_text()
    waiting(page, "3 results waiting to send: this phone is offline")
    # A second thought about table 1, typed on top of the first: sent after it, on its version.
    page.locator("#t1-winner-1").tap()
    waiting(page, "4 results waiting to send")
    page.screenshot(path=SCREENSHOTS.format("plain-queued"), full_page=True)
    assert results(pod) == []

    page.context.set_offline(False)
    sent_everything(page)
    assert results(pod) == [(1, 1, 0), (1, 2, 1), (2, 1, 1), (3, 1, 1)]
    current = TableResult.objects.filter(pod=pod, is_current=True)
    assert sorted(current.values_list("table", "version", "entered_by")) == [
        (1, 2, staff_user.pk),
        (2, 1, staff_user.pk),
        (3, 1, staff_user.pk),
    ]
    assert "Sent" in page.locator("#table-3-form .queue-status").inner_text()


STALE_LEASE = """user => new Promise((resolve, reject) => {
    const open = indexedDB.open("bunco-queue-" + user, 1);
    open.onsuccess = () => {
        const t = open.result.transaction(["meta"], "readwrite");
        t.objectStore("meta").put({name: "sender", tab: "a-closed-tab", until: Date.now() + 60000});
        t.oncomplete = () => resolve(true);
        t.onerror = () => reject(t.error);
    };
    open.onerror = () => reject(open.error);
})"""


def test_a_sender_lease_left_by_a_closed_tab_does_not_hold_the_line(
    venue_page, tournament, organiser, staff_user
):
    """A tab closed mid-send leaves its lease for a minute; the phone asks whether that tab is
    still there, nobody answers, and the queue goes out at once instead of a minute later."""
    page = venue_page
    _, pod, _ = at_pod(page, tournament, organiser, staff_user)
    page.context.set_offline(True)
    page.locator("#t1-winner-0").tap()
    waiting(page, "1 result waiting to send: this phone is offline")
    assert page.evaluate(STALE_LEASE, staff_user.pk)

    page.context.set_offline(False)
    from playwright.sync_api import expect

    expect(page.locator("#queue-banner")).to_have_attribute("data-waiting", "0", timeout=8_000)
    assert results(pod) == [(1, 1, 0)]


def test_two_tabs_on_the_pod_send_the_queue_once(venue_page, tournament, organiser, staff_user):
    """Both tabs see the same queue; the one holding the lease sends, the other, told it is
    there, waits: each result is stored once and both banners empty."""
    page = venue_page
    _, pod, pod_page = at_pod(page, tournament, organiser, staff_user)
    other = page.context.new_page()
    other.goto(pod_page)
    page.context.set_offline(True)
    for table, winner in {1: 0, 2: 1, 3: 1}.items():
        page.locator(f"#t{table}-winner-{winner}").tap()
    waiting(page, "3 results waiting to send")
    other.evaluate("window.dispatchEvent(new Event('offline'))")
    waiting(other, "3 results waiting to send")

    page.context.set_offline(False)
    sent_everything(page)
    sent_everything(other)
    assert results(pod) == [(1, 1, 0), (2, 1, 1), (3, 1, 1)]


def test_with_the_service_worker_the_queue_outlives_the_browser_while_offline(
    browser, live_server, tournament, organiser, staff_user, tmp_path, request
):
    from playwright.sync_api import expect

    stage = drawn_stage(tournament, organiser, players=12, staff=staff_user)
    pod = stage.pods.get()
    pod_page = reverse("pod-detail", args=[tournament.slug, 1])
    table_1 = reverse("table-result", args=[tournament.slug, 1, 1, 1])
    profile = tmp_path / "profile"
    traffic = []

    def start(**options):
        context = browser.browser_type.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            base_url=live_server.url,
            **PHONE,
            **options,
        )
        # Closed even when an assertion fails: a browser left running would go on sending its
        # queue to a server whose database is being emptied for the next test.
        request.addfinalizer(context.close)
        context.set_default_timeout(10_000)
        record_writes(context, traffic)
        return context, policy_violations(context)

    context, violations = start()
    page = context.pages[0] if context.pages else context.new_page()
    log_in(page, staff_user, pod_page, tap=True)
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the worker, which keeps this page and the table forms
    expect(page.locator("#table-1")).to_be_visible()
    page.wait_for_function(
        "caches.open('bunco-staff-pages-1').then(c => c.keys())"
        ".then(keys => keys.filter(k => /table\\/\\d+\\/$/.test(k.url)).length === 3)",
        timeout=30_000,
    )

    context.set_offline(True)
    # The worker's own requests are offline too: a page it never kept is not there.
    page.goto(reverse("pod-detail", args=[tournament.slug, 2]))
    expect(page.locator("body")).to_contain_text("This phone is offline")
    response = page.goto(table_1)  # from the phone's copy
    assert response.from_service_worker
    page.locator("#winner-0").tap()
    expect(page.locator("#result-form .queue-status")).to_contain_text("Waiting to send")
    page.goto(pod_page)
    page.locator("#t2-winner-1").tap()
    page.locator("#t3-winner-0").tap()
    waiting(page, "3 results waiting to send: this phone is offline")
    assert results(pod) == []
    context.close()  # the browser is closed while offline
    assert not violations, violations

    context, violations = start(offline=True)
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(pod_page)
    waiting(page, "3 results waiting to send: this phone is offline")
    page.screenshot(path=SCREENSHOTS.format("restarted-offline"), full_page=True)
    assert results(pod) == []

    context.set_offline(False)
    sent_everything(page, traffic)
    assert results(pod) == [(1, 1, 0), (2, 1, 1), (3, 1, 0)]
    context.close()
    assert not violations, violations


def test_a_result_changed_during_the_drop_out_comes_back_as_a_conflict(
    phone_page, tournament, organiser, staff_user
):
    from playwright.sync_api import expect

    page = phone_page
    stage, pod, pod_page = at_pod(page, tournament, organiser, staff_user)
    colleague = member(tournament, "staff", "colleague")
    pod.staff.add(colleague)
    # Online, a tap saves at once and the page shows it, as the form's own redirect did.
    page.locator("#t3-winner-0").tap()
    expect(page.get_by_role("alert").filter(has_text="Table 3 saved")).to_be_visible()
    expect(page.locator("#reported")).to_have_text("1 of 3 tables reported")

    page.context.set_offline(True)
    page.locator("#t1-winner-0").tap()
    page.locator("#t2-winner-0").tap()
    waiting(page, "2 results waiting to send")
    # Meanwhile a colleague, still on the network, records table 1 the other way.
    record_pod(pod, stage.rounds.get(number=1), colleague, [1])

    page.context.set_offline(False)
    held = page.locator("#queue-banner .queue-held")
    expect(held).to_have_count(1, timeout=20_000)
    expect(held).to_contain_text("Table 1, round 1: conflict.")
    expect(held).to_contain_text("You entered: Seats 1 & 3")
    expect(page.locator("#queue-banner")).to_have_attribute("data-waiting", "0")
    page.screenshot(path=SCREENSHOTS.format("conflict"), full_page=True)
    # Nothing overwritten: table 1 is the colleague's, table 2 went through.
    assert results(pod) == [(1, 1, 1), (2, 1, 0), (3, 1, 0)]
    assert TableResult.objects.get(pod=pod, table=1).entered_by == colleague

    held.get_by_role("link", name="Open it to resolve").tap()
    page.wait_for_url(re.compile(r"/table/1/"))
    expect(page.locator("#history")).to_contain_text("colleague")
    # Still listed on the table's own page until it is settled or discarded, without a
    # link to the page it is on; what was tapped in words, not the button's text.
    expect(page.locator("#queue-banner .queue-held")).to_have_count(1)
    expect(held).to_contain_text("Its form is on this page.")
    seats = Seat.objects.filter(pod=pod, round__number=1, table=1, seat__in=(1, 3))
    names = " & ".join(s.player.name for s in seats.select_related("player").order_by("seat"))
    expect(held).to_contain_text(f"You entered: Seats 1 & 3 ({names}) won.")
    expect(held.get_by_role("link", name="Open it to resolve")).to_have_count(0)

    # Signing out with something unsent asks first; saying no keeps it.
    answers = iter([False, True])
    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.accept() if next(answers) else dialog.dismiss()

    page.on("dialog", answer)
    sign_out = page.locator("form[data-sign-out]")
    sign_out.evaluate("form => form.requestSubmit()")
    expect(page.locator("#queue-banner .queue-held")).to_have_count(1)
    with page.expect_navigation():
        sign_out.evaluate("form => form.requestSubmit()")
    assert len(questions) == 2 and "1 result on this phone has not been saved" in questions[0]

    log_in(page, staff_user, pod_page, tap=True)
    expect(page.locator("#queue-banner")).to_have_attribute("data-held", "0")
    assert page.evaluate("indexedDB.databases().then(d => d.map(x => x.name))") in (
        [],
        [f"bunco-queue-{staff_user.pk}"],
    )


KEPT_PAGES = (
    "caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys()))))"
    ".then(lists => lists.flat().map(r => new URL(r.url).pathname))"
)


def test_a_session_that_runs_out_leaves_no_pages_for_the_next_person(
    browser, live_server, tournament, organiser, staff_user
):
    """Signing out deletes the kept pages; a session that ends without it (it ran out, or the
    phone was handed on) must not leave them either: the sign-in page it leads to deletes
    them before anyone signs in on the phone."""
    from playwright.sync_api import expect

    drawn_stage(tournament, organiser, players=12, staff=staff_user)
    pod_page = reverse("pod-detail", args=[tournament.slug, 1])
    context = browser.new_context(base_url=live_server.url, **PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, staff_user, pod_page, tap=True)
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function(f"{KEPT_PAGES}.then(paths => paths.includes('{pod_page}'))")

    context.clear_cookies()  # the session is gone: the next page is the sign-in page
    page.goto(pod_page)
    expect(page.locator("#id_username")).to_be_visible()
    page.wait_for_function(f"{KEPT_PAGES}.then(paths => paths.length === 0)")
    context.set_offline(True)
    page.goto(pod_page)
    expect(page.locator("body")).to_contain_text("This phone is offline")
    assert "Pod 1" not in page.content()

    context.close()
