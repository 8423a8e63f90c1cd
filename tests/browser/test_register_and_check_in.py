"""In Chromium: a visitor registers online, then a volunteer checks them in at the door."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PlayerFactory
from tests.support.web import log_in
from tournaments.models import Player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT = "/tmp/checkin-phone.png"


def checked_in_count(page) -> int:
    return int(page.locator("#count-checked-in").inner_text().strip())


def check_in_at_desk(page, query, name, *, tap=False):
    """Types part of a name, taps Check in, and sees the count go up without a reload."""
    from playwright.sync_api import expect

    before = checked_in_count(page)
    page.evaluate("window.__stillTheSamePage = true")
    page.locator("#checkin-q").press_sequentially(query, delay=40)
    row = page.locator(".checkin-row", has_text=name)
    expect(row).to_have_count(1)
    button = row.get_by_role("button", name="Check in")
    button.tap() if tap else button.click()
    expect(page.locator("#count-checked-in")).to_have_text(str(before + 1))
    assert checked_in_count(page) == before + 1
    expect(row.get_by_role("button", name="Undo")).to_be_visible()
    expect(row).to_contain_text("✓ Checked in")
    assert page.evaluate("window.__stillTheSamePage") is True  # no reload happened
    return row


def test_visitor_registers_and_organiser_checks_them_in(page, tournament, organiser):
    from playwright.sync_api import expect

    PlayerFactory(tournament=tournament, name="Early Bird", checked_in_at=timezone.now())

    page.goto(reverse("register", args=[tournament.slug]))
    page.get_by_label("Your name").fill("Rosa Bellweather")
    page.locator("#id_email").fill("rosa@example.org")
    page.get_by_role("button", name="Register").click()
    code = page.locator("#registration-code")
    expect(code).to_have_text(re.compile(r"^\s*[A-Z2-9]{6}\s*$"))
    player = Player.objects.get(code=code.inner_text().strip(), tournament=tournament)
    assert player.name == "Rosa Bellweather" and player.checked_in_at is None

    desk = reverse("checkin-desk", args=[tournament.slug])
    log_in(page, organiser, desk)
    assert checked_in_count(page) == 1
    check_in_at_desk(page, "bellw", "Rosa Bellweather")

    player.refresh_from_db()
    assert player.checked_in_at is not None and player.checked_in_by == organiser
    # The search survives a reload (the URL carries it), and the player shows as checked in.
    page.reload()
    expect(page.locator("#checkin-q")).to_have_value("bellw")
    expect(page.locator(".checkin-row", has_text="Rosa Bellweather")).to_contain_text("Checked in")

    # Undo asks first, naming the player: cancelled, nothing changes; confirmed, it is undone.
    row = page.locator(".checkin-row", has_text="Rosa Bellweather")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    row.get_by_role("button", name="Undo").click()
    expect(row.get_by_role("button", name="Undo")).to_be_visible()
    assert asked == [
        "Undo Rosa Bellweather's check-in? They will show as not arrived until checked in again."
    ]
    assert checked_in_count(page) == 2
    player.refresh_from_db()
    assert player.checked_in_at is not None
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Undo").click()
    expect(row.get_by_role("button", name="Check in")).to_be_visible()
    expect(page.locator("#count-checked-in")).to_have_text("1")
    player.refresh_from_db()
    assert player.checked_in_at is None


def test_check_in_and_walk_in_on_a_phone(phone_page, tournament, organiser):
    from playwright.sync_api import expect

    page = phone_page
    PlayerFactory(tournament=tournament, name="Maria Delgado-Fitzgerald", group_name="Dice Divas")
    PlayerFactory(tournament=tournament, name="Mariam Okafor", group_name="Roll Models")
    PlayerFactory(tournament=tournament, name="Early Bird", checked_in_at=timezone.now())

    desk = reverse("checkin-desk", args=[tournament.slug])
    log_in(page, organiser, desk)
    row = check_in_at_desk(page, "mari", "Maria Delgado-Fitzgerald", tap=True)

    # Big tap targets, and nothing wider than the phone.
    box = row.get_by_role("button", name="Undo").bounding_box()
    assert box["height"] >= 44 and box["x"] + box["width"] <= 390
    other = page.locator(".checkin-row", has_text="Mariam Okafor").get_by_role(
        "button", name="Check in"
    )
    box = other.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 100
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # A walk-in: registered and checked in at once, with the code shown big.
    registered = int(page.locator("#count-registered").inner_text())
    before = checked_in_count(page)
    page.locator("#walkin_name").fill("Wanda Walker")
    page.locator("#walkin_group_name").fill("Late Crowd")
    page.get_by_role("button", name="Register & check in").tap()
    expect(page.locator("#walk-in-code")).to_have_text(re.compile(r"^\s*[A-Z2-9]{6}\s*$"))
    expect(page.locator("#count-registered")).to_have_text(str(registered + 1))
    assert checked_in_count(page) == before + 1
    walk_in = Player.objects.get(name="Wanda Walker")
    assert walk_in.source == Player.Source.WALK_IN and walk_in.checked_in_at is not None

    page.locator("#checkin-q").scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOT, full_page=True)


def test_desk_works_without_javascript(browser, live_server, tournament, organiser):
    """Progressive enhancement: search, Check in and walk-in are plain forms underneath."""
    from playwright.sync_api import expect

    PlayerFactory(tournament=tournament, name="Nora Noscript")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        desk = reverse("checkin-desk", args=[tournament.slug])
        log_in(page, organiser, desk)
        assert checked_in_count(page) == 0
        page.locator("#checkin-q").fill("nora")
        page.get_by_role("button", name="Search").click()
        row = page.locator(".checkin-row", has_text="Nora Noscript")
        row.get_by_role("button", name="Check in").click()
        expect(page.get_by_role("alert")).to_contain_text("Nora Noscript checked in at")
        assert checked_in_count(page) == 1
        expect(row.get_by_role("button", name="Undo")).to_be_visible()

        page.locator("#walkin_name").fill("Walter Walkin")
        page.get_by_role("button", name="Register & check in").click()
        expect(page.locator("#walk-in-code")).to_have_text(re.compile(r"^\s*[A-Z2-9]{6}\s*$"))
        assert checked_in_count(page) == 2
    finally:
        context.close()
