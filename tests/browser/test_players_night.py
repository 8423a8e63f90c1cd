"""In Chromium on a phone (390×844): a party of three registers in one form, the event is then
full and a latecomer joins the waitlist; one of the party cancels from their own page, the
latecomer is promoted, the desk checks the party in with one tap, and after the draw the
latecomer sees their seat on their own page."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.services.rounds import start_next_round
from tests.support.factories import PlayerFactory
from tests.support.web import log_in
from tournaments.models import Player
from tournaments.services.stages import draw_qualifying

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT = "/tmp/players-night-phone.png"


def test_party_waitlist_and_own_page_on_a_phone(
    phone_page, browser, live_server, tournament, organiser
):
    from playwright.sync_api import expect

    page = phone_page
    tournament.capacity = 11
    tournament.save()
    PlayerFactory.create_batch(8, tournament=tournament, checked_in_at=timezone.now())

    # A party of three in one form.
    page.goto(reverse("tournament-public", args=[tournament.slug]))
    expect(page.locator("#places-left")).to_have_text("3 places left")
    page.get_by_role("link", name="Register").tap()
    page.get_by_label("Your name").fill("Ann Booker")
    page.locator("#id_email").fill("ann@example.org")
    page.locator("#id_member-0-name").fill("Bea Friend")
    page.locator("#id_member-1-name").fill("Cid Friend")
    page.locator("#id_member-1-costume_contest").check()
    page.get_by_role("button", name="Register").tap()
    expect(page.locator("#party-codes li")).to_have_count(3)
    assert Player.objects.filter(party__isnull=False, status="registered").count() == 3
    assert Player.objects.get(name="Cid Friend").costume_contest

    # Full now: a latecomer is offered the waitlist before typing anything.
    late = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    ).new_page()
    late.goto(reverse("tournament-public", args=[tournament.slug]))
    expect(late.locator("#registration-full")).to_be_visible()
    late.get_by_role("link", name="Join the waitlist").tap()
    late.get_by_label("Your name").fill("Wendy Wait")
    late.locator("#id_email").fill("wendy@example.org")
    # Full, the button is the yes: there is no box to tick as well.
    expect(late.get_by_label("Put me (and my party) on the waitlist")).to_have_count(0)
    late.get_by_role("button", name="Join the waitlist").tap()
    expect(late.get_by_role("heading", name=re.compile("on the waitlist"))).to_be_visible()
    late.get_by_role("link", name="your own page").tap()
    expect(late.locator("#player-status")).to_contain_text("number 1 in line")
    wendy_page = late.url

    # Bea cancels from her own page (the booker's confirmation links to it).
    page.get_by_role("link", name="Bea Friend's page").tap()
    page.get_by_label(re.compile("Yes, cancel my place")).check()
    page.get_by_role("button", name="Cancel my registration").tap()
    expect(page.locator("#player-status")).to_contain_text("Cancelled")
    wendy = Player.objects.get(name="Wendy Wait")
    assert wendy.status == "registered" and wendy.promoted_at is not None
    late.goto(wendy_page)
    expect(late.locator("#player-status")).to_contain_text("a freed place came to you")

    # The desk checks the party in with one tap, then Wendy.
    desk = reverse("checkin-desk", args=[tournament.slug])
    log_in(page, organiser, desk, tap=True)
    expect(page.locator("#promoted")).to_contain_text("Wendy Wait")
    page.locator("#checkin-q").press_sequentially("Ann Bo", delay=40)
    row = page.locator(".checkin-row", has_text="Ann Booker")
    row.get_by_role("button", name="Check in the whole party of Ann Booker").tap()
    expect(page.locator(".alert-success")).to_contain_text("Checked in 2 of the party")
    assert set(
        Player.objects.filter(party__isnull=False, checked_in_at__isnull=False).values_list(
            "name", flat=True
        )
    ) == {"Ann Booker", "Cid Friend"}
    Player.objects.filter(pk=wendy.pk).update(checked_in_at=timezone.now())

    # After the draw Wendy sees her seat and partner on her own page.
    stage = draw_qualifying(tournament, actor=organiser, seed=1)
    start_next_round(stage, actor=organiser)
    late.goto(wendy_page)
    seat = stage.rounds.get(number=1).seats.get(player=wendy)
    expect(late.locator("#my-seat")).to_have_text(
        f"Pod {seat.pod.number}, table {seat.table}, seat {seat.seat}"
    )
    expect(late.locator("#my-partner")).to_contain_text("Partner:")
    late.screenshot(path=SCREENSHOT, full_page=True)
    late.context.close()


FAKE_CAMERA = """
window.BarcodeDetector = class {
  constructor() {}
  detect() { return Promise.resolve([{ rawValue: window.__qr || "" }]); }
};
navigator.mediaDevices.getUserMedia = () =>
  Promise.resolve(document.createElement("canvas").captureStream());
"""


def test_the_desk_scans_a_players_qr_code(page, tournament, organiser):
    """Where the browser reads barcodes, the desk scans the QR code of a player's page and
    the search finds them; where it does not, the button stays hidden and typing works."""
    from playwright.sync_api import expect

    from tournaments.services.player_links import player_page_path

    carol = PlayerFactory(tournament=tournament, name="Carol Scanned")
    PlayerFactory(tournament=tournament, name="Other Person")
    desk = reverse("checkin-desk", args=[tournament.slug])
    log_in(page, organiser, desk)
    expect(page.locator("#qr-scan")).to_be_hidden()  # this Chromium has no barcode reader

    page.add_init_script(FAKE_CAMERA)
    page.reload()
    url = "http://venue.example" + player_page_path(carol, tournament.slug)
    page.evaluate(f"window.__qr = {url!r}")
    page.get_by_role("button", name="Scan a player's QR code").click()
    expect(page.locator("#checkin-q")).to_have_value(carol.code)
    expect(page.locator(".checkin-row")).to_have_count(1)
    expect(page.locator(".checkin-row")).to_contain_text("Carol Scanned")
    expect(page.locator("#qr-scan-video")).to_be_hidden()  # the camera is stopped
