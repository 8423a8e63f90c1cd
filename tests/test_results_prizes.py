"""Public results list every prize winner, not only the grand prize."""

import pytest
from django.urls import reverse

from tournaments.models import PrizeAward
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


def test_every_prize_winner_is_on_the_public_results(client):
    tournament = rehearse(players=24, preset="mesquite", seed=2).tournament
    tournament.standings_public = True
    tournament.save()
    awards = list(tournament.awards.select_related("player", "category"))
    assert len(awards) > 3
    page = client.get(reverse("results", args=[tournament.slug])).content.decode()
    section = page.split('id="prize-winners"')[1].split("</section>")[0]
    for award in awards:
        assert award.category.label in section and award.player.name in section
    assert section.count("<tr>") == PrizeAward.objects.filter(tournament=tournament).count() + 1
