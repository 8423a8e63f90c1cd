"""In Chromium on a phone: a staff member records their pod's tables, then a player finds
where to sit for the next round."""

import re

import pytest
from django.urls import reverse

from scoring.models import TableResult
from tests.support.factories import drawn_stage
from tests.support.web import log_in
from tournaments.models import Seat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = "/tmp/staff-results-{}.png"


def test_staff_records_their_pod_on_a_phone_and_players_find_round_2_seats(
    phone_page, tournament, organiser, staff_user
):
    from playwright.sync_api import expect

    page = phone_page
    stage = drawn_stage(tournament, organiser, players=12, staff=staff_user)
    pod = stage.pods.get()

    my_pods = reverse("my-pods", args=[tournament.slug])
    log_in(page, staff_user, my_pods, tap=True)
    expect(page.get_by_text("0/3 reported")).to_be_visible()

    page.get_by_role("link", name=re.compile(r"Pod 1")).tap()
    page.wait_for_url(f"**{reverse('pod-detail', args=[tournament.slug, 1])}")
    page.screenshot(path=SCREENSHOTS.format("pod"), full_page=True)

    winners = {1: 0, 2: 1, 3: 1}
    for table, winner in winners.items():
        page.get_by_role("link", name=f"Record table {table}").tap()
        expect(page.locator("#winner-0")).to_be_visible()
        if table == 1:
            page.screenshot(path=SCREENSHOTS.format("form"), full_page=True)
        page.locator(f"#winner-{winner}").tap()  # one tap saves
        expect(page.get_by_role("alert").filter(has_text=f"Table {table} saved")).to_be_visible()
        expect(page.locator("#reported")).to_have_text(f"{table} of 3 tables reported")

    current = {r.table: r.winner for r in TableResult.objects.filter(pod=pod, round__number=1)}
    assert current == winners
    expect(page.locator("#next-round")).to_contain_text("Round 2 seating")
    page.screenshot(path=SCREENSHOTS.format("pod-done"), full_page=True)

    seat = (
        Seat.objects.select_related("player", "pod")
        .filter(round__number=2, pod=pod, player__isnull=False)
        .order_by("table", "seat")[5]
    )
    page.goto(reverse("seat-finder", args=[tournament.slug]))
    page.locator("#seat-q").fill(seat.player.name)
    match = page.locator(".match", has_text=seat.player.name)
    expect(match).to_have_count(1)
    expect(match.locator(".go-label")).to_have_text("Round 2 — go to:")
    expect(match.locator(".go-where")).to_have_text(
        f"Pod {seat.pod.number}, table {seat.table}, seat {seat.seat}"
    )
    page.screenshot(path=SCREENSHOTS.format("finder"), full_page=True)
