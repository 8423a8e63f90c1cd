"""The whole rehearsal of the Mesquite sheet (24 players, seed 2), played, awarded and paid,
built once for the module: its books balance, the public results name every prize winner,
and the prize pages' query counts do not grow with the event. What a test writes is rolled
back after it (see tests/support/scenarios.py)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.support.events import rehearsal_organiser
from tests.support.scenarios import event_with_prizes_awarded, module_scenario
from tests.support.web import url
from tournaments.foundation.text import money
from tournaments.models import CashBox, LedgerEntry, Payout, PrizeAward, RollOff, Tournament
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


def public_prize_rows(client, tournament) -> list[str]:
    """The rows of the public results' prize winners table, its heading row left out."""
    tournament.standings_public = True
    tournament.save()
    page = client.get(reverse("results", args=[tournament.slug])).content.decode()
    section = page.split('id="prize-winners"')[1].split("</section>")[0]
    return [row.split("</tr>")[0] for row in section.split("<tr>")[2:]]


def test_every_prize_winner_is_on_the_public_results(tournament, client):
    awards = list(tournament.awards.select_related("player", "category"))
    assert len(awards) > 3
    rows = public_prize_rows(client, tournament)
    section = "".join(rows)
    for award in awards:
        assert award.category.label in section and award.player.name in section
    # A line per player's prize, and one per team place (its players share it).
    teams = {
        (a.category_id, a.place, a.why["note"]["pod"])
        for a in awards
        if a.category.scope == "pod_group"
    }
    singles = [a for a in awards if a.category.scope != "pod_group"]
    assert len(rows) == len(singles) + len(teams)


def test_the_rehearsal_records_a_card_donation_after_the_boxes_are_counted(tournament):
    """The demo's cash book shows what a late card donation does: it is recorded outside the
    counted boxes, which stay as counted."""
    (late,) = LedgerEntry.objects.filter(tournament=tournament, donor="A late guest")
    assert (late.method, late.box, late.amount_cents) == ("card", "", 20_00)
    assert all(box.closed for box in CashBox.objects.filter(tournament=tournament))


def test_a_team_prize_names_its_pod_and_its_players_on_the_public_results(tournament, client):
    """A team (best pod) prize is stored as one award per player of the pod. The public
    results listed each share as its own "Overall" winner of a few dollars and never named
    the team: now each team's place is one line, named "Pod 2 (team)" as on the winners
    page, with every player of it and the money they share."""
    team_awards = [
        a
        for a in tournament.awards.select_related("player", "category")
        if a.category.scope == "pod_group"
    ]
    categories = {a.category for a in team_awards}
    assert len(categories) == 2  # Team with Overall Most Buncos, Team with Best Costume
    rows = public_prize_rows(client, tournament)
    for category in categories:
        shares = [a for a in team_awards if a.category == category]
        pod = shares[0].why["note"]["pod"]
        (row,) = [r for r in rows if f"<td>{category.label}<" in r]
        assert f'<div class="small text-muted">Pod {pod} (team)</div>' in row
        for share in shares:
            assert share.player.name in row
        assert f"{len(shares)} players share {money(sum(a.amount_cents for a in shares))}" in row


def test_every_prize_page_names_a_team_share_by_its_pod(tournament, client_for):
    """The winners, payouts and ledger pages and the ledger's CSV named each share of a team
    prize "Overall", and the payout sheet "Overall (team)": the pod that won it was written
    only on the public results. They all say it as the award does (`where_won`)."""
    share = (
        tournament.awards.current()
        .select_related("category")
        .filter(category__scope="pod_group")[0]
    )
    team = f"Pod {share.why['note']['pod']} (team)"
    assert share.where_won == team
    client = client_for(rehearsal_organiser())
    for name in ("prize-winners", "payouts", "ledger", "ledger-csv"):
        assert team in client.get(url(name, tournament)).content.decode(), name


def test_awards_given_again_are_not_on_the_public_results(tournament, client):
    """Awarding again keeps the earlier awards, stamped superseded: the public results list
    only the ones in force, as the prize pages do."""
    award = tournament.awards.select_related("player", "category").get(
        category__key="wins", scope_group="1"
    )
    label = f'<td>{award.category.label}<div class="small text-muted">Pod 1</div>'
    (row,) = [r for r in public_prize_rows(client, tournament) if label in r]
    assert award.player.name in row
    PrizeAward.objects.filter(pk=award.pk).update(superseded_at=timezone.now())
    assert not [r for r in public_prize_rows(client, tournament) if label in r]


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
