"""In Chromium: an admin asks for the score cards, watches the progress bar fill while the task
renders, and the download link appears in place (no reload); without a worker the page says
the PDF is made in-process and shows the link straight away."""

import pypdf
import pytest
from django.urls import reverse

from tests.support.factories import drawn_stage, member
from tests.support.web import log_in
from tournaments.models import Printout
from tournaments.services.printouts import jobs
from tournaments.tasks import TEST_DELAY_ENV, render_printout

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks"),
]

SCREENSHOTS = "/tmp/printouts-{}.png"


@pytest.fixture
def event(tournament, organiser):
    drawn_stage(tournament, organiser, players=48, start=False)
    return tournament, member(tournament, "admin", "print-admin")


def test_admin_watches_the_score_cards_render_and_downloads_them(
    page, event, monkeypatch, tmp_path
):
    from playwright.sync_api import expect

    tournament, admin = event
    # The worker is this test: the request is saved and left queued, then the test runs the
    # task itself (slowed down) while the page polls, as a Celery worker would.
    sent = []
    monkeypatch.setattr(jobs, "_send", sent.append)
    url = reverse("printouts", args=[tournament.slug])
    log_in(page, admin, url)
    # The live server answers at localhost: the page warns before anything is printed, and
    # score cards are refused until the admin says they are only a try-out.
    expect(page.locator("#loopback-warning")).to_contain_text(
        f"Players' phones cannot open {page.url.split('/t/')[0]}"
    )
    page.get_by_label("Score cards").check()
    page.get_by_label("A4").check()
    page.get_by_role("button", name="Make the PDF").click()
    expect(page.locator("#print-anyway-error")).to_contain_text("only this computer can reach")
    assert not Printout.objects.exists()
    page.get_by_label("Print anyway").check()
    page.get_by_role("button", name="Make the PDF").click()

    printout = Printout.objects.get()
    assert sent == [printout.pk]
    row = page.locator(f"#printout-{printout.pk}")
    expect(row).to_have_attribute("data-status", "queued")
    expect(row).to_contain_text("Waiting for the print worker")
    expect(row.get_by_role("progressbar")).to_be_visible()
    # Remember this page and every progress value the polls bring in.
    page.evaluate(
        """() => {
            window.samePage = true;
            window.seen = [];
            document.body.addEventListener("htmx:afterSwap", (e) => {
                window.seen.push([e.detail.elt.dataset.status, +e.detail.elt.dataset.progress]);
            });
        }"""
    )
    page.screenshot(path=SCREENSHOTS.format("queued"), full_page=True)

    monkeypatch.setenv(TEST_DELAY_ENV, "0.5")  # per page of cards: 8 pages, about 4 s
    render_printout.apply(args=[printout.pk], throw=False)

    download = row.get_by_role("link", name="Download PDF")
    expect(download).to_be_visible()
    expect(row).to_have_attribute("data-progress", "100")
    expect(row).to_contain_text("8 pages")
    assert page.evaluate("window.samePage") is True  # no reload: htmx swapped the row in
    seen = page.evaluate("window.seen")
    assert any(status == "running" and 0 < progress < 100 for status, progress in seen), seen
    page.screenshot(path=SCREENSHOTS.format("done"), full_page=True)

    with page.expect_download() as info:
        download.click()
    saved = tmp_path / "cards.pdf"
    info.value.save_as(saved)
    assert info.value.suggested_filename == f"{tournament.slug}-score-cards-qualifying-a4.pdf"
    assert len(pypdf.PdfReader(saved).pages) == 8


def test_without_a_worker_the_page_says_so_and_shows_the_link(page, event):
    from playwright.sync_api import expect

    tournament, admin = event
    url = reverse("printouts", args=[tournament.slug])
    log_in(page, admin, url)
    expect(page.locator("#in-process")).to_contain_text("made while you wait")
    page.get_by_label("Seating charts").check()
    page.get_by_label("Pods").select_option("Pod 3")
    page.get_by_role("button", name="Make the PDF").click()
    printout = Printout.objects.get()
    row = page.locator(f"#printout-{printout.pk}")
    expect(row.get_by_role("link", name="Download PDF")).to_be_visible()
    expect(row).to_contain_text("Seating charts & movement guide · Qualifying · pod 3 · Letter")
    expect(row).to_contain_text("1 page")
    page.screenshot(path=SCREENSHOTS.format("in-process"), full_page=True)
