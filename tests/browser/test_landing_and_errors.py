"""In Chromium, on a 390×844 phone and a 1366×900 laptop: each role signs in and lands on its
work, the menu fits one line, the stage page fits a phone, an error page helps, and a form
saved after signing in again in another tab keeps what was typed."""

from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from tests.conftest import policy_violations
from tests.support.factories import PASSWORD, drawn_stage
from tests.support.web import log_in, url
from tournaments.models import Player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1366, "height": 900}}
SCREENSHOTS = "/tmp/h16land-{}.png"


@pytest.fixture
def open_at(browser, live_server):
    """A browser context at a given size; the content security policy must block nothing."""
    contexts = []

    def make(device):
        context = browser.new_context(base_url=live_server.url, **device)
        context.set_default_timeout(10_000)
        contexts.append((context, policy_violations(context)))
        return context.new_page()

    yield make
    for context, violations in contexts:
        context.close()
        assert not violations, violations


def sign_in(page, user, *, tap):
    """The login form as a person fills it, without a `next`: where it lands is the site's."""
    page.goto(reverse("login"))
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(PASSWORD)
    button = page.get_by_role("button", name="Log in")
    button.tap() if tap else button.click()
    page.wait_for_url(lambda address: urlsplit(address).path != reverse("login"))


def path_of(page) -> str:
    return urlsplit(page.url).path


@pytest.mark.parametrize("device", ["phone", "laptop"])
def test_each_role_lands_on_its_work(
    device, open_at, tournament, organiser, staff_user, admin_user
):
    from playwright.sync_api import expect

    drawn_stage(tournament, organiser, players=24, staff=staff_user)
    phone = device == "phone"
    for user, page_name in (
        (staff_user, "my-pods"),
        (admin_user, "printouts"),
        (organiser, "tournament-dashboard"),
    ):
        page = open_at(PHONE if phone else LAPTOP)
        sign_in(page, user, tap=phone)
        assert path_of(page) == url(page_name, tournament), user.username
        if page_name == "my-pods":
            expect(page.get_by_role("link", name="Pod 1")).to_be_visible()
            if phone:
                page.screenshot(path=SCREENSHOTS.format("staff-landing-phone"), full_page=True)
        if page_name == "tournament-dashboard":
            step = page.locator("#next-step")
            expect(step).to_contain_text("Round 1 is being played: 0 of 2 pods reported.")
            expect(step.get_by_role("link", name="Stages")).to_be_visible()
        no_sideways_scroll(page)


def test_staff_of_two_events_choose_on_a_phone(open_at, tournament, staff_user):
    from playwright.sync_api import expect

    from tests.support.factories import TournamentFactory, grant

    other = TournamentFactory(name="Spring Bunco", date=tournament.date)
    grant(other, staff_user, "staff")
    page = open_at(PHONE)
    sign_in(page, staff_user, tap=True)
    assert path_of(page) == reverse("landing")
    page.get_by_role("link", name="Spring Bunco").tap()
    page.wait_for_url(f"**{url('my-pods', other)}")
    expect(page.get_by_role("heading", name="My pods")).to_be_visible()


def no_sideways_scroll(page):
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(0, 8).map(e => e.tagName + '.' + e.className + '#' + e.id + ' '
                              + Math.round(e.getBoundingClientRect().right))"""
    )
    assert widths[0] <= widths[1], f"{page.url}: {widths[0]} px wide in {widths[1]} px: {wide}"


def test_the_organisers_menu_fits_one_line_at_1366(open_at, tournament, organiser):
    from playwright.sync_api import expect

    tournament.name = "Pink Bunco Night for the Children's Hospital"
    tournament.save()
    page = open_at(LAPTOP)
    sign_in(page, organiser, tap=False)
    items = page.locator("#nav > ul > li")
    boxes = [items.nth(i).bounding_box() for i in range(items.count())]
    assert len(boxes) >= 6
    tops = {round(box["y"]) for box in boxes}
    assert max(tops) - min(tops) <= 2, boxes  # one line
    assert page.locator("nav.navbar").bounding_box()["height"] < 70
    assert max(box["x"] + box["width"] for box in boxes) <= 1366
    # Every one of the 13 pages is one click into a group away.
    page.get_by_role("button", name="Set-up").click()
    page.screenshot(path=SCREENSHOTS.format("menu-1366"))
    audit_log = page.locator(".navbar").get_by_role("link", name="Audit log", exact=True)
    expect(audit_log).to_be_visible()
    audit_log.click()
    page.wait_for_url(f"**{url('audit-log', tournament)}")
    expect(page.locator('[aria-current="page"]', has_text="Audit log")).to_have_count(1)


def test_the_stage_page_fits_a_phone(open_at, tournament, organiser):
    drawn_stage(tournament, organiser, players=36)
    page = open_at(PHONE)
    log_in(page, organiser, url("stage-control", tournament), tap=True)
    page.wait_for_load_state("networkidle")
    no_sideways_scroll(page)
    # Nor inside a scrolling box: every table's columns are on the screen.
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('table')]
        .filter(t => t.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map(t => t.id || t.className)"""
    )
    assert not overflowing
    page.screenshot(path=SCREENSHOTS.format("stage-phone"), full_page=True)


def test_an_error_page_on_a_phone_offers_the_way_back(open_at, tournament, staff_user):
    from playwright.sync_api import expect

    page = open_at(PHONE)
    sign_in(page, staff_user, tap=True)
    response = page.goto(url("stage-control", tournament))
    assert response.status == 403
    expect(
        page.get_by_role("heading", name="This page is not open to your account")
    ).to_be_visible()
    expect(page.locator("#who-can-grant")).to_contain_text("Staff & admins")
    page.screenshot(path=SCREENSHOTS.format("error-403-phone"), full_page=True)
    page.get_by_role("link", name="Your work tonight").tap()
    page.wait_for_url(f"**{url('my-pods', tournament)}")
    response = page.goto("/no/such/page/")
    assert response.status == 404
    expect(page.get_by_role("heading", name="There is no page at this address")).to_be_visible()
    page.screenshot(path=SCREENSHOTS.format("error-404-phone"), full_page=True)


def test_signing_in_again_in_another_tab_keeps_the_entry(open_at, tournament, organiser):
    from playwright.sync_api import expect

    form = open_at(LAPTOP)
    sign_in(form, organiser, tap=False)
    form.goto(url("player-add", tournament))
    form.locator("#id_name").fill("Dorothy Vance")
    form.locator("#id_group_name").fill("Tuesday Club")

    other = form.context.new_page()  # the same browser: a second tab
    other.goto(reverse("home"))
    other.locator(".navbar .dropdown-toggle", has_text=organiser.username).click()
    with other.expect_navigation():
        other.get_by_role("button", name="Log out").click()
    sign_in(other, organiser, tap=False)

    form.get_by_role("button", name="Add player", exact=True).click()
    expect(form.get_by_role("heading", name="press save once more")).to_be_visible()
    kept = form.locator("#kept-entry")
    expect(kept).to_contain_text("Dorothy Vance")
    expect(kept).to_contain_text("Tuesday Club")
    assert not Player.objects.filter(name="Dorothy Vance").exists()
    form.screenshot(path=SCREENSHOTS.format("csrf-kept"), full_page=True)

    form.get_by_role("button", name="Save again").click()
    form.wait_for_url(lambda address: "/players/add/" not in address)
    assert Player.objects.filter(name="Dorothy Vance", group_name="Tuesday Club").count() == 1


def test_a_tap_at_the_desk_after_signing_in_again_elsewhere_still_saves(
    open_at, tournament, organiser
):
    from playwright.sync_api import expect

    from tests.support.factories import PlayerFactory

    PlayerFactory(tournament=tournament, name="Odette Quill")
    desk = open_at(LAPTOP)
    log_in(desk, organiser, url("checkin-desk", tournament))
    desk.locator("#checkin-q").press_sequentially("Odet", delay=40)
    row = desk.locator(".checkin-row", has_text="Odette Quill")
    expect(row).to_have_count(1)  # shown with the token of the sign-in before

    other = desk.context.new_page()
    other.goto(reverse("home"))
    other.locator(".navbar .dropdown-toggle", has_text=organiser.username).click()
    with other.expect_navigation():
        other.get_by_role("button", name="Log out").click()
    sign_in(other, organiser, tap=False)

    row.get_by_role("button", name="Check in").click()  # htmx: the renewed token from the cookie
    expect(row).to_contain_text("✓ Checked in")
    assert Player.objects.get(name="Odette Quill").checked_in_at is not None
