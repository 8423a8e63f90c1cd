"""The final table's roll for throwing order is stored as roll-offs of kind "order" (issue 14,
"one roll-off"): a re-throw of a tie for the lowest die is a new version holding every face
so far, nothing is deleted, and migration 0017 converts every stored `order_faces`."""

from __future__ import annotations

import random

import pytest

from scoring.rules import roll_order
from tests.support.data import migrate, newest_migrations, old_tournament
from tests.support.events import seated_final
from tests.support.factories import UserFactory
from tournaments.models import AuditEntry, Draw, RollOff
from tournaments.rules.draws import draw_code
from tournaments.services import final_table


@pytest.mark.django_db
def test_a_rethrow_of_a_tie_for_lowest_is_a_new_version_and_the_first_stays():
    event, final = seated_final()
    seat = dict(final.seats.values_list("seat", "player_id"))
    final = final_table.roll_for_order(final, actor=event.organiser, faces=[3, 3, 5, 6])
    first = RollOff.objects.get(kind="order")
    assert (first.version, first.faces, first.winners) == (1, [3, 3, 5, 6], [])
    assert first.rounds == [
        {str(seat[n]): f for n, f in zip((1, 2, 3, 4), (3, 3, 5, 6), strict=True)}
    ]
    final = final_table.roll_for_order(final, actor=event.organiser, faces=[4, 2])
    rows = list(RollOff.objects.filter(kind="order").order_by("version"))
    assert [(r.version, r.faces) for r in rows] == [(1, [3, 3, 5, 6]), (2, [3, 3, 5, 6, 4, 2])]
    assert rows[0].pk == first.pk  # the first throw is kept as it was
    assert rows[1].winners == final.order == [seat[2], seat[3], seat[4], seat[1]]
    assert rows[1].rounds[1] == {str(seat[1]): 4, str(seat[2]): 2}
    assert {r.source for r in rows} == {"entered"} and {r.recorded_by for r in rows} == {
        event.organiser
    }
    assert list(RollOff.objects.current().filter(kind="order")) == [rows[1]]
    entries = AuditEntry.objects.filter(action="final.order").order_by("pk")
    assert [e.target_id for e in entries] == [str(r.pk) for r in rows]
    # The order roll settles no cut and no prize.
    assert rows[1].tied() is None


@pytest.mark.django_db
def test_a_site_rolled_order_is_one_version_from_the_listed_dice_code():
    event, final = seated_final()
    final = final_table.roll_for_order(final, actor=event.organiser)
    (row,) = RollOff.objects.filter(kind="order")
    code = draw_code(event.tournament.draw_secret, "final:dice#1")
    assert row.source == "site" and row.seed == final.dice_seed == code
    listed = Draw.objects.get(tournament=event.tournament, subject="final:dice")
    assert listed.seed == code and listed.drawn_at <= row.recorded_at
    players = list(final.seats.order_by("seat").values_list("player_id", flat=True))
    rng = random.Random(f"{code}:order")
    assert row.faces == roll_order(players, lambda: rng.randint(1, 6)).faces
    assert row.winners == final.order


# --- migration 0017 ---------------------------------------------------------------------------

BEFORE = [("tournaments", "0016_award_versions")]
AFTER = [("tournaments", "0017_final_order_roll_offs")]


def old_final(old, players, faces, order, dice_seed=None):
    tournament, ids = old_tournament(old, players=players)
    stage = old.get_model("tournaments", "Stage").objects.create(
        tournament_id=tournament.pk, kind="semi_final", sets=1, rules={}, seed=5, draw_input={}
    )
    final = old.get_model("tournaments", "FinalTable").objects.create(
        tournament_id=tournament.pk,
        semi_stage=stage,
        seed=9,
        order_faces=faces,
        order=[ids[i] for i in order],
        dice_seed=dice_seed,
    )
    for n, pk in enumerate(ids, 1):
        old.get_model("tournaments", "FinalSeat").objects.create(
            final=final, seat=n, player_id=pk, reason="r"
        )
    return tournament, final, ids


@pytest.mark.django_db(transaction=True)
def test_migration_converts_stored_order_faces_into_versions_and_back():
    old = migrate(BEFORE)
    # Typed dice, recorded twice (a tie for the lowest, then its re-throw), with their audit.
    typed, typed_final, a = old_final(old, 4, [3, 3, 5, 6, 4, 2], [1, 2, 3, 0])
    clerk = UserFactory(username="order-clerk")
    audit = old.get_model("tournaments", "AuditEntry").objects
    for faces in ([3, 3, 5, 6], [3, 3, 5, 6, 4, 2]):
        audit.create(
            tournament_id=typed.pk,
            actor_id=clerk.pk,
            action="final.order",
            target_type="tournaments.finaltable",
            target_id=str(typed_final.pk),
            summary="order",
            data={"faces": faces, "seed": None},
        )
    # Typed dice without audit entries: each round of the roll is one version.
    bare, _, b = old_final(old, 4, [2, 2, 2, 6, 5, 1, 5], [2, 3, 0, 1])
    # Rolled on screen: the faces replay from the dice code, one version with that code.
    site, site_final, c = old_final(old, 4, [], [])
    rng = random.Random("77:order")
    rolled = roll_order(c, lambda: rng.randint(1, 6))
    old.get_model("tournaments", "FinalTable").objects.filter(pk=site_final.pk).update(
        order_faces=rolled.faces, order=list(rolled.order), dice_seed=77
    )
    # Not rolled yet: nothing to convert.
    untouched, _, _ = old_final(old, 4, [], [])

    new = migrate(AFTER)
    RollOff = new.get_model("tournaments", "RollOff")
    rows = list(RollOff.objects.filter(tournament_id=typed.pk).order_by("version"))
    assert [(r.version, r.faces) for r in rows] == [(1, [3, 3, 5, 6]), (2, [3, 3, 5, 6, 4, 2])]
    assert {(r.kind, r.subject, r.source, r.seed) for r in rows} == {
        ("order", "final:order", "entered", None)
    }
    assert [r.winners for r in rows] == [[], [a[1], a[2], a[3], a[0]]]
    assert {r.recorded_by_id for r in rows} == {clerk.pk}
    entries = new.get_model("tournaments", "AuditEntry").objects.filter(tournament_id=typed.pk)
    assert sorted(e.target_id for e in entries) == sorted(str(r.pk) for r in rows)
    assert {e.target_type for e in entries} == {"tournaments.rolloff"}

    rows = list(RollOff.objects.filter(tournament_id=bare.pk).order_by("version"))
    assert [r.faces for r in rows] == [[2, 2, 2, 6], [2, 2, 2, 6, 5, 1, 5]]
    assert rows[-1].winners == [b[1], b[2], b[3], b[0]]
    assert rows[-1].rounds[-1] == {str(b[0]): 5, str(b[1]): 1, str(b[2]): 5}

    (row,) = RollOff.objects.filter(tournament_id=site.pk)
    assert (row.source, row.seed, row.faces) == ("site", 77, rolled.faces)
    assert row.winners == list(rolled.order)
    assert not RollOff.objects.filter(tournament_id=untouched.pk).exists()
    fields = {f.name for f in new.get_model("tournaments", "FinalTable")._meta.fields}
    assert "order_faces" not in fields and "order" in fields

    back = migrate(BEFORE)
    FinalTable = back.get_model("tournaments", "FinalTable")
    assert FinalTable.objects.get(pk=typed_final.pk).order_faces == [3, 3, 5, 6, 4, 2]
    assert FinalTable.objects.get(pk=site_final.pk).order_faces == rolled.faces
    assert not back.get_model("tournaments", "RollOff").objects.filter(kind="order").exists()
    entries = back.get_model("tournaments", "AuditEntry").objects.filter(tournament_id=typed.pk)
    assert {(e.target_type, e.target_id) for e in entries} == {
        ("tournaments.finaltable", str(typed_final.pk))
    }
    migrate(newest_migrations())
