"""Standings: the page (staff, or public once published), the CSV of every card, the board."""

import csv
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.rules import PRESETS
from scoring.services import cards as card_service
from tests.support.factories import UserFactory, grant
from tournaments.models import AuditEntry, Player, Stage
from tournaments.rules.simulate import simulate_stage
from tournaments.services import tournaments as tournament_service
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


def get_standings(client, tournament, **query):
    return client.get(reverse("standings", args=[tournament.slug]), query)


def organiser_of(tournament):
    """The account `rehearse` makes the organiser of its event."""
    return get_user_model().objects.get(username="organiser")


def rows_of(response):
    return [r.row for r in response.context["rows"]]


def read_csv(response):
    content = b"".join(response.streaming_content) if response.streaming else response.content
    text = content.decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


@pytest.fixture
def played():
    """24 players, three rounds played, no cards yet."""
    r = rehearse(players=24, preset="classic", seed=5, stop_after_round=3)
    return r.tournament, Stage.objects.get(tournament=r.tournament, kind="qualifying")


# --- the numbers ------------------------------------------------------------------------------


def test_standings_equal_the_simulator_for_the_same_seed(client_for):
    r = rehearse(players=30, preset="mingle", seed=11)
    sim = simulate_stage(30, PRESETS["mingle"], 3, 11)
    # Those who play: the rehearsal also has a cancelled and a waitlisted registration.
    pks = sorted(r.tournament.players.filter(status="registered").values_list("pk", flat=True))
    expected = {pks[s.player - 1]: (s.wins, s.buncos) for pod in sim.pods for s in pod.standings}
    response = get_standings(
        client_for(organiser_of(r.tournament)), r.tournament, stage="qualifying"
    )
    assert response.status_code == 200
    rows = rows_of(response)
    assert {row.player.pk: (row.card.wins, row.card.buncos) for row in rows} == expected
    # Every card was entered and verified by the rehearsal: the page says so.
    assert {row.status for row in rows} == {"verified"}
    body = response.content.decode()
    assert "30 cards verified" in body and "Snake eyes" in body  # mingle has snake eyes
    best = max(expected.values())
    first = rows[0]
    assert (first.card.wins, first.card.buncos) == best


def test_sorting_by_column_and_per_pod(played, client_for):
    tournament, stage = played
    c = client_for(organiser_of(tournament))
    rows = rows_of(get_standings(c, tournament))
    assert [(-r.card.wins, -r.card.buncos) for r in rows] == sorted(
        (-r.card.wins, -r.card.buncos) for r in rows
    )
    by_buncos = rows_of(get_standings(c, tournament, sort="buncos"))
    assert [r.card.buncos for r in by_buncos] == sorted((r.card.buncos for r in rows), reverse=True)
    by_minis = rows_of(get_standings(c, tournament, sort="minis"))
    assert [r.card.minis for r in by_minis] == sorted((r.card.minis for r in rows), reverse=True)
    by_losses = rows_of(get_standings(c, tournament, sort="losses"))
    assert [r.card.losses for r in by_losses] == sorted((r.card.losses for r in rows), reverse=True)
    by_name = rows_of(get_standings(c, tournament, sort="name"))
    assert [r.player.name for r in by_name] == sorted(r.player.name for r in rows)
    by_pod = rows_of(get_standings(c, tournament, sort="pod"))
    assert [r.pod for r in by_pod] == sorted(r.pod for r in rows)
    # An unknown key is the default order, not an error.
    response = get_standings(c, tournament, sort="__class__")
    assert response.status_code == 200 and response.context["sort"] == "wins"
    # Column headers link to the sorts; classic rules have no snake eyes column.
    body = response.content.decode()
    assert 'href="/t/rehearsal-classic-5/standings/?sort=buncos"' in body
    assert "Snake eyes" not in body
    # One pod: only its players, ranked among themselves, links keep the pod.
    pod2 = get_standings(c, tournament, pod=2, sort="buncos")
    assert {r.pod for r in rows_of(pod2)} == {2} and len(rows_of(pod2)) == 12
    assert min(r.rank for r in pod2.context["rows"]) == 1  # ranked within the pod
    assert "?pod=2&amp;sort=minis" in pod2.content.decode()
    assert len(rows_of(get_standings(c, tournament, pod="99"))) == 24  # no such pod: all


def test_ranks_are_shared_by_players_level_on_wins_and_buncos(played, client_for):
    tournament, _ = played
    ranked = get_standings(client_for(organiser_of(tournament)), tournament).context["rows"]
    for before, after in zip(ranked, ranked[1:], strict=False):
        level = (before.row.card.wins, before.row.card.buncos) == (
            after.row.card.wins,
            after.row.card.buncos,
        )
        assert (after.rank == before.rank) == level
        assert after.rank > before.rank or level


# --- who may see them -------------------------------------------------------------------------


def test_the_shaded_rows_are_the_players_who_went_on_not_the_top_three(client_for):
    """The page shaded ranks 1 to 3 of every stage, but nobody goes on by overall rank: the
    semi-final takes each pod's category leaders, and of the four final seats two are
    drawn. The rows shaded are the ones the organiser saved."""
    tournament = rehearse(players=24, preset="mesquite", seed=3).tournament
    organiser = client_for(organiser_of(tournament))
    qualifying = Stage.objects.get(tournament=tournament, kind="qualifying")
    semi = Stage.objects.get(tournament=tournament, kind="semi_final")
    for stage, saved, words in (
        (
            qualifying,
            {q.player_id for q in qualifying.qualifiers.all()},
            "through to the semi-final",
        ),
        (
            semi,
            set(tournament.final.seats.values_list("player_id", flat=True)),
            "seated at the final table",
        ),
    ):
        page = get_standings(organiser, tournament, stage=stage.kind)
        rows = page.context["rows"]
        shaded = {
            int(pk)
            for pk in re.findall(r'<tr class="advanced" data-player="(\d+)"', page.content.decode())
        }
        assert shaded == saved & {r.row.player.pk for r in rows} and shaded
        assert shaded != {r.row.player.pk for r in rows if r.rank <= 3}
        assert f"Shaded: {words}" in page.content.decode()


def test_public_only_once_published_and_without_card_details(played, client, client_for):
    tournament, stage = played
    url = reverse("standings", args=[tournament.slug])
    response = client.get(url)  # a player's shared link: told, not sent to sign in
    assert response.status_code == 403
    assert "The results are not published yet" in response.content.decode()
    nobody = UserFactory(username="nosy")
    assert client_for(nobody).get(url).status_code == 403
    staff = UserFactory(username="helper")
    grant(tournament, staff, "staff")
    admin = UserFactory(username="cashier")
    grant(tournament, admin, "admin")
    assert client_for(staff).get(url).status_code == 200
    assert client_for(admin).get(url).status_code == 200

    # Staff may not publish; the organiser does it from the dashboard.
    switch = reverse("tournament-switch", args=[tournament.slug, "standings"])
    assert client_for(staff).post(switch, {"value": "on"}).status_code == 403
    tournament.refresh_from_db()
    assert not tournament.standings_public
    organiser = client_for(organiser_of(tournament))
    dashboard = organiser.get(reverse("tournament-dashboard", args=[tournament.slug]))
    assert "Public standings</strong> are" in dashboard.content.decode()
    organiser.post(switch, {"value": "on"})
    tournament.refresh_from_db()
    assert tournament.standings_public
    assert AuditEntry.objects.filter(action="tournament.standings_opened").exists()

    # One card entered: staff see its status; the public only whether it is verified.
    cards = card_service.load_stage(stage)
    player = cards.players[cards.in_pod(1)[0]]
    card_service.enter_card(
        stage, player, cards.records[player.pk], actor=organiser_of(tournament), base_version=0
    )
    public = client.get(url)
    assert public.status_code == 200
    body = public.content.decode()
    assert "not verified yet" in body and "needs a second person to confirm" not in body
    assert "@" not in body.split("<main")[1]
    for p in Player.objects.filter(tournament=tournament):
        assert p.email not in body and p.code not in body
    assert "Download all cards" not in body
    assert "needs a second person to confirm" in client_for(staff).get(url).content.decode()


# --- CSV --------------------------------------------------------------------------------------


def test_csv_of_every_card_with_formulas_neutralised(client_for):
    r = rehearse(players=24, preset="classic", seed=5)
    tournament = r.tournament
    stage = Stage.objects.get(tournament=tournament, kind="qualifying")
    sly = Player.objects.filter(tournament=tournament).order_by("pk").first()
    sly.name = '=HYPERLINK("http://evil.example","win")'
    sly.save()
    url = reverse("cards-csv", args=[tournament.slug]) + "?stage=qualifying"
    staff = UserFactory(username="helper")
    grant(tournament, staff, "staff")
    assert client_for(staff).get(url).status_code == 403
    admin = UserFactory(username="cashier")
    grant(tournament, admin, "admin")
    response = client_for(admin).get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "rehearsal-classic-5-qualifying-cards.csv" in response["Content-Disposition"]
    rows = read_csv(response)
    header = rows[0]
    assert header[:4] == ["player", "code", "pod", "round_1_1s"]
    assert header[3 + 17] == "round_18_6s"
    assert header[21:] == [
        "wins",
        "losses",
        "buncos",
        "minis",
        "status",
        "version",
        "entered_by",
        "confirmed_by",
    ]
    body = rows[1:]
    assert len(body) == 24
    cards = card_service.load_stage(stage)
    by_code = {row[1]: row for row in body}
    for pid, player in cards.players.items():
        row = by_code[player.code]
        official = cards.official(pid)
        assert row[3:21] == [m or "" for m in official.rounds]
        assert [int(x) for x in row[21:25]] == [
            official.wins,
            official.losses,
            official.buncos,
            official.minis,
        ]
        assert row[25] == "verified"
        current = cards.versions[pid][-1]
        assert int(row[26]) == current.version
        assert row[27] == current.entered_by.username
        assert row[28] == current.confirmed_by.username
    assert by_code[sly.code][0] == "'" + sly.name
    assert AuditEntry.objects.filter(action="cards.exported", actor=admin).count() == 1
    # The standings page links the CSV for those who may download it.
    page = client_for(admin).get(
        reverse("standings", args=[tournament.slug]), {"stage": "qualifying"}
    )
    assert url in page.content.decode()


# --- the board --------------------------------------------------------------------------------


def test_board_shows_the_top_ten_once_published(played, client):
    tournament, stage = played
    url = reverse("board-live", args=[tournament.slug])
    assert 'id="leaders"' not in client.get(url).content.decode()
    # Through the switch's service, as the organiser's page does: it counts as a change.
    tournament_service.set_switch(tournament, "standings", True, actor=tournament.created_by)
    body = client.get(url).content.decode()
    assert 'id="leaders"' in body
    top = card_service.standings(card_service.load_stage(stage), sort="wins")[:10]
    leaders = body.split('id="leaders"')[1]
    positions = [leaders.index(f'<span class="who">{row.player.name}</span>') for row in top]
    assert positions == sorted(positions)
    assert leaders.count('<li class="leader">') == 10


@pytest.mark.django_db(transaction=True)  # the shared reading is kept outside transactions
def test_board_and_public_share_one_reading_until_the_room_changes(
    played, client, client_for, django_assert_max_num_queries, settings
):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    tournament, stage = played
    tournament.standings_public = True
    tournament.save()
    url = reverse("standings", args=[tournament.slug])
    assert "not verified yet" in client.get(url).content.decode()  # reads the stage
    # The board reuses that reading: only its own queries.
    with django_assert_max_num_queries(8):
        assert (
            'id="leaders"'
            in client.get(reverse("board-live", args=[tournament.slug])).content.decode()
        )
    cards = card_service.load_stage(stage)
    player = cards.players[cards.in_pod(1)[0]]
    staff = get_user_model().objects.get(username=f"{tournament.slug}-staff1")
    card_service.enter_card(stage, player, cards.records[player.pk], actor=staff, base_version=0)
    card_service.confirm_card(stage, player, actor=organiser_of(tournament), version=1)
    fresh = get_standings(client_for(organiser_of(tournament)), tournament)
    assert fresh.context["verified"] == 1
    # The confirmation moved the room's counter: the public reads the stage again at once.
    assert "✓ verified" in client.get(url).content.decode()


# --- query counts -----------------------------------------------------------------------------

STANDINGS_QUERIES = 13
CSV_QUERIES = 13
BOARD_QUERIES = 13


@pytest.mark.parametrize("players", [24, 1200])
def test_fixed_queries_whatever_the_number_of_players(
    players, client, client_for, django_assert_max_num_queries
):
    r = rehearse(players=players, preset="classic", seed=1, stop_after_round=1)
    tournament = r.tournament
    tournament.standings_public = True
    tournament.save()
    stage = Stage.objects.get(tournament=tournament, kind="qualifying")
    # A few cards entered and confirmed, so the version and user lookups have work to do.
    cards = card_service.load_stage(stage)
    organiser = organiser_of(tournament)
    staff = get_user_model().objects.get(username=f"{tournament.slug}-staff1")
    for pid in cards.in_pod(1)[:4]:
        player = cards.players[pid]
        card_service.enter_card(stage, player, cards.records[pid], actor=staff, base_version=0)
        card_service.confirm_card(stage, player, actor=organiser, version=1)
    c = client_for(organiser)
    with django_assert_max_num_queries(STANDINGS_QUERIES):
        response = get_standings(c, tournament)
    assert len(response.context["rows"]) == players
    with django_assert_max_num_queries(STANDINGS_QUERIES):
        assert len(get_standings(client, tournament, sort="buncos").context["rows"]) == players
    with django_assert_max_num_queries(CSV_QUERIES):
        response = c.get(reverse("cards-csv", args=[tournament.slug]))
    assert len(read_csv(response)) == players + 1
    with django_assert_max_num_queries(BOARD_QUERIES):
        body = client.get(reverse("board-live", args=[tournament.slug])).content.decode()
    assert body.count('<li class="leader">') == 10
