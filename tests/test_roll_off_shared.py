"""Rule 7, one tie, one roll-off: the cut's roll-off settles the same prize tie and the
reverse, unless the prize splits its ties. With TIES_SEED, pod 1's players 12 and 16 tie on
12 wins for the cut's one most-wins place, and a per-pod "Most wins" prize sees that tie too.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.events import TIES_SEED, most_wins_per_pod, played_qualifying
from tests.support.factories import member
from tournaments.foundation.errors import UserFacingError
from tournaments.models import PrizeCategory, RollOff, Tournament
from tournaments.services import advancement, prizes
from tournaments.services.rehearsal import settle_roll_offs

pytestmark = pytest.mark.django_db

KEY = "wins:1:1"


def pod_one(plan):
    (award,) = [a for a in plan.result.awards if a.category_key == "wins" and a.scope_group == 1]
    return award


@pytest.fixture
def event():
    event = played_qualifying(24, TIES_SEED)
    most_wins_per_pod(event.tournament)
    return event


def test_the_cuts_roll_off_settles_the_same_prize_tie(event, client):
    t, pk = event.tournament, event.pk
    (tie,) = [x for x in prizes.plan_prizes(t).pending if x.key == KEY]
    assert tie.players == (pk(12), pk(16))
    cut = advancement.record_roll_off(
        event.stage, "1", "wins", actor=event.organiser, faces=[3, 3, 2, 5]
    )
    plan = prizes.plan_prizes(t)
    assert KEY not in {x.key for x in plan.pending}
    assert dict(plan.shared) == {KEY: cut}
    with pytest.raises(UserFacingError, match="not needed"):
        prizes.record_prize_roll_off(t, KEY, actor=event.organiser, faces=[6, 1])
    while pending := prizes.plan_prizes(t).pending:  # other pods' prize ties
        for other in pending:
            prizes.record_prize_roll_off(t, other.key, actor=event.organiser)
    won = pod_one(prizes.plan_prizes(t))
    # The same winner in both places, from the one roll-off.
    assert won.players == (pk(16),) == tuple(cut.winners) and won.via_roll_off
    assert not RollOff.objects.filter(kind="prize", key=KEY).exists()
    # The prize page says so instead of asking for dice again.
    client.force_login(member(t, "admin", "prize-admin"))
    page = client.get(reverse("prize-winners", args=[t.slug])).content.decode()
    assert "settled by the advancement roll-off" in page


def test_a_prize_roll_off_settles_the_same_cut_tie(event, client):
    t, pk, stage = event.tournament, event.pk, event.stage
    thrown = prizes.record_prize_roll_off(t, KEY, actor=event.organiser, faces=[3, 3, 2, 5])
    plan = next(p for p in advancement.plan_stage(stage) if p.group == "1")
    assert "wins" not in {x.category_key for x in plan.pending}
    assert dict(plan.shared) == {"wins": thrown}
    with pytest.raises(UserFacingError, match="not needed"):
        advancement.record_roll_off(stage, "1", "wins", actor=event.organiser, faces=[6, 1])
    # The next tie of the cut (buncos, once the wins winner is known) is thrown as usual.
    (buncos,) = plan.pending
    advancement.record_roll_off(stage, "1", buncos.category_key, actor=event.organiser)
    result = next(p for p in advancement.plan_stage(stage) if p.group == "1").result
    assert (result.qualifiers[0].player, result.qualifiers[0].via_roll_off) == (pk(16), True)
    assert thrown.winners == [pk(16)]
    assert not RollOff.objects.filter(kind="cut", category_key="wins", group="1").exists()
    # The advancement page shows the prize's dice where the cut's roll-off would be.
    client.force_login(event.organiser)
    page = client.get(reverse("advancement", args=[t.slug])).content.decode()
    assert f'id="roll-off-{thrown.pk}"' in page
    assert "thrown for the prize of the same tie" in page
    # Once the qualifiers are saved, the public results show it with pod 1's cut.
    settle_roll_offs(stage, organiser=event.organiser)
    advancement.save_qualifiers(stage, actor=event.organiser)
    Tournament.objects.filter(pk=t.pk).update(standings_public=True)
    page = client.get(reverse("results", args=[t.slug])).content.decode()
    assert f'data-roll-off="{thrown.pk}"' in page


def test_a_prize_that_splits_its_ties_asks_for_no_roll_off(event):
    t, pk = event.tournament, event.pk
    PrizeCategory.objects.filter(tournament=t, key="wins").update(tie_policy="split")
    advancement.record_roll_off(event.stage, "1", "wins", actor=event.organiser, faces=[6, 1])
    plan = prizes.plan_prizes(t)
    assert plan.pending == () and plan.shared == ()
    won = pod_one(plan)
    assert set(won.players) == {pk(12), pk(16)} and not won.via_roll_off
    assert won.amount_cents_each == (2000, 2000)


def test_other_tied_players_get_their_own_roll_off(event):
    """Only the cut's tie is shared: pod 1's tie for third place on wins (players 14 and
    22) is no tie of the cut, and is thrown for the prize alone."""
    t, pk = event.tournament, event.pk
    most_wins_per_pod(t, key="podium", amounts=(4000, 2000, 1000))
    cut = advancement.record_roll_off(
        event.stage, "1", "wins", actor=event.organiser, faces=[3, 3, 2, 5]
    )
    plan = prizes.plan_prizes(t)
    # The first two places of the podium are the cut's tie (its dice settle both places).
    assert dict(plan.shared) == {KEY: cut, "podium:1:1": cut}
    (third,) = [x for x in plan.pending if x.key.startswith("podium:1:")]
    assert (third.key, third.players) == ("podium:1:3", (pk(14), pk(22)))
    record = prizes.record_prize_roll_off(t, third.key, actor=event.organiser, faces=[2, 6])
    assert record.kind == "prize" and record.players == [pk(14), pk(22)]
    assert record.winners == [pk(22)]
    assert RollOff.objects.filter(kind="cut").count() == 1
