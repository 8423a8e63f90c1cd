"""The one player search (tournaments/foundation/search.py): its rule, every page that
searches players, the paths that keep the folded columns true, and the migration that
fills them. The pages run on whichever database the suite runs on (PostgreSQL in CI)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.data import migrate, newest_migrations, old_tournament
from tests.support.events import awarded_directly
from tests.support.factories import PlayerFactory, TournamentFactory, drawn_stage, grant
from tournaments.foundation.search import MAX_WORDS, fold, player_matches, words
from tournaments.models import Player

ACCENTED = ("José Núñez", "Zoë Ærø", "Đorđe Straße")
FOUND_BY = {
    "José Núñez": ("jose", "JOSE", "josé", "JOSÉ núñez", "  nunez   jose "),
    "Zoë Ærø": ("zoe", "ZOË", "zoë"),
    "Đorđe Straße": ("strasse", "STRASSE", "straße"),
}


def test_folding_drops_case_accents_and_extra_spaces():
    assert fold("  José \t NÚÑEZ ") == "jose nunez"
    assert fold("Zoë") == fold("ZOE") == fold("zoe") == "zoe"
    assert fold("Straße") == "strasse"
    assert fold("ﬁnn") == "finn"  # compatibility forms fold to their letters
    assert fold("e\u0301") == fold("\u00e9") == "e"  # decomposed or not, the same
    assert fold("Jo\u200bs\x00é\tNÚÑEZ") == "jose nunez"  # invisible characters go, tabs split
    assert words(" a  b c d e f g h ") == ["a", "b", "c", "d", "e", "f"][:MAX_WORDS]


@pytest.mark.django_db
def test_every_word_must_match_somewhere_and_accents_never_matter(tournament):
    jose = PlayerFactory(
        tournament=tournament, name="José Núñez", email="jn@example.org", group_name="Dice Divas"
    )
    PlayerFactory(tournament=tournament, name="Joseph Nash", email="jnash@example.org")

    def found(query, **kw):
        return set(tournament.players.filter(player_matches(query, **kw)).values_list("name"))

    for query in FOUND_BY["José Núñez"]:
        assert ("José Núñez",) in found(query), query
    assert found("jose divas") == {("José Núñez",)}  # one word in the name, one in the group
    assert found("jose nash") == {("Joseph Nash",)}
    assert found("jose zzz") == set()
    assert found(jose.code.lower()) == {("José Núñez",)}
    assert found("jn@example") == {("José Núñez",)}
    # The public search: names, and a code only in full.
    assert found("jose", public=True) == {("José Núñez",), ("Joseph Nash",)}
    assert found("jn@example", public=True) == set()
    assert found("divas", public=True) == set()
    assert found(jose.code[:4], public=True) == set()
    assert found(" ".join(jose.code.lower()), public=True) == {("José Núñez",)}
    # "%" and "_" are letters to match, not patterns.
    assert found("%") == found("_") == set()


@pytest.mark.django_db
def test_every_write_path_keeps_the_folded_columns_true(tournament):
    player = PlayerFactory(tournament=tournament, name="Jose", email="a@example.org")
    player.name = "Zoë  Quinn"
    player.save(update_fields=["name"])
    player.refresh_from_db()
    assert player.search_name == "zoe quinn"
    assert player.search_text == f"zoe quinn a@example.org {player.code.lower()}"
    Player.objects.filter(pk=player.pk).update(group_name="Les Dés")
    player.refresh_from_db()
    assert "les des" in player.search_text
    player.email = "ZOË@example.org"
    Player.objects.bulk_update([player], ["email"])
    player.refresh_from_db()
    assert "zoe@example.org" in player.search_text
    made = Player.objects.bulk_create(
        [Player(tournament=tournament, name="Åsa Öberg", email="asa@example.org")]
    )
    assert Player.objects.get(pk=made[0].pk).search_name == "asa oberg"
    other = TournamentFactory()
    created = other.players.create(name="Renée")
    assert Player.objects.get(pk=created.pk).search_name == "renee"


# --- each page that searches players --------------------------------------------------------


@pytest.mark.django_db
def test_seat_finder_finds_accented_names_without_accents(client, tournament, organiser):
    drawn_stage(tournament, organiser, players=12, names=ACCENTED)
    address = reverse("seat-finder", args=[tournament.slug])
    for name, queries in FOUND_BY.items():
        for query in queries:
            body = client.get(address, {"q": query}).content.decode()
            assert name in body, (name, query)


@pytest.mark.django_db
def test_check_in_desk_finds_accented_names_without_accents(tournament, organiser, client_for):
    for name in ACCENTED:
        PlayerFactory(tournament=tournament, name=name)
    desk = client_for(organiser)
    address = reverse("checkin-desk", args=[tournament.slug])
    for name, queries in FOUND_BY.items():
        for query in queries:
            assert name in desk.get(address, {"q": query}).content.decode(), (name, query)


@pytest.mark.django_db
def test_players_list_finds_accented_names_without_accents(tournament, organiser, client_for):
    for name in ACCENTED:
        PlayerFactory(tournament=tournament, name=name)
    PlayerFactory(tournament=tournament, name="Someone Else")
    page = client_for(organiser)
    address = reverse("player-list", args=[tournament.slug])
    for name, queries in FOUND_BY.items():
        for query in queries:
            body = page.get(address, {"q": query}).content.decode()
            assert name in body and "Someone Else" not in body, (name, query)


@pytest.mark.django_db
def test_prize_table_finds_accented_winners_without_accents(tournament, organiser, client_for):
    names = [*ACCENTED, "Someone Else"]
    awarded_directly(tournament, [PlayerFactory(tournament=tournament, name=n) for n in names])
    grant(tournament, organiser, "admin")
    page = client_for(organiser)
    address = reverse("payouts", args=[tournament.slug])
    for name, queries in FOUND_BY.items():
        for query in queries:
            rows = page.get(address, {"q": query}).context["rows"]
            assert [r.award.player.name for r in rows] == [name], (name, query)


# --- the migration that fills the columns ---------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_folds_players_registered_before_it():
    old = migrate([("tournaments", "0023_waitlist_offers")])
    tournament, (pk,) = old_tournament(old, players=1)
    OldPlayer = old.get_model("tournaments", "Player")
    OldPlayer.objects.filter(pk=pk).update(name="José Núñez", group_name="Les Dés")
    new = migrate([("tournaments", "0024_player_search_columns")])
    player = new.get_model("tournaments", "Player").objects.get(pk=pk)
    assert player.search_name == "jose nunez"
    assert player.search_text.startswith("jose nunez les des old")
    assert player.search_text.endswith(player.code.lower())
    migrate(newest_migrations())
    assert Player.objects.filter(player_matches("JOSE des")).get().pk == pk
