"""In Chromium: one staff member enters a paper card on a phone, a second confirms it, and the
pod is verified; the standings page sorts by a column on a laptop."""

import re

import pytest
from django.urls import reverse

from scoring.models import CardEntry
from scoring.services import cards as card_service
from tests.support.factories import member
from tests.support.web import log_in
from tournaments.models import FinalTable, Stage
from tournaments.services.rehearsal import rehearse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = "/tmp/card-verification-{}.png"


def staff_of(tournament, name, pod):
    user = member(tournament, "staff", name)
    pod.staff.add(user)
    return user


def log_out(page):
    """Through the phone's menu. Each tap waits for the menu before it to finish opening: a
    tap while the menu still slides open lands on whatever link is passing under the finger
    (it opened the standings about one run in three)."""
    from playwright.sync_api import expect

    page.locator(".navbar-toggler").tap()
    expect(page.locator("#nav")).to_have_class(re.compile(r"\bshow\b"))
    page.locator(".navbar .dropdown-toggle").tap()
    expect(page.locator(".navbar .dropdown-menu")).to_be_visible()
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").tap()
    page.wait_for_url(f"**{reverse('home')}")


def test_two_staff_verify_the_last_card_and_the_pod_is_verified(phone_page):
    from playwright.sync_api import expect

    page = phone_page
    r = rehearse(players=12, preset="classic", seed=5, stop_after_round=6)
    tournament = r.tournament
    stage = Stage.objects.get(tournament=tournament, kind="qualifying")
    pod = stage.pods.get()
    anna, bert = staff_of(tournament, "anna", pod), staff_of(tournament, "bert", pod)

    # Every card but one is already entered by Anna and confirmed by Bert.
    cards = card_service.load_stage(stage)
    *done, last_id = cards.in_pod(1)
    for pid in done:
        player = cards.players[pid]
        card_service.enter_card(stage, player, cards.records[pid], actor=anna, base_version=0)
        card_service.confirm_card(stage, player, actor=bert, version=1)
    last, record = cards.players[last_id], cards.records[last_id]

    pod_cards = reverse("pod-cards", args=[tournament.slug, 1])
    log_in(page, anna, pod_cards, tap=True)
    # Six rounds of 18 played: nothing fails, and round 7's seated tables are named.
    expect(page.locator("#pod-checks")).to_contain_text("No problem in the table results")
    expect(page.locator("#pod-checks")).to_contain_text("Round 7: tables 1, 2 and 3")
    expect(page.locator("#pod-verified")).to_have_count(0)
    page.screenshot(path=SCREENSHOTS.format("pod-before"), full_page=True)

    card = page.locator(f"#card-{last.pk}")
    expect(card).to_contain_text("not entered")
    card.get_by_role("link", name="Enter paper card").tap()
    expect(page.locator("#card-form")).to_be_visible()
    # What the paper says, typed in: a W or L per round played, blanks left alone.
    for number, mark in enumerate(record.rounds, start=1):
        if mark:
            page.locator(f"label[for=r{number}-{mark}]").tap()
    page.locator("#id_buncos").fill(str(record.buncos))
    page.locator("#id_minis").fill(str(record.minis))
    page.screenshot(path=SCREENSHOTS.format("form"), full_page=True)
    page.locator("#save-card").tap()
    page.wait_for_url(re.compile(re.escape(pod_cards) + r"#card-\d+$"))
    expect(
        page.get_by_role("alert").filter(has_text="needs a second person to confirm")
    ).to_be_visible()
    expect(card).to_contain_text("someone else must confirm it")
    expect(card.get_by_role("link", name="Waiting for someone else · open")).to_be_visible()
    entry = CardEntry.objects.get(player=last)
    assert entry.entered_by == anna and entry.confirmed_by is None
    assert tuple(entry.rounds) == record.rounds and entry.buncos == record.buncos

    log_out(page)
    log_in(page, bert, pod_cards, tap=True)
    card = page.locator(f"#card-{last.pk}")
    card.get_by_role("link", name="Check & confirm").tap()
    expect(page.locator("#confirm")).to_contain_text("entered by anna")
    page.screenshot(path=SCREENSHOTS.format("confirm"), full_page=True)
    page.locator("#confirm-button").tap()
    page.wait_for_url(re.compile(re.escape(pod_cards) + r"#card-\d+$"))
    expect(page.locator("#pod-verified")).to_contain_text("Pod verified")
    expect(card).to_contain_text("confirmed by bert")
    page.screenshot(path=SCREENSHOTS.format("pod-verified"), full_page=True)
    entry.refresh_from_db()
    assert entry.confirmed_by == bert


def test_standings_on_a_laptop_sort_by_a_column(page):
    from playwright.sync_api import expect

    r = rehearse(players=36, preset="mingle", seed=3)
    tournament = r.tournament
    tournament.standings_public = True
    tournament.save()
    page.goto(reverse("standings", args=[tournament.slug]) + "?stage=qualifying")
    expect(page.locator("#standings tbody tr")).to_have_count(36)
    page.screenshot(path=SCREENSHOTS.format("standings"), full_page=True)
    page.locator("#standings thead").get_by_role("link", name="Buncos").click()
    page.wait_for_url("**sort=buncos")
    buncos = [int(t) for t in page.locator("#standings tbody tr td:nth-child(6)").all_inner_texts()]
    assert buncos == sorted(buncos, reverse=True)
    page.locator("#pod-select").select_option("2")
    page.wait_for_url(re.compile(r"pod=2"))
    expect(page.locator("#standings tbody tr")).to_have_count(12)
    page.goto(reverse("board", args=[tournament.slug]))
    # The rehearsal played on to the grand prize, so the board shows the final table; without
    # it the board follows the latest stage: the semi-final, whose six players (two from each
    # of the three pods) are its standings.
    expect(page.locator("#final-winner")).to_be_visible()
    FinalTable.objects.filter(tournament=tournament).delete()
    page.goto(reverse("board", args=[tournament.slug]))
    expect(page.locator("#leaders .leader:not(.head)")).to_have_count(6)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.screenshot(path=SCREENSHOTS.format("board"))


def test_after_a_card_is_saved_the_phone_opens_the_next_card_to_type_in(phone_page):
    """The card form saves through the phone's queue; its answer names the next card, as the
    form's own redirect did without the queue."""
    from playwright.sync_api import expect

    page = phone_page
    r = rehearse(players=12, preset="classic", seed=5, stop_after_round=6)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    pod = stage.pods.get()
    anna = staff_of(r.tournament, "anna", pod)
    cards = card_service.load_stage(stage)
    first, record = cards.in_pod(1)[0], cards.records[cards.in_pod(1)[0]]

    log_in(page, anna, reverse("card-detail", args=[r.tournament.slug, 1, first]), tap=True)
    for number, mark in enumerate(record.rounds, start=1):
        if mark:
            page.locator(f"label[for=r{number}-{mark}]").tap()
    page.locator("#id_buncos").fill(str(record.buncos))
    page.locator("#id_minis").fill(str(record.minis))
    page.locator("#save-card").tap()
    page.wait_for_url(re.compile(rf"/pods/1/cards/(?!{first}/)\d+/$"))
    after = int(re.search(r"/cards/(\d+)/$", page.url).group(1))
    name = cards.players[after].name
    expect(page.get_by_role("alert").filter(has_text=f"Next: {name}'s card.")).to_be_visible()
    expect(page.locator("#card-form")).to_be_visible()
    assert CardEntry.objects.get(player_id=first).entered_by == anna
