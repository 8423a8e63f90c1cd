"""The same save arriving twice at the same moment (a phone's retry racing its first send),
on two real PostgreSQL connections released together by a barrier (`at_once`).

Both carry one idempotency key: the key's unique index makes the second wait for the first,
then answer with its save, so one result (one card version, one payment) is stored and
neither is told of a conflict with itself.
"""

from __future__ import annotations

import uuid
from functools import partial

import pytest

from scoring.models import CardEntry, TableResult
from scoring.services import cards as card_service
from scoring.services.results import ResultEntry, record_result
from tests.support.events import awarded_directly
from tests.support.factories import (
    PlayerFactory,
    UserFactory,
    drawn_stage,
    grant,
    member,
    record_pod,
)
from tests.support.races import at_once
from tournaments.models import AuditEntry, Payout, WriteReceipt
from tournaments.services import payouts

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def setup(tournament, organiser):
    ann = UserFactory(username="ann-staff")
    grant(tournament, ann, "staff")
    stage = drawn_stage(tournament, organiser, staff=ann)
    return stage, stage.pods.get(), stage.rounds.get(number=1), ann


def both_answered(outcomes):
    errors = [o for o in outcomes if isinstance(o, Exception)]
    assert not errors, f"a send was refused: {errors!r}"
    return outcomes


def test_one_result_key_sent_twice_at_once_stores_one_result(setup):
    stage, pod, round_, ann = setup
    for table in range(1, pod.tables + 1):  # a few times: the interleaving differs run to run
        key = uuid.uuid4()
        send = partial(
            record_result,
            round_=round_,
            pod=pod,
            table=table,
            entry=ResultEntry(winner=1, points=(20, 33)),
            actor=ann,
            base_version=0,
            idempotency_key=key,
        )
        first, second = both_answered(at_once(send, send))
        assert sorted([first.replayed, second.replayed]) == [False, True]
        assert first.result.pk == second.result.pk
        stored = list(TableResult.objects.filter(round=round_, pod=pod, table=table))
        assert [(r.version, r.winner, r.points_24) for r in stored] == [(1, 1, 33)]
        assert WriteReceipt.objects.filter(key=key).count() == 1
    assert AuditEntry.objects.filter(action="result.recorded").count() == pod.tables


def test_one_card_key_sent_twice_at_once_stores_one_version(setup):
    stage, pod, round_, ann = setup
    record_pod(pod, round_, ann, [0] * pod.tables)
    cards = card_service.load_stage(stage)
    for player_id in cards.in_pod(1)[:3]:
        send = partial(
            card_service.enter_card,
            stage,
            cards.players[player_id],
            cards.records[player_id],
            actor=ann,
            base_version=0,
            idempotency_key=uuid.uuid4(),
        )
        first, second = both_answered(at_once(send, send))
        assert first.pk == second.pk and first.replayed != second.replayed
        assert CardEntry.objects.filter(stage=stage, player_id=player_id).count() == 1


def test_one_payment_key_sent_twice_at_once_pays_once(tournament):
    (award,) = awarded_directly(tournament, [PlayerFactory(tournament=tournament)])
    admin = member(tournament, "admin", "prize-admin")
    send = partial(
        payouts.pay, award, actor=admin, present=True, id_checked=True, idempotency_key=uuid.uuid4()
    )
    first, second = both_answered(at_once(send, send))
    assert first.pk == second.pk and first.replayed != second.replayed
    assert Payout.objects.filter(award=award).count() == 1
