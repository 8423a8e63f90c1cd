"""Each write a phone may send twice, sent twice with its idempotency key: stored once, the
second send answered with the first outcome; a key reused by another account, for another
kind of write or for another thing is refused; a refused write leaves its key free."""

from __future__ import annotations

import uuid

import pytest

from scoring.models import CardEntry, TableResult
from scoring.services import cards as card_service
from scoring.services.results import ResultConflict, ResultEntry, record_result
from tests.support.events import awarded_directly
from tests.support.factories import PlayerFactory, drawn_stage, member, record_pod
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, LedgerEntry, Payout, WriteReceipt
from tournaments.services import checkin, payouts

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(tournament, organiser):
    """One pod, round 1 started, two staff on it."""
    stage = drawn_stage(tournament, organiser)
    pod = stage.pods.get()
    ann, bea = member(tournament, "staff", "ann-staff"), member(tournament, "staff", "bea-staff")
    pod.staff.add(ann, bea)
    return stage, pod, stage.rounds.get(number=1), ann, bea


def save(round_, pod, actor, key, *, table=1, winner=0, base_version=0):
    return record_result(
        round_=round_,
        pod=pod,
        table=table,
        entry=ResultEntry(winner=winner),
        actor=actor,
        base_version=base_version,
        idempotency_key=key,
    )


def test_a_result_sent_twice_is_stored_once_and_answered_with_the_first_save(played):
    stage, pod, round_, ann, _ = played
    key = str(uuid.uuid4())
    first = save(round_, pod, ann, key)
    again = save(round_, pod, ann, key)
    assert not first.replayed and again.replayed
    assert again.result.pk == first.result.pk and again.result.version == 1
    assert again.next_round == first.next_round
    assert TableResult.objects.filter(round=round_, pod=pod, table=1).count() == 1
    assert AuditEntry.objects.filter(action="result.recorded").count() == 1
    receipt = WriteReceipt.objects.get(key=key)
    assert (receipt.account, receipt.kind, receipt.pod) == (ann, "result", pod)
    assert receipt.outcome == {
        "result": first.result.pk,
        "next_round": first.next_round,
        "round_is_current": first.round_is_current,
    }


def test_a_save_made_since_does_not_turn_a_resent_key_into_a_conflict(played):
    """The phone's answer was lost; meanwhile someone corrected the table. The resent save
    is still the save it made, not a conflict with the newer version."""
    stage, pod, round_, ann, bea = played
    key = uuid.uuid4()
    first = save(round_, pod, ann, key)
    save(round_, pod, bea, uuid.uuid4(), winner=1, base_version=1)
    again = save(round_, pod, ann, key)
    assert again.replayed and again.result.pk == first.result.pk
    assert TableResult.objects.filter(round=round_, pod=pod, table=1).count() == 2


def test_a_key_of_another_account_is_refused_and_writes_nothing(played):
    stage, pod, round_, ann, bea = played
    key = uuid.uuid4()
    save(round_, pod, ann, key)
    with pytest.raises(UserFacingError, match="another account"):
        save(round_, pod, bea, key, table=2)
    assert not TableResult.objects.filter(table=2).exists()


def test_a_key_used_for_another_table_or_another_kind_is_refused(played, tournament):
    stage, pod, round_, ann, _ = played
    key = uuid.uuid4()
    save(round_, pod, ann, key)
    with pytest.raises(UserFacingError, match="another save"):
        save(round_, pod, ann, key, table=2)
    with pytest.raises(UserFacingError, match="a table result"):
        checkin.check_in(PlayerFactory(tournament=tournament), ann, idempotency_key=key)
    assert not TableResult.objects.filter(table=2).exists()


def test_a_refused_save_leaves_its_key_free(played):
    stage, pod, round_, ann, bea = played
    save(round_, pod, bea, uuid.uuid4())
    key = uuid.uuid4()
    with pytest.raises(ResultConflict) as told:
        save(round_, pod, ann, key, winner=1)  # built on version 0: bea saved meanwhile
    assert told.value.version == 1
    assert not WriteReceipt.objects.filter(key=key).exists()
    corrected = save(round_, pod, ann, key, winner=1, base_version=1)
    assert not corrected.replayed and corrected.result.version == 2


def test_a_garbled_key_is_refused_and_no_key_writes_unprotected(played):
    stage, pod, round_, ann, _ = played
    with pytest.raises(UserFacingError, match="out of date"):
        save(round_, pod, ann, "not-a-uuid")
    assert not TableResult.objects.exists()
    save(round_, pod, ann, None)
    save(round_, pod, ann, "", table=2)
    assert TableResult.objects.count() == 2 and not WriteReceipt.objects.exists()


def test_a_card_entry_and_its_confirmation_sent_twice_are_stored_once(played):
    stage, pod, round_, ann, bea = played
    record_pod(pod, round_, ann, [0] * pod.tables)
    cards = card_service.load_stage(stage)
    player = cards.players[cards.in_pod(1)[0]]
    record = cards.records[player.pk]
    key = uuid.uuid4()
    entered = card_service.enter_card(
        stage, player, record, actor=ann, base_version=0, idempotency_key=key
    )
    again = card_service.enter_card(
        stage, player, record, actor=ann, base_version=0, idempotency_key=key
    )
    assert not entered.replayed and again.replayed and again.pk == entered.pk
    assert CardEntry.objects.filter(stage=stage, player=player).count() == 1
    assert WriteReceipt.objects.get(key=key).pod == pod

    confirm_key = uuid.uuid4()
    confirmed = card_service.confirm_card(
        stage, player, actor=bea, version=1, idempotency_key=confirm_key
    )
    # Without its key the second tap is refused ("Already confirmed"); with it, answered.
    again = card_service.confirm_card(
        stage, player, actor=bea, version=1, idempotency_key=confirm_key
    )
    assert again.replayed and again.pk == confirmed.pk and again.confirmed_by == bea
    assert AuditEntry.objects.filter(action="card.confirmed").count() == 1
    with pytest.raises(UserFacingError, match="already used for a score card, so"):
        card_service.confirm_card(stage, player, actor=ann, version=1, idempotency_key=key)


def test_a_check_in_sent_twice_is_recorded_once(tournament, organiser):
    player = PlayerFactory(tournament=tournament)
    key = uuid.uuid4()
    first = checkin.check_in(player, organiser, idempotency_key=key)
    again = checkin.check_in(player, organiser, idempotency_key=key)
    assert first.changed and not again.changed
    assert again.message == f"Already recorded from this tap: {first.message}"
    assert AuditEntry.objects.filter(action="player.checked_in").count() == 1


def test_a_payment_sent_twice_pays_once(tournament, organiser):
    (award,) = awarded_directly(tournament, [PlayerFactory(tournament=tournament)])
    admin = member(tournament, "admin", "prize-admin")
    key = uuid.uuid4()
    paid = payouts.pay(award, actor=admin, present=True, id_checked=True, idempotency_key=key)
    again = payouts.pay(award, actor=admin, present=True, id_checked=True, idempotency_key=key)
    assert not paid.replayed and again.replayed and again.pk == paid.pk
    assert Payout.objects.count() == 1
    assert LedgerEntry.objects.filter(kind="payout").count() == 1
    # Another form (a fresh key) for the same award is still told it was paid.
    with pytest.raises(UserFacingError, match="Already paid"):
        payouts.pay(award, actor=admin, present=True, id_checked=True, idempotency_key=uuid.uuid4())
