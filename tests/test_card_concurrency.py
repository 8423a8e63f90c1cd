"""Two people entering or confirming the same score card at once, on real PostgreSQL
connections.

Each call runs on its own connection, released together by a barrier (`at_once`). The
player's row lock (`card_writes.lock_current`) makes the second wait for the first and then
check the version the first left: one confirmation, one version per base, and a confirmation of a
version that was replaced meanwhile is refused with the name of who replaced it.
"""

from dataclasses import replace
from functools import partial

import pytest

from scoring.models import CardEntry
from scoring.services import cards as service
from tests.support.factories import UserFactory, grant
from tests.support.races import at_once, one_wins
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, Stage
from tournaments.services.rehearsal import rehearse

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def played():
    """Twelve players, two rounds recorded, no paper card entered; three staff on the pod."""
    r = rehearse(players=12, preset="classic", seed=5, stop_after_round=2)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    pod = stage.pods.get()
    staff = []
    for name in ("ann-staff", "bea-staff", "cat-staff"):
        user = UserFactory(username=name)
        grant(stage.tournament, user, "staff")
        pod.staff.add(user)
        staff.append(user)
    cards = service.load_stage(stage)
    players = [(cards.players[p], cards.records[p]) for p in cards.in_pod(1)]
    return stage, players, staff


def with_cards(stage, players, actor, n):
    """The first `n` players, each with version 1 of their card entered by `actor`."""
    for player, record in players[:n]:
        service.enter_card(stage, player, record, actor=actor, base_version=0)
    return players[:n]


def confirmations(player):
    return AuditEntry.objects.filter(action="card.confirmed", data__player=player.pk).count()


def test_two_people_confirming_the_same_version_confirm_it_once(played):
    stage, players, (ann, bea, cat) = played
    for player, _ in with_cards(stage, players, ann, 3):  # a few times: interleavings differ
        confirmed, told = one_wins(
            partial(service.confirm_card, stage, player, actor=bea, version=1),
            partial(service.confirm_card, stage, player, actor=cat, version=1),
        )
        entry = CardEntry.objects.get(stage=stage, player=player)
        assert entry.confirmed_by == confirmed.confirmed_by
        # The loser waited on the lock, then saw the winner's confirmation.
        assert told == [f"Already confirmed by {entry.confirmed_by.username}."]
        assert confirmations(player) == 1
        assert service.current_state(stage, player).verified


def test_two_first_entries_of_a_card_make_one_version(played):
    stage, players, (ann, bea, cat) = played
    for player, record in players[:3]:
        saved, (told,) = one_wins(
            partial(service.enter_card, stage, player, record, actor=ann, base_version=0),
            partial(
                service.enter_card,
                stage,
                player,
                replace(record, buncos=record.buncos + 1),
                actor=bea,
                base_version=0,
            ),
        )
        versions = list(CardEntry.objects.filter(stage=stage, player=player))
        assert [(v.pk, v.version, v.is_current) for v in versions] == [(saved.pk, 1, True)]
        # Told who got there first, not a bare database error.
        who = saved.entered_by.username
        assert told.startswith(f"{who} changed this card while you were entering it"), told


def test_confirming_a_version_replaced_meanwhile_is_refused(played):
    stage, players, (ann, bea, cat) = played
    for player, record in with_cards(stage, players, ann, 4):  # a few times, as above
        confirmed, entered = at_once(
            partial(service.confirm_card, stage, player, actor=bea, version=1),
            partial(service.enter_card, stage, player, record, actor=cat, base_version=1),
        )
        assert isinstance(entered, CardEntry) and entered.version == 2, entered
        v1, v2 = CardEntry.objects.filter(stage=stage, player=player).order_by("version")
        assert v2.is_current and v2.confirmed_by is None  # the new version waits for a check
        if isinstance(confirmed, Exception):
            assert isinstance(confirmed, UserFacingError), confirmed
            assert confirmed.message.startswith("cat-staff changed this card"), confirmed.message
            assert v1.confirmed_by is None and confirmations(player) == 0
        else:
            # Confirmed first, then replaced: the confirmation is older than version 2.
            assert v1.confirmed_by == bea and v1.confirmed_at <= v2.entered_at
            confirming = AuditEntry.objects.get(action="card.confirmed", data__player=player.pk)
            entering = AuditEntry.objects.get(action="card.entered", target_id=str(v2.pk))
            assert confirming.id < entering.id


def test_whoever_enters_a_version_cannot_confirm_it_even_racing_their_own_entry(played):
    stage, players, (ann, bea, cat) = played
    for player, record in with_cards(stage, players, bea, 3):
        entered, confirmed = at_once(
            partial(service.enter_card, stage, player, record, actor=ann, base_version=1),
            partial(service.confirm_card, stage, player, actor=ann, version=2),
        )
        assert isinstance(entered, CardEntry) and entered.version == 2, entered
        assert isinstance(confirmed, UserFacingError), confirmed
        assert confirmed.message in (
            "You entered this version yourself; someone else must confirm it.",
            "bea-staff changed this card while you were entering it; check their version first.",
        )
        versions = CardEntry.objects.filter(stage=stage, player=player)
        assert not versions.filter(confirmed_by__isnull=False).exists()
