"""In Chromium: an admin at the prize table finds a winner, pays them (present, photo ID
checked), sees it in the ledger, and cannot pay the same prize twice; on a phone too."""

from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from tests.support.events import award_everything, played_without_prizes, rehearsal_organiser
from tests.support.factories import member
from tests.support.web import log_in
from tournaments.models import Payout, Player, PrizeAward, PrizeCategory
from tournaments.services import payouts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = "/tmp/prize-table-{}.png"


def awarded_event(monkeypatch):
    """24 players played and verified; the mesquite prizes awarded, nothing paid yet."""
    tournament = played_without_prizes(monkeypatch)
    award_everything(tournament, rehearsal_organiser())
    return tournament, member(tournament, "admin", "prize-admin")


def test_admin_pays_a_winner_once_and_the_ledger_shows_it(page, monkeypatch):
    from playwright.sync_api import expect

    tournament, admin = awarded_event(monkeypatch)
    award = PrizeAward.objects.filter(tournament=tournament, category__key="buncos").first()
    player = award.player
    table = reverse("payouts", args=[tournament.slug])
    log_in(page, admin, table)
    expect(page.locator(".share")).to_have_count(
        PrizeAward.objects.filter(tournament=tournament).count()
    )

    # Find the winner by part of their name.
    surname = player.name.split()[-1]
    page.get_by_label("Winner's name or registration code").fill(surname)
    page.get_by_role("button", name="Find").click()
    row = page.locator(f"#award-{award.pk}")
    expect(row).to_contain_text(player.name)
    expect(row).to_contain_text("$100.00")
    expect(row.locator(".status")).to_have_text("Unpaid")

    # A second admin's tab has the same pay page open already.
    other = page.context.new_page()
    pay_url = reverse("payout-pay", args=[tournament.slug, award.pk])
    other.goto(pay_url)

    row.get_by_role("link", name="Pay").click()
    expect(page.locator("#pay-winner")).to_have_text(player.name)
    expect(page.locator("#pay-code")).to_have_text(player.code)
    expect(page.locator("#pay-amount")).to_have_text("$100.00")
    # Without the boxes ticked: nothing is paid, and the page says why.
    page.get_by_role("button", name="Pay $100.00").click()
    expect(page.locator("#pay-error")).to_contain_text("Not paid. Tick both boxes")
    expect(page.get_by_text("Tick this box: the winner must be here in person.")).to_be_visible()
    assert not Payout.objects.exists()
    page.get_by_label("The winner is here in person").check()
    page.get_by_label("I checked their photo ID").check()
    page.get_by_role("button", name="Pay $100.00").click()
    page.wait_for_url(lambda url: urlsplit(url).path == table)
    expect(page.locator(".alert-success")).to_contain_text(f"Paid $100.00 to {player.name}")
    expect(page.locator(f"#award-{award.pk} .status")).to_contain_text("✓ Paid by prize-admin at")
    payout = Payout.objects.get()
    assert (payout.award, payout.paid_by, payout.id_checked) == (award, admin, True)

    # The other tab presses Pay too: refused, with who paid; still one payment.
    other.get_by_label("The winner is here in person").check()
    other.get_by_label("I checked their photo ID").check()
    other.get_by_role("button", name="Pay $100.00").click()
    expect(other.locator("#pay-error")).to_contain_text(
        f"Already paid: $100.00 to {player.name} by prize-admin at"
    )
    # Re-opening the pay page says so, and there is no Pay button any more.
    other.goto(pay_url)
    expect(other.locator("#already-paid")).to_contain_text("Already paid")
    expect(other.get_by_role("button", name="Pay $100.00")).to_have_count(0)
    assert Payout.objects.count() == 1

    # The ledger shows the payment and the paid total.
    page.get_by_role("link", name="Ledger").first.click()
    expect(page.locator("#paid")).to_have_text("$100.00")
    events = page.locator("#ledger-events tbody tr")
    expect(events).to_have_count(1)
    expect(events.first).to_contain_text(player.name)
    expect(events.first).to_contain_text("prize-admin")
    buncos = page.locator('#ledger-lines tr[data-key="buncos"]')
    expect(buncos).to_contain_text("$200.00")  # two pods, one paid
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=SCREENSHOTS.format("ledger-1280"), full_page=True)


def test_prize_table_on_a_phone(phone_page, monkeypatch):
    from playwright.sync_api import expect

    page = phone_page
    tournament, admin = awarded_event(monkeypatch)
    PrizeAward.objects.filter(tournament=tournament).update(amount_cents=1_000_00)  # big night
    paid = PrizeAward.objects.filter(tournament=tournament, category__key="minis").first()
    payout = payouts.pay(paid, actor=admin, present=True, id_checked=True)
    payouts.void(payout, actor=admin, reason="Paid before the cards were checked")
    payouts.pay(paid, actor=admin, present=True, id_checked=True)
    table = reverse("payouts", args=[tournament.slug])
    log_in(page, admin, table)
    expect(page.locator(".share")).to_have_count(
        PrizeAward.objects.filter(tournament=tournament).count()
    )
    # Nothing is wider than the phone, and each total is one line ("$1,200.0" over "0" was).
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for stat in page.locator("#payout-counts .stat").all():
        line = stat.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
        assert stat.bounding_box()["height"] < 1.5 * line, stat.inner_text()
    page.screenshot(path=SCREENSHOTS.format("phone"), full_page=False)
    page.get_by_label("Winner's name or registration code").fill(paid.player.code)
    page.get_by_role("button", name="Find").tap()
    row = page.locator(f"#award-{paid.pk}")
    expect(row).to_contain_text("✓ Paid by prize-admin")
    expect(row.locator(".voided")).to_contain_text("Paid before the cards were checked")
    page.screenshot(path=SCREENSHOTS.format("phone-search"), full_page=True)
    unpaid = PrizeAward.objects.filter(tournament=tournament, category__key="wins").first()
    page.goto(reverse("payout-pay", args=[tournament.slug, unpaid.pk]))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=SCREENSHOTS.format("phone-pay"), full_page=True)
    # The ledger fits the phone too, the void included.
    page.goto(reverse("ledger", args=[tournament.slug]))
    expect(page.locator('#ledger-events tr[data-kind="voided"]')).to_contain_text(
        "Paid before the cards were checked"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=SCREENSHOTS.format("phone-ledger"), full_page=True)
    # The public results: every column of the prize winners, the money included, in view
    # without scrolling the table sideways, even beside a long name.
    Player.objects.filter(pk=paid.player_id).update(name="Maximiliana Featherstonehaugh")
    other = PrizeAward.objects.filter(tournament=tournament).exclude(player=paid.player).first()
    Player.objects.filter(pk=other.player_id).update(name="Wanda Underwood")
    PrizeCategory.objects.filter(pk=other.category_id).update(label="Team with Overall Most Buncos")
    page.goto(reverse("results", args=[tournament.slug]))
    region = page.locator("#prize-winners .table-responsive")
    expect(region).to_contain_text("Maximiliana Featherstonehaugh")
    assert region.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    # A name that fits its column wraps between words only: "Underwoo" over "d" was.
    cell = region.locator("td", has_text="Wanda Underwood").first
    lines = cell.evaluate(
        """td => { const text = td.firstChild, range = document.createRange();
        const at = text.textContent.indexOf("Underwood");
        range.setStart(text, at); range.setEnd(text, at + 9);
        return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; }"""
    )
    assert lines == 1
    page.screenshot(path=SCREENSHOTS.format("phone-results"), full_page=False)
    # The draws' list and the standings fit too (both scrolled sideways at 390 px): each
    # draw a card of labelled lines, the standings with short headings.
    draws = page.locator("#draws .table-responsive")
    expect(draws.locator("td[data-label='Draw code']").first).to_be_visible()
    assert draws.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    for stage in ("qualifying", "semi_final"):
        page.goto(reverse("standings", args=[tournament.slug]) + f"?stage={stage}")
        standings = page.locator("#standings").locator("xpath=..")
        expect(page.locator("#standings thead")).to_contain_text("Minis")
        assert standings.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), stage
    page.screenshot(path=SCREENSHOTS.format("phone-standings"), full_page=False)
