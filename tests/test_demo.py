"""`make demo` is the first thing a new organiser runs: it must show the newest work, not
just load. One run of the command, then the pages a visitor of the demo would open."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from tests.support.web import text
from tournaments.management.commands.demo import FINISHED_SLUG, SLUG
from tournaments.models import Invitation, LedgerEntry, Tournament
from tournaments.rules import cashbook as book
from tournaments.services import draws


@pytest.fixture
def demo(db):
    out = StringIO()
    call_command("demo", stdout=out)
    passwords = dict(re.findall(r"^  (organiser|staff|admin)\s+(\S+)$", out.getvalue(), re.M))
    return passwords


def signed_in(username, password) -> Client:
    client = Client()
    assert client.login(username=username, password=password)
    return client


def test_the_demo_shows_an_invitation_waiting_for_its_owner(demo):
    pink = Tournament.objects.get(slug=SLUG)
    (invitation,) = Invitation.objects.filter(tournament=pink)
    assert (invitation.user.username, invitation.role) == ("staff", "admin")
    people = text(signed_in("organiser", demo["organiser"]).get(f"/t/{SLUG}/manage/people/"))
    assert "Waiting for an answer" in people
    home = text(signed_in("staff", demo["staff"]).get("/"))
    assert f"Admin of {pink.name}" in home and "Answer" in home


def test_the_demo_draws_are_sealed_before_and_checkable_after(demo):
    pink = Tournament.objects.get(slug=SLUG)
    board = text(Client().get(f"/t/{SLUG}/board/"))
    assert pink.draw_fingerprint in board and pink.draw_secret not in board
    finished = Tournament.objects.get(slug=FINISHED_SLUG)
    assert draws.is_published(finished)
    results = text(Client().get(f"/t/{FINISHED_SLUG}/results/"))
    assert finished.draw_secret in results and "Every draw checks out" in results


def test_the_finished_demo_verifies_cards_as_its_sheet_says(demo):
    finished = Tournament.objects.get(slug=FINISHED_SLUG)
    assert finished.stages.get(kind="qualifying").verification == "one_staff"


def test_the_finished_demo_shows_the_cash_book(demo):
    finished = Tournament.objects.get(slug=FINISHED_SLUG)
    admin = signed_in("admin", demo["admin"])
    # Newest first, a page at a time: the night's donations and expenses came before the
    # prize table's give-backs, so they are on a later page.
    pages = [text(admin.get(f"/t/{FINISHED_SLUG}/manage/cashbook/"))]
    while 'rel="next"' in pages[-1]:
        pages.append(text(admin.get(f"/t/{FINISHED_SLUG}/manage/cashbook/?page={len(pages) + 1}")))
    book = "".join(pages)
    assert "Volunteer" in book and "Venue hire" in book and "Prize given back" in book
    assert "Prize given back" in pages[0]  # the last entries of the night come first
    assert not finished.cash_boxes.filter(closed_at__isnull=True).exists()
    assert finished.cash_boxes.count() == 2
    summary = text(admin.get(f"/t/{FINISHED_SLUG}/manage/cashbook/summary/"))
    assert "Net raised" in summary and "Thank you" in summary
    # Staff handle no money: the cash book is not theirs to see.
    staff = signed_in("staff", demo["staff"])
    assert staff.get(f"/t/{FINISHED_SLUG}/manage/cashbook/").status_code == 403


def test_the_demo_shows_a_waitlisted_player_and_a_party(demo):
    from django.urls import reverse

    from tournaments.services.player_links import player_page_path

    tournament = Tournament.objects.get(slug=SLUG)
    # Mid-game the public form is closed: Wanda waits from before the draw.
    public = text(Client().get(reverse("tournament-public", args=[SLUG])))
    assert "the pods are drawn" in public and "Join the waitlist" not in public
    organiser = signed_in("organiser", demo["organiser"])
    waiting = text(organiser.get(reverse("waitlist", args=[SLUG])))
    assert "Wanda Waiting" in waiting
    party = tournament.parties.get()
    booker = party.members.order_by("pk").first()
    page = text(Client().get(player_page_path(booker, SLUG)))
    assert "Your party" in page
    assert all(m.name in page for m in party.members.all())


def test_the_demo_fees_in_the_cash_book_are_the_fee_the_desk_asks(demo):
    """The desk recorded the Pink night's fees before the demo set its $25 entry: the cash
    book listed $20 fees under 'Owing an entry fee ($25.00)'."""
    pink = Tournament.objects.get(slug=SLUG)
    fee_cents = int(pink.entry_fee * 100)
    paid = LedgerEntry.objects.filter(tournament=pink, kind=book.FEE).exclude(amount_cents=0)
    assert paid.exists()
    assert set(paid.values_list("amount_cents", flat=True)) == {fee_cents}
