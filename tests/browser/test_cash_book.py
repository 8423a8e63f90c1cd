"""In Chromium: the night's money from the door to the charity. The desk checks in a paying
player and a comped one, each in one tap on their row; the prize table pays a prize and
records the part the winner gives back; the organiser counts the desk's box, finds it short,
says why and closes it; and the summary shows the net raised."""

from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from tests.support.events import awarded_directly, charging
from tests.support.factories import PlayerFactory
from tests.support.web import log_in
from tournaments.models import CashBox, LedgerEntry
from tournaments.rules import cashbook as book
from tournaments.services import cashbook

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = "/tmp/cash-book-{}.png"


def test_desk_prize_table_count_and_summary(page, tournament, organiser):
    from playwright.sync_api import expect

    charging(tournament)
    paula = PlayerFactory(tournament=tournament, name="Paula Payer")
    cora = PlayerFactory(tournament=tournament, name="Cora Comped")
    (award,) = awarded_directly(tournament, [paula], cents=10_00)
    desk = reverse("checkin-desk", args=[tournament.slug])
    log_in(page, organiser, desk)

    # A paying player: one tap on "Cash" checks her in and records the fee.
    page.get_by_label("Name, code or e-mail").fill("Paula")
    row = page.locator(f"#player-{paula.pk}")
    row.get_by_role("button", name="Paula Payer paid $20.00 by cash").click()
    expect(row.locator(".fee-status")).to_have_text("Paid $20.00 · cash")
    expect(row).to_contain_text("Checked in")
    # A comped volunteer: the reason, then "Comp", on the same row.
    page.get_by_label("Name, code or e-mail").fill("Cora")
    row = page.locator(f"#player-{cora.pk}")
    row.get_by_label("Comped, because").fill("Volunteer")
    row.get_by_role("button", name="Comp Cora Comped").click()
    expect(row.locator(".fee-status")).to_have_text("Comped")
    page.screenshot(path=SCREENSHOTS.format("desk"), full_page=True)

    # The prize table: Paula wins $10.00 and gives $5.00 back.
    page.goto(reverse("payout-pay", args=[tournament.slug, award.pk]))
    page.get_by_label("The winner is here in person").check()
    page.get_by_label("I checked their photo ID").check()
    page.get_by_label("Given back to the charity ($, optional)").fill("5")
    page.get_by_role("button", name="Pay $10.00").click()
    expect(page.locator(".alert-success")).to_contain_text("$5.00 given back to the charity")

    # The desk's box: $20.00 expected, $15.00 counted, the reason, closed.
    box = reverse("cash-box", args=[tournament.slug, "desk"])
    page.goto(box)
    expect(page.locator("#box-expected")).to_have_text("$20.00")
    page.get_by_label("$10 bills").fill("1")
    page.get_by_label("$5 bills").fill("1")
    page.get_by_role("button", name="Record the count and close the box").click()
    expect(page.locator(".invalid-feedback, .alert-danger").first).to_contain_text(
        "say why they differ"
    )
    page.get_by_label("Why the count differs (if it does)").fill("Change given for a $20")
    page.get_by_role("button", name="Record the count and close the box").click()
    page.wait_for_url(lambda url: urlsplit(url).path == box)
    expect(page.locator("#box-difference")).to_have_text("-$5.00")
    expect(page.locator("#box-closed")).to_contain_text("Change given for a $20")
    page.screenshot(path=SCREENSHOTS.format("box"), full_page=True)
    closed = CashBox.objects.get(tournament=tournament, key="desk")
    assert (closed.counted_cents, closed.expected_cents) == (15_00, 20_00)

    # The summary for the charity: $20 fee + $5 given back - $10 prize = $15 in the book,
    # and the box counted $5 short of it: the charity has $10, and is thanked for that.
    page.get_by_role("link", name="For the charity").click()
    expect(page.locator("#summary-figures")).to_contain_text("Net raised$15.00")
    expect(page.locator("#summary-figures")).to_contain_text(
        "The desk: cash counted short (Change given for a $20)-$5.00"
    )
    expect(page.locator("#summary-net")).to_contain_text("as the cash was counted$10.00")
    expect(page.locator("#thank-you")).to_contain_text("raised $10.00")
    page.screenshot(path=SCREENSHOTS.format("summary"), full_page=True)
    t = cashbook.totals(tournament)
    assert (t.fees_cents, t.comped_count, t.given_back_cents, t.net_raised_cents) == (
        20_00,
        1,
        5_00,
        15_00,
    )
    assert LedgerEntry.objects.filter(kind=book.FEE).count() == 2


@pytest.mark.parametrize("width", [390, 800, 1100])
def test_the_books_totals_never_break_an_amount_over_two_lines(page, tournament, organiser, width):
    """A four-figure night ("$12,345.00") in the totals' boxes, on a phone, a tablet and a
    laptop: each amount stays on one line inside its box."""
    charging(tournament)
    for n in range(3):
        cashbook.donate(
            tournament,
            amount_cents=4_115_00,
            method=book.CASH,
            box=book.DESK,
            donor=f"Donor {n}",
            actor=organiser,
        )
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, organiser, reverse("cashbook", args=[tournament.slug]))
    money_in = page.locator("#money-in")
    assert money_in.inner_text() == "$12,345.00"
    for stat in page.locator("#cash-totals .stat").all():
        box, card = stat.bounding_box(), stat.locator("xpath=..").bounding_box()
        line = stat.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
        assert box["height"] < 1.5 * line, f"{stat.inner_text()} wraps at {width}px"
        assert box["x"] >= card["x"] and box["x"] + box["width"] <= card["x"] + card["width"]


def test_on_a_phone_every_entry_and_its_reverse_button_fit_the_screen(
    phone_page, tournament, organiser
):
    """The entries table was 476 px wide on a 390 px phone: the Reverse column was off the
    screen. Each entry is now a card of labelled lines."""
    charging(tournament)
    cashbook.donate(
        tournament,
        amount_cents=12_50,
        method=book.CASH,
        box=book.DESK,
        donor="A very generous neighbour from down the road",
        actor=organiser,
    )
    cashbook.expense(
        tournament, amount_cents=150_00, method=book.CARD, note="Venue hire", actor=organiser
    )
    page = phone_page
    log_in(page, organiser, reverse("cashbook", args=[tournament.slug]), tap=True)
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    table = page.locator("#cash-entries")
    assert table.evaluate("t => t.closest('.table-responsive').scrollWidth") <= width
    buttons = table.get_by_role("button", name="Reverse").all()
    assert len(buttons) == 2
    for button in buttons:
        box = button.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    page.screenshot(path=SCREENSHOTS.format("phone-entries"), full_page=True)
