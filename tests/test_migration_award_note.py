"""Migration 0024 turns an award's stored note from a sentence with player ids into data: a
note stored before is kept as the page showed it, names in place of the ids; backwards, it
goes back into the note."""

from __future__ import annotations

import pytest

from tests.support.data import migrate, newest_migrations, old_tournament

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tournaments", "0024_player_search_columns")]
AFTER = [("tournaments", "0025_award_note_as_data")]


def test_old_notes_are_kept_as_the_page_showed_them_and_back():
    old = migrate(BEFORE)
    tournament, (a, b, c) = old_tournament(old, players=3)
    category = old.get_model("tournaments", "PrizeCategory").objects.create(
        tournament_id=tournament.pk,
        key="wins",
        label="Most wins",
        measure="most_wins",
        scope="overall",
        amounts_cents=[4000, 2000],
    )
    Award = old.get_model("tournaments", "PrizeAward")
    common = {"tournament_id": tournament.pk, "category": category, "scope_group": "overall"}
    rolled = Award.objects.create(
        **common,
        place=1,
        player_id=a,
        amount_cents=4000,
        note=f"Won 1st place in a roll-off with {b}, {c}; {b} already won Most buncos (pod 1)",
    )
    plain = Award.objects.create(**common, place=2, player_id=b, amount_cents=2000)

    new = migrate(AFTER)
    Award = new.get_model("tournaments", "PrizeAward")
    assert Award.objects.get(pk=rolled.pk).why == {
        "as_written": "Won 1st place in a roll-off with Player 1, Player 2; "
        "Player 1 already won Most buncos (pod 1)"
    }
    assert Award.objects.get(pk=plain.pk).why == {}

    back = migrate(BEFORE)
    Award = back.get_model("tournaments", "PrizeAward")
    assert Award.objects.get(pk=rolled.pk).note.startswith("Won 1st place in a roll-off with Pl")
    assert Award.objects.get(pk=plain.pk).note == ""
    migrate(newest_migrations())
