"""In Chromium at a projector's 1366x768 and 1024x768: the board of a 13-pod event pages
through its pods in large type, shows the seat finder's address in full with a QR code, and
warns when that address only works on the laptop; the final table's seat headings never run
into "Throwing now". Sizes are measured in the browser, not assumed from the CSS."""

import pytest
from django.urls import reverse

from tests.support.events import seated_final
from tests.support.factories import drawn_stage
from tournaments.services import final_table
from tournaments.views import printouts as printout_views

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT = "/tmp/board-{}x{}-{}.png"
SIZES = [(1366, 768), (1024, 768)]
VENUE = "http://192.168.1.20:8000"


def board_page(browser, live_server, width, height):
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": height}
    )
    context.set_default_timeout(10_000)
    return context, context.new_page()


def inside(box, width, height) -> bool:
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width + 0.5
        and (box["y"] + box["height"] <= height + 0.5)
    )


def inside_box(box, outer) -> bool:
    return (
        box["x"] >= outer["x"] - 0.5
        and box["x"] + box["width"] <= outer["x"] + outer["width"] + 0.5
    )


MEASURE = """() => {
  const page = document.querySelector('.board-grid:not([hidden])');
  const names = [...page.querySelectorAll('.nm')].map(el => ({
    px: parseFloat(getComputedStyle(el).fontSize),
    cut: el.scrollWidth > el.clientWidth + 1,
  }));
  const url = document.querySelector('#finder-url');
  return {
    pods: page.querySelectorAll('.pod').length,
    pages: document.querySelectorAll('.board-grid').length,
    names,
    urlCut: url.scrollWidth > url.clientWidth + 1 || url.scrollHeight > url.clientHeight + 1,
    urlText: url.textContent,
  };
}"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_13_pod_board_pages_in_large_type_with_the_finder_and_its_qr_code(
    browser, live_server, tournament, organiser, settings, width, height
):
    tournament.capacity = 200
    tournament.save()
    drawn_stage(tournament, organiser, players=156)  # 13 pods of twelve
    url = reverse("board", args=[tournament.slug])
    finder = reverse("seat-finder", args=[tournament.slug])

    # Served at localhost (the live server): the board warns that phones cannot follow it.
    context, page = board_page(browser, live_server, width, height)
    page.goto(url)
    warning = page.locator("#loopback-warning")
    assert warning.is_visible()
    assert f"Phones cannot open {live_server.url}{finder}" in warning.inner_text()
    context.close()

    settings.SITE_URL = VENUE
    context, page = board_page(browser, live_server, width, height)
    page.goto(url)
    assert page.locator("#loopback-warning").count() == 0
    seen = page.evaluate(MEASURE)
    assert seen["urlText"] == f"{VENUE}{finder}" and not seen["urlCut"]
    assert seen["pages"] == 5 and seen["pods"] in (2, 3)  # 3, 3, 3, 2, 2
    assert page.locator("#board-pager").inner_text().startswith("Pods ")
    sizes = sorted(n["px"] for n in seen["names"])
    if width == 1366:
        # Names read from across a hall: 28 px, a long one shrunk at most to 78% (board.js).
        assert sizes[len(sizes) // 2] >= 28, sizes
        assert sizes[0] >= 28 * 0.78, sizes
    else:
        assert sizes[len(sizes) // 2] >= 20, sizes
    assert not any(n["cut"] and n["px"] > 28 * 0.78 + 0.5 for n in seen["names"])
    # Every pod on the page, the address and the QR code are whole on the screen.
    for pod in page.locator(".board-grid:not([hidden]) .pod").all():
        assert inside(pod.bounding_box(), width, height)
    qr = page.locator(".board-qr").bounding_box()
    assert inside(qr, width, height) and qr["width"] >= 95 and abs(qr["width"] - qr["height"]) < 2
    assert inside(page.locator("#finder-url").bounding_box(), width, height)
    assert page.locator(".board-qr svg path").count() == 2
    page.screenshot(path=SCREENSHOT.format(width, height, "13-pods"))
    context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_final_tables_headings_never_run_into_throwing_now(browser, live_server, width, height):
    event, final = seated_final()
    final = final_table.roll_for_order(final, actor=event.organiser, faces=[2, 5, 1, 5])
    context, page = board_page(browser, live_server, width, height)
    page.goto(reverse("board", args=[event.tournament.slug]))
    turn = page.locator(".ft-turn")
    assert turn.inner_text().lower() == "throwing now"
    seat = turn.locator("xpath=preceding-sibling::span[1]")
    a, b = seat.bounding_box(), turn.bounding_box()
    apart = a["x"] + a["width"] <= b["x"] - 4 or a["y"] + a["height"] <= b["y"]
    assert apart, (a, b)
    top = turn.locator("xpath=..").bounding_box()
    assert b["x"] + b["width"] <= top["x"] + top["width"] + 0.5  # not cut at the right
    title = page.locator("#board-status")
    cut = title.evaluate(
        "el => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1"
    )
    assert not cut and inside(title.bounding_box(), width, height)
    # The order of play wraps inside its box instead of running off both sides.
    box = page.locator("#final-now").bounding_box()
    for line in page.locator(".ft-order span").all():
        assert inside_box(line.bounding_box(), box), (line.inner_text(), box)
    page.screenshot(path=SCREENSHOT.format(width, height, "final"))
    context.close()


def test_printouts_form_knows_which_documents_carry_qr_codes():
    assert {"score_cards", "packet"} == set(printout_views.WITH_QR)
