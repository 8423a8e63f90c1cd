"""The whole rehearsal of the Mesquite sheet (24 players, seed 2), played, awarded and paid,
built once for the module: its books balance, the public results name every prize winner,
and the prize pages' query counts do not grow with the event. What a test writes is rolled
back after it (see tests/support/scenarios.py)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.support.events import rehearsal_organiser
from tests.support.scenarios import event_with_prizes_awarded, module_scenario
from tests.support.web import url
from tournaments.models import Payout, PrizeAward, RollOff, Tournament
from tournaments.services import ledger as ledger_service
from tournaments.services import payouts, rehearsal

pytestmark = pytest.mark.django_db

rehearsed = module_scenario(event_with_prizes_awarded)


@pytest.fixture
def tournament(rehearsed):
    """The module's rehearsed event, read fresh."""
    return Tournament.objects.get(pk=rehearsed.tournament.pk)


def test_rehearsal_awards_and_pays_the_mesquite_sheet_and_the_books_balance(rehearsed, tournament):
    books = ledger_service.ledger(tournament)
    labels = [line.category.label for line in books.lines]
    assert labels == [
        "Most Buncos",
        "Most Minis",
        "Most Wins",
        "Best Costume",
        "Team with Overall Most Buncos",
        "Team with Best Costume",
    ]
    # Two pods: four pod prizes each, plus the two team prizes, all paid in full.
    by_key = {line.category.key: line for line in books.lines}
    for key, amount in (("buncos", 100_00), ("minis", 50_00), ("wins", 40_00), ("costume", 25_00)):
        assert by_key[key].awarded_cents == 2 * amount
    assert by_key["team_buncos"].awarded_cents == 100_00
    assert by_key["team_costume"].awarded_cents == 25_00
    assert books.awarded_cents == 2 * (100 + 50 + 40 + 25) * 100 + 125_00
    assert books.paid_cents == books.awarded_cents and books.unpaid_cents == 0
    # The fees are the desk's records now: the rehearsal comps two volunteers of 24, and its
    # cash book adds donations, a prize given back and expenses.
    assert books.fees_cents == (24 - 2) * 20_00
    assert books.charity_cents == (
        books.book.money_in_cents - books.awarded_cents - books.book.expenses_cents
    )
    assert rehearsed.prizes["total_paid"] == f"{books.paid_cents / 100:.2f}"
    # Every share has exactly one live payment, made in person with the ID checked.
    awards = PrizeAward.objects.filter(tournament=tournament)
    assert awards.count() == rehearsed.prizes["awarded"]
    for award in awards:
        (payout,) = award.payouts.all()
        assert payout.amount_cents == award.amount_cents
        assert payout.present_confirmed and payout.id_checked and payout.voided_at is None
    # The roll-offs the sheet's ties needed are stored with their seeds.
    assert all(
        r.seed is not None
        for r in RollOff.objects.filter(kind="prize").filter(tournament=tournament)
    )


def test_every_prize_winner_is_on_the_public_results(tournament, client):
    tournament.standings_public = True
    tournament.save()
    awards = list(tournament.awards.select_related("player", "category"))
    assert len(awards) > 3
    page = client.get(reverse("results", args=[tournament.slug])).content.decode()
    section = page.split('id="prize-winners"')[1].split("</section>")[0]
    for award in awards:
        assert award.category.label in section and award.player.name in section
    assert section.count("<tr>") == PrizeAward.objects.filter(tournament=tournament).count() + 1


def count_queries(client, address) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(address)
    assert response.status_code == 200
    return len(queries)


def test_query_counts_do_not_grow_with_the_event(tournament, client_for):
    """24 and 120 players, each awarded and paid in full by the rehearsal: the module's
    event, and a bigger one rehearsed here."""
    bigger = rehearsal.rehearse(players=120, preset="mesquite", seed=5).tournament
    counts = {}
    for players, event in ((24, tournament), (120, bigger)):
        assert PrizeAward.objects.filter(tournament=event).count() > 8
        client = client_for(rehearsal_organiser())
        payouts.void(
            Payout.objects.filter(award__tournament=event).first(),
            actor=rehearsal_organiser(),
            reason="A test void",
        )
        counts[players] = {
            name: count_queries(client, url(name, event))
            for name in ("prizes", "prize-winners", "payouts", "ledger", "ledger-csv")
        }
        counts[players]["payouts?q"] = count_queries(client, url("payouts", event) + "?q=a")
        award = PrizeAward.objects.filter(tournament=event).first()
        counts[players]["pay"] = count_queries(client, url("payout-pay", event, award.pk))
    assert counts[24] == counts[120], counts
    print("query counts:", counts[120])
