"""In Chromium: the organiser's stage page asks before a player is taken out of the game."""

import pytest
from django.urls import reverse

from tests.support.factories import drawn_stage
from tests.support.web import log_in
from tournaments.models import RosterChange

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_leaves_only_once_the_organiser_says_yes(page, tournament, organiser):
    """One slip of the list used to take a player out mid-game at once."""
    from playwright.sync_api import expect

    stage = drawn_stage(tournament, organiser, players=12)
    leaver = stage.pods.get().hostess
    log_in(page, organiser, reverse("stage-control", args=[tournament.slug]))
    page.locator("#leave-player").select_option(str(leaver.pk))
    questions = []

    def answer(dialog, yes):
        questions.append(dialog.message)
        dialog.accept() if yes else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.get_by_role("button", name="Player leaves").click()
    expect(page.locator("#leave-player")).to_have_value(str(leaver.pk))
    assert questions == [
        f"{leaver.name} ({leaver.code}) — pod 1 leaves the game: a ghost takes the seat from "
        "round 2 on. Go ahead?"
    ]
    assert not RosterChange.objects.exists()

    page.once("dialog", lambda dialog: answer(dialog, True))
    with page.expect_navigation():
        page.get_by_role("button", name="Player leaves").click()
    expect(page.get_by_role("alert").filter(has_text=leaver.name)).to_be_visible()
    assert RosterChange.objects.get().player == leaver
