"""The prize list and the winners page warn, before awarding, when the prizes come to more
than the entry fees (or the share of them the organiser set), and show the charity's rest."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.events import played_without_prizes, rehearsal_organiser
from tests.support.factories import PlayerFactory, TournamentFactory, member
from tournaments.models import Player, PrizeCategory
from tournaments.services import cashbook, prizes

pytestmark = pytest.mark.django_db


def event(fee: str, players: int, checked_in: int, share=None):
    tournament = TournamentFactory(entry_fee=Decimal(fee), prize_share_percent=share)
    for n in range(players):
        PlayerFactory(
            tournament=tournament,
            checked_in_at=timezone.now() if n < checked_in else None,
            status=Player.Status.REGISTERED,
        )
    PrizeCategory.objects.create(
        tournament=tournament,
        key="buncos",
        label="Most buncos",
        measure="most_buncos",
        scope="overall",
        amounts_cents=[30_000, 15_000],
    )
    return tournament


def budget_html(client_for, tournament, page="prizes") -> str:
    admin = member(tournament, "admin", f"admin-{tournament.pk}")
    html = client_for(admin).get(reverse(page, args=[tournament.slug])).content.decode()
    start = html.index('id="prize-budget"')
    return " ".join(html[start : html.index("</div>", start)].split())


def test_prizes_over_the_fees_taken_warn_with_the_charity_remainder(client_for):
    tournament = event("20.00", players=30, checked_in=20)  # $400 taken, $450 of prizes
    html = budget_html(client_for, tournament)
    assert "data-over" in html
    assert "These prizes are $50.00 more than the entry fees due" in html
    assert (
        "Entry fees: $400.00, of which $0.00 taken and $400.00 still owed "
        "(20 players checked in)" in html
    )
    assert "-$50.00" in html


def test_once_players_arrive_the_fees_are_the_cash_books_and_a_comp_counts_nothing(
    client_for,
):
    """The desk took 10 fees, comped 2 volunteers and 8 players still owe: $360 is due, not
    the $400 that 20 players checked in at $20 would make."""
    tournament = event("20.00", players=30, checked_in=20)
    desk = member(tournament, "organiser", f"desk-{tournament.pk}")
    arrived = list(tournament.players.exclude(checked_in_at=None).order_by("pk"))
    for player in arrived[:10]:
        cashbook.pay_fee(player, method="cash", actor=desk)
    for player in arrived[10:12]:
        cashbook.pay_fee(player, method="comped", actor=desk, reason="volunteer")
    html = budget_html(client_for, tournament)
    assert (
        "Entry fees: $360.00, of which $200.00 taken and $160.00 still owed "
        "(20 players checked in, 2 comped)" in html
    )
    assert "These prizes are $90.00 more than the entry fees due" in html
    assert 'Left for Breast Cancer Research: <strong id="charity-remainder">-$90.00' in html


def test_the_winners_page_warns_above_the_award_button(monkeypatch, client_for):
    tournament = played_without_prizes(monkeypatch)  # 24 players at the mesquite fee
    prizes.load_template(tournament, "mesquite", actor=rehearsal_organiser())
    # The rehearsal's desk took 22 fees of $20 and comped 2: $440 against $555 of prizes.
    html = budget_html(client_for, tournament, "prize-winners")
    assert "These prizes are $115.00 more than the entry fees due" in html
    assert (
        "Entry fees: $440.00, of which $440.00 taken and $0.00 still owed "
        "(24 players checked in, 2 comped)" in html
    )


def test_within_the_fees_no_warning_and_the_rest_goes_to_the_charity(client_for):
    tournament = event("20.00", players=40, checked_in=30)  # $600 taken
    html = budget_html(client_for, tournament)
    assert "data-over" not in html and "more than" not in html
    assert 'Left for Breast Cancer Research: <strong id="charity-remainder">$150.00' in html


def test_the_organisers_share_is_the_limit(client_for):
    tournament = event("20.00", players=40, checked_in=30, share=50)  # $300 for prizes
    html = budget_html(client_for, tournament)
    assert "These prizes are $150.00 more than 50% of the entry fees due" in html


def test_before_the_door_opens_the_registered_players_count(client_for):
    tournament = event("10.00", players=12, checked_in=0)
    html = budget_html(client_for, tournament)
    assert "Entry fees expected: $120.00 (12 players registered, nobody checked in yet)" in html


def test_before_anyone_registers_the_prizes_are_planned_for_a_full_event(client_for):
    """Setting up the prize list comes before registration: against nobody's fees every
    prize was over budget and the charity's share negative."""
    tournament = event("20.00", players=0, checked_in=0)  # $450 of prizes
    tournament.capacity = 36
    tournament.save()
    html = budget_html(client_for, tournament)
    assert "data-over" not in html
    assert "Entry fees expected if all 36 places fill: $720.00 (nobody has registered yet)" in html
    assert 'Left for Breast Cancer Research: <strong id="charity-remainder">$270.00' in html


def listed_prize(tournament, key, scope, cents, stage_kind="qualifying"):
    PrizeCategory.objects.create(
        tournament=tournament,
        key=key,
        label=key,
        measure="most_buncos",
        scope=scope,
        stage_kind=stage_kind,
        amounts_cents=[cents],
    )


def shown(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return " ".join(html[html.index(">", start) + 1 : html.index("</", start)].split())


def test_the_prize_list_the_winners_page_and_the_cash_book_count_the_same_pods(client_for):
    """Before any draw, 30 players registered: 3 qualifying pods (a draw of 30 makes 12, 12
    and 6), one each for wins and buncos advance from each pod, so 6 semi-finalists fill one
    semi-final pod. A per-pod prize is paid in each pod of the stage it counts over."""
    tournament = event("20.00", players=30, checked_in=0)  # and $450 overall
    listed_prize(tournament, "pod-buncos", "pod", 10_000)
    listed_prize(tournament, "semi-buncos", "pod", 2_500, "semi_final")
    admin = client_for(member(tournament, "admin", f"admin-{tournament.pk}"))
    pages = {
        name: admin.get(reverse(name, args=[tournament.slug])).content.decode()
        for name in ("prizes", "prize-winners", "cashbook")
    }
    total = "$775.00"  # 3 x $100 + 1 x $25 + $450
    assert f"Prizes: {total}" in " ".join(pages["prizes"].split())
    assert f"Prizes: {total}" in " ".join(pages["prize-winners"].split())
    assert shown(pages["prize-winners"], "projected-prizes") == f"−{total}"
    assert shown(pages["cashbook"], "projected-prizes") == f"−{total}"
    line = shown(pages["prizes"], "prize-money")
    assert (
        "Per pod $100.00 (qualifying), $25.00 (semi-final), plus $450.00 overall: "
        f"{total} if every place is paid, with 3 qualifying pods (as the draw of the 30 "
        "players registered would make them) and 1 semi-final pod (expected from the "
        "players the qualifying pods send on)." in line
    )


def test_once_drawn_the_prize_list_counts_the_pods_drawn(monkeypatch, client_for):
    tournament = played_without_prizes(monkeypatch)  # 24 players, two qualifying pods
    prizes.load_template(tournament, "mesquite", actor=rehearsal_organiser())
    admin = client_for(member(tournament, "admin", f"admin-{tournament.pk}"))
    line = shown(
        admin.get(reverse("prizes", args=[tournament.slug])).content.decode(), "prize-money"
    )
    assert "if every place is paid, with 2 qualifying pods (drawn)." in line
