"""Migration 0015 keeps every stored roll-off: the cut's and the prizes' old rows become
`RollOff` rows, and the audit entries that named them name the copies; backwards, they go
back into the two old tables."""

from __future__ import annotations

import pytest

from tests.support.data import migrate, newest_migrations, old_tournament

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tournaments", "0014_last_bunco")]
AFTER = [("tournaments", "0015_one_roll_off")]


def test_old_roll_offs_are_copied_with_their_audit_entries_and_back():
    old = migrate(BEFORE)
    tournament, (a, b, c) = old_tournament(old, players=3)
    stage = old.get_model("tournaments", "Stage").objects.create(
        tournament_id=tournament.pk, kind="qualifying", sets=1, rules={}, seed=5, draw_input={}
    )
    cut = old.get_model("tournaments", "RollOffRecord").objects.create(
        stage=stage,
        group="3",
        category_key="wins",
        category_label="Most wins",
        players=[a, b],
        faces=[3, 3, 2, 5],
        winners=[b],
        rounds=[{str(a): 3, str(b): 3}, {str(a): 2, str(b): 5}],
        source="entered",
    )
    old.get_model("tournaments", "PrizeCategory").objects.create(
        tournament_id=tournament.pk,
        key="buncos",
        label="Most buncos",
        measure="most_buncos",
        scope="pod",
        amounts_cents=[4000, 2000],
    )
    prize = old.get_model("tournaments", "PrizeRollOff").objects.create(
        tournament_id=tournament.pk, key="buncos:3:1", players=[a, c], faces=[1, 6], seed=77
    )
    audit = old.get_model("tournaments", "AuditEntry").objects
    audit.create(
        tournament_id=tournament.pk,
        action="prizes.roll_off",
        target_type="tournaments.prizerolloff",
        target_id=str(prize.pk),
        summary="roll-off",
    )

    new = migrate(AFTER)
    RollOff = new.get_model("tournaments", "RollOff")
    copied_cut = RollOff.objects.get(kind="cut")
    assert (copied_cut.subject, copied_cut.version, copied_cut.stage_id) == (
        "roll-off:qualifying:3:wins",
        1,
        stage.pk,
    )
    assert (copied_cut.players, copied_cut.faces, copied_cut.winners) == ([a, b], [3, 3, 2, 5], [b])
    assert copied_cut.recorded_at == cut.recorded_at
    copied_prize = RollOff.objects.get(kind="prize")
    assert (copied_prize.subject, copied_prize.key, copied_prize.group) == (
        "prize-roll-off:buncos:3:1",
        "buncos:3:1",
        "3",
    )
    assert (copied_prize.measure, copied_prize.scope, copied_prize.stage_id) == (
        "most_buncos",
        "pod",
        stage.pk,
    )
    # Replayed from its faces: the six wins both places the tie covered.
    assert copied_prize.winners == [c, a] and copied_prize.rounds == [{str(a): 1, str(c): 6}]
    assert (copied_prize.source, copied_prize.seed) == ("site", 77)
    entry = new.get_model("tournaments", "AuditEntry").objects.get(action="prizes.roll_off")
    assert (entry.target_type, entry.target_id) == ("tournaments.rolloff", str(copied_prize.pk))

    back = migrate(BEFORE)
    (restored,) = back.get_model("tournaments", "RollOffRecord").objects.all()
    assert (restored.group, restored.faces, restored.winners) == ("3", [3, 3, 2, 5], [b])
    (again,) = back.get_model("tournaments", "PrizeRollOff").objects.all()
    assert (again.key, again.faces, again.seed) == ("buncos:3:1", [1, 6], 77)
    entry = back.get_model("tournaments", "AuditEntry").objects.get(action="prizes.roll_off")
    assert (entry.target_type, entry.target_id) == ("tournaments.prizerolloff", str(again.pk))
    migrate(newest_migrations())
