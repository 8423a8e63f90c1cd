"""In Chromium: the organiser settles the roll-offs and saves the qualifiers, draws the
semi-final, seats the final table, and runs the grand prize roll on a phone while the
projector board (1920x1080) follows every throw to the winner."""

import hashlib
import random
import re

import pytest
from django.urls import reverse

from tests.support.events import TIES_SEED, played_qualifying
from tests.support.factories import PASSWORD
from tests.support.web import log_in
from tournaments.models import FinalTable, Qualifier, RollOff, Stage, Tournament
from tournaments.rules.draws import draw_code
from tournaments.services.rehearsal import derived_seed, play_stage, settle_roll_offs, staff_pods

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = "/tmp/final-table-{}.png"
# The event's draw secret for this test: the final's dice code it gives makes throw 8 the
# first three of a kind, so the phone taps through a short final.
SECRET = hashlib.sha256(b"short final 1").hexdigest()


def success(page, text):
    from playwright.sync_api import expect

    expect(page.locator(".alert-success").filter(has_text=text)).to_be_visible()


def test_organiser_advances_seats_the_final_and_the_board_shows_the_winner(
    page, phone_page, browser, live_server
):
    from playwright.sync_api import expect

    event = played_qualifying(24, TIES_SEED)
    organiser, tournament = event.organiser, event.tournament
    Tournament.objects.filter(pk=tournament.pk).update(draw_secret=SECRET)
    organiser.set_password(PASSWORD)
    organiser.save()
    names = dict(tournament.players.values_list("pk", "name"))

    # The advancement page: pod 1 ties on wins; its players throw and staff type the dice.
    advancement_url = reverse("advancement", args=[tournament.slug])
    log_in(page, organiser, advancement_url)
    expect(page.locator("#save-qualifiers")).to_be_disabled()
    tie = page.locator("#tie-qualifying-1-wins")
    expect(tie).to_contain_text(names[event.pk(12)])
    page.screenshot(path=SCREENSHOTS.format("advancement-ties"), full_page=True)
    boxes = tie.locator("input.die-box")
    expect(boxes).to_have_count(2)
    boxes.nth(0).fill("6")
    boxes.nth(1).fill("2")
    tie.get_by_role("button", name="Record these dice").click()
    success(page, f"{names[event.pk(12)]} wins the roll-off (2 dice entered)")
    assert RollOff.objects.get(category_key="wins", group="1").faces == [6, 2]

    # The others are rolled on screen, one at a time, until no tie is left.
    rolled = 0
    while page.locator("[data-roll-on-screen]").count():
        page.locator("[data-roll-on-screen]").first.click()
        success(page, "the roll-off (rolled on screen")
        rolled += 1
    assert rolled == RollOff.objects.filter(source="site").count() >= 1
    expect(page.locator("#save-qualifiers")).to_be_enabled()
    expect(page.locator("#qualifying-roll-offs")).to_contain_text("Rolled on screen by the site")
    page.screenshot(path=SCREENSHOTS.format("advancement-ready"), full_page=True)
    page.locator("#save-qualifiers").click()
    success(page, "Saved: 4 players advance to the semi-final.")
    assert Qualifier.objects.count() == 4

    page.locator("#draw-semi").click()
    semi_code = draw_code(SECRET, "pods:semi_final#1")
    success(page, f"Semi-final drawn: 4 players in 1 pod, draw code {semi_code}.")
    expect(page.locator("#semi-stage-link")).to_be_visible()

    # The semi-final is played and verified on the usual pages (here, through the services).
    semi = Stage.objects.get(tournament=tournament, kind="semi_final")
    staff_pods(semi, event.staff, organiser)
    seeds = {p.number: random.Random(derived_seed(1, "semi", p.number)) for p in semi.pods.all()}
    play_stage(semi, seeds, organiser=organiser, last=semi.round_count)
    settle_roll_offs(semi, organiser=organiser)

    page.goto(advancement_url)
    expect(page.locator("#stage-semi_final")).to_contain_text("every card verified")
    page.screenshot(path=SCREENSHOTS.format("advancement-semi"), full_page=True)
    page.locator("#seat-final-button").click()
    page.wait_for_url(f"**{reverse('final-table', args=[tournament.slug])}")
    success(page, f"The final table is seated (draw code {draw_code(SECRET, 'final:seats#1')})")
    final = FinalTable.objects.get(tournament=tournament)
    finalists = [s.player.name for s in final.seats.select_related("player").order_by("seat")]

    # The projector board, in its own window: the four finalists instead of the seating.
    board_context = browser.new_context(
        base_url=live_server.url, viewport={"width": 1920, "height": 1080}
    )
    board = board_context.new_page()
    board.goto(reverse("board", args=[tournament.slug]))
    for name in finalists:
        expect(board.locator("#final-table")).to_contain_text(name)
    expect(board.locator("#final-now")).to_contain_text("Rolling for order")
    board.screenshot(path=SCREENSHOTS.format("board-seated"))

    # On a phone: roll for the order, then throw on screen until three of a kind.
    phone = phone_page
    final_url = reverse("final-table", args=[tournament.slug])
    log_in(phone, organiser, final_url)
    phone.screenshot(path=SCREENSHOTS.format("phone-seated"), full_page=True)
    phone.locator("#order-roll").tap()
    success(phone, "throws first (lowest die)")
    phone.screenshot(path=SCREENSHOTS.format("phone-order"), full_page=True)
    final.refresh_from_db()
    assert final.dice_seed == draw_code(SECRET, "final:dice#1") and len(final.order) == 4
    expect(phone.locator("#order-list")).to_contain_text(names[final.order[0]])
    for number in range(1, 9):
        thrower = names[final.order[(number - 1) % 4]]
        expect(phone.locator("#next-thrower")).to_contain_text(thrower)
        if number == 3:
            phone.screenshot(path=SCREENSHOTS.format("phone-throwing"), full_page=True)
            board.wait_for_timeout(5500)  # one poll
            expect(board.locator("#final-now")).to_contain_text("Throw 2")
            board.screenshot(path=SCREENSHOTS.format("board-throwing"))
        phone.locator("#throw-roll").tap()
        success(phone, f"{thrower} throws")
    final.refresh_from_db()
    winner = names[final.winner_id]
    expect(phone.locator("#winner")).to_contain_text(winner)
    expect(phone.locator("#throw-roll")).to_have_count(0)
    assert final.throws.count() == 8
    phone.screenshot(path=SCREENSHOTS.format("phone-winner"), full_page=True)

    # The board picks the winner up at its next poll, in huge type, and stops polling.
    expect(board.locator("#final-winner")).to_contain_text(winner, timeout=12_000)
    board.wait_for_timeout(1500)  # let the name's entrance finish before the picture
    board.screenshot(path=SCREENSHOTS.format("board-winner"))
    size = board.locator(".ft-champion").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size > 150  # 17vh of 1080 pixels
    assert re.search(r"three of a kind on throw 8", board.locator("#final-winner").inner_text())
    board_context.close()

    # No cash prizes at this event: the organiser publishes the draw secret by hand.
    page.goto(advancement_url)
    page.locator("#publish-draws").get_by_role("button").click()
    success(page, "The draw secret is published")

    # Once published, anyone reads how the evening went on the results page, and checks
    # every draw against the fingerprint shown since the start.
    Tournament.objects.filter(pk=tournament.pk).update(standings_public=True)
    phone.goto(reverse("tournament-public", args=[tournament.slug]))
    phone.get_by_role("link", name="Results").tap()
    expect(phone.locator("#grand-winner")).to_contain_text(winner)
    expect(phone.locator("#finalists")).to_contain_text(finalists[3])
    expect(phone.locator("#draws-secret")).to_have_text(SECRET)
    expect(phone.locator("#draws-fingerprint")).to_have_text(
        hashlib.sha256(bytes.fromhex(SECRET)).hexdigest()
    )
    expect(phone.locator("#draws-verdict")).to_contain_text("Every draw checks out")
    phone.screenshot(path=SCREENSHOTS.format("results"), full_page=True)
