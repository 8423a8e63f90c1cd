"""Moving a whole tournament between databases: `export_tournament` and `import_tournament`.

A rehearsed event (results with corrections, cards, roll-offs, semi-final, final, prizes paid,
printouts) goes from the test database (PostgreSQL in CI) to a fresh SQLite laptop database in
a subprocess and back out; both exports must be equal row for row once ids are replaced by
positions. Imported back under a new slug, it must show the same standings and results.
"""

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import CommandError, call_command
from django.db import models
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.support.data import database_counts, export_to
from tests.support.factories import drawn_stage
from tournaments.models import (
    CardProblem,
    EmailLog,
    LastBuncoMark,
    Player,
    RollOff,
    RulePreset,
    Seat,
    Tournament,
    TravelingPass,
)
from tournaments.rules.prizes import note_from_data
from tournaments.services import transfer
from tournaments.services import transfer_graph as graph
from tournaments.services.invitations import invite
from tournaments.services.last_bunco import last_bunco
from tournaments.services.presets import copy_preset
from tournaments.services.stages import replay_matches, seat_late_arrival

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
SLUG = "rehearsal-mesquite-5"


def rehearsed():
    """A whole mesquite event (its prize list has judged, best-pod and rolled-off prizes),
    plus the traveling item passed once, a last bunco marked by staff, a staff password worth
    keeping, and an invitation still waiting for its answer."""
    call_command("rehearse", "--players", "30", "--preset", "mesquite", "--seed", "5")
    tournament = Tournament.objects.get(slug=SLUG)
    organiser = get_user_model().objects.get(username="organiser")
    player = tournament.players.order_by("pk")[3]
    last_round = tournament.stages.get(kind="qualifying").rounds.order_by("number").last()
    # Passed and marked after the prizes were paid (which the services refuse), so written
    # directly.
    TravelingPass.objects.create(
        tournament=tournament, player=player, round=last_round, by=organiser
    )
    first = last_bunco(last_round.stage).recorded[0]
    LastBuncoMark.objects.create(
        tournament=tournament,
        result_id=first.result_id,
        player_id=first.player_id,
        reason="Shouted last",
        marked_by=organiser,
    )
    # Awarded twice before the first payment: the earlier share is kept, superseded. Written
    # directly, since awarding again after the payments is refused.
    tournament.awards.update(version=2)
    kept = tournament.awards.order_by("pk").first()
    kept.pk, kept.version, kept.superseded_at = None, 1, kept.awarded_at
    kept.save()
    staff = get_user_model().objects.get(username=f"{SLUG}-staff1")
    staff.set_password("kept-across-machines")
    staff.save()
    helper = get_user_model().objects.create_user(username="helper", password="helper-pass-1")
    invite(tournament, helper, "admin", actor=organiser)
    # A player's note on their card, and an e-mail sent while EMAIL_URL was set.
    seat = Seat.objects.filter(player=player).select_related("pod").first()
    CardProblem.objects.create(player=player, pod=seat.pod, message="Round 2 was a win")
    EmailLog.objects.create(
        tournament=tournament,
        player=player,
        kind="confirmation",
        to=player.email,
        subject="Your registration",
        body=f"Your code: {player.code}",
        status="sent",
        attempts=1,
        sent_at=timezone.now(),
    )
    return tournament


def normalised(export):
    """The export with every id replaced by its row's position (accounts by username, presets
    by slug), so two databases' exports of one event compare equal."""
    models_ = export["models"]
    index = {
        label: {r["id"]: n for n, r in enumerate(sorted_rows(rows))}
        for label, rows in models_.items()
    }
    index[graph.ACCOUNT] = {a["id"]: a["username"] for a in export["accounts"]}
    index[graph.PRESET] = {p["id"]: p["slug"] for p in export["presets"]}
    relabel = graph.Relabel(export, lambda label, old: index[label].get(old))
    return {
        "accounts": [{k: v for k, v in a.items() if k != "id"} for a in export["accounts"]],
        "presets": [{**relabel.row(RulePreset, p), "id": p["slug"]} for p in export["presets"]],
        "models": {
            model._meta.label_lower: [
                {**relabel.row(model, row), "id": n}
                for n, row in enumerate(sorted_rows(models_[model._meta.label_lower]))
            ]
            for model in graph.insert_order()
        },
    }


def sorted_rows(rows):
    return sorted(rows, key=lambda r: r["id"])


def assert_same_event(left, right):
    """Every model's row count, then every row field by field (first difference shown)."""
    assert {k: len(v) for k, v in left["models"].items()} == {
        k: len(v) for k, v in right["models"].items()
    }
    assert left["accounts"] == right["accounts"]
    assert left["presets"] == right["presets"]
    for label, rows in left["models"].items():
        for a, b in zip(rows, right["models"][label], strict=True):
            assert a == b, label


class VisibleText(HTMLParser):
    """A page's text as a person reads it: tags, attributes (links, tokens) and scripts dropped."""

    def __init__(self):
        super().__init__()
        self.words, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self.skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.skip:
            self.words += data.split()


def visible(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    parser = VisibleText()
    parser.feed(response.content.decode())
    return " ".join(parser.words)


def assert_same_pages(client_for, slug, other):
    """The standings (page and CSV) and the results (roll-offs, final table, every throw by
    name) read the same for both events: ids inside JSON must have been translated."""
    organiser = client_for(get_user_model().objects.get(username="organiser"))
    names = set(Player.objects.filter(tournament__slug=other).values_list("name", flat=True))
    for name, query in [
        ("standings", "?stage=qualifying"),
        ("standings", "?stage=semi_final"),
        ("results", ""),
        ("cards-csv", "?stage=qualifying"),
    ]:
        before = visible(organiser, reverse(name, args=[slug]) + query)
        after = visible(organiser, reverse(name, args=[other]) + query)
        assert before == after, name
        assert any(player in after for player in names), name


def assert_ids_point_inside(tournament):
    """Every id kept inside JSON or an audit entry names a row of this event, checked
    without the transfer's own list of where ids are (its players' pks differ from the
    original's, so an id left untranslated would point outside)."""
    players = set(tournament.players.values_list("pk", flat=True))
    awards = set(tournament.awards.values_list("pk", flat=True))
    for stage in tournament.stages.all():
        assert set(stage.draw_input["players"]) <= players
    for record in RollOff.objects.filter(tournament=tournament).exclude(scope="pod_group"):
        assert set(record.players) | set(record.winners) <= players
        assert {int(p) for throw in record.rounds for p in throw} <= players
    assert set(tournament.final.order) <= players
    for category in tournament.prize_categories.exclude(scope="pod_group"):
        for nomination in category.nominations.all():
            assert set(nomination.winners) <= players
        for tie in tournament.roll_offs.filter(kind="prize", category_key=category.key):
            assert set(tie.players) <= players
    notes = [note_from_data(a.why) for a in tournament.awards.all()]
    assert any(note.rolled_with for note, _ in notes if note.pod is None)
    for note, passed in notes:
        assert note.pod is not None or set(note.rolled_with) <= players
        assert {p.player for p in passed} <= players
    entries = list(tournament.audit.all())
    for entry in entries:
        if entry.target_id:
            target = apps.get_model(entry.target_type)._base_manager.get(pk=entry.target_id)
            if entry.target_type == graph.PLAYER:
                assert target.tournament_id == tournament.pk
        mentioned = entry.data.get("players", []) + [entry.data.get("player")]
        assert {p for p in mentioned if p is not None} <= players, entry.action
        if "award" in entry.data:
            assert entry.data["award"] in awards
    assert {e.action for e in entries} >= {
        "final.seated",
        "final.won",
        "card.entered",
        "prizes.paid",
    }


def signs_in(username, password):
    """Through the login page, as the moved staff would sign in (sign-in limits included)."""
    client = Client()
    client.post(reverse("login"), {"username": username, "password": password})
    return "_auth_user_id" in client.session


def laptop(tmp_path, *args):
    """manage.py on a fresh SQLite database of its own, as on a venue laptop."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'laptop.sqlite3'}",
        BUNCO_DATA_DIR=str(tmp_path / "laptop-data"),
    )
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- the model graph ----------------------------------------------------------------------------


def test_every_model_linked_to_a_tournament_is_moved():
    """A new model with a foreign-key path to Tournament fails here until the transfer lists it
    (and the export refuses to run meanwhile, rather than leave its rows behind)."""
    linked = {Tournament}
    every = apps.get_models(include_auto_created=True)
    while grown := {
        m
        for m in every
        if m not in linked
        and any(
            isinstance(f, models.ForeignKey) and f.related_model in linked
            for f in m._meta.concrete_fields
        )
    }:
        linked |= grown
    assert {m._meta.label_lower for m in linked} == graph.MODELS == graph.scoped_models()
    moved = graph.MODELS - graph.STAY_BEHIND
    assert {m._meta.label_lower for m in graph.insert_order()} == moved


def test_every_json_field_is_known_to_hold_ids_or_not():
    json_fields = {
        (m._meta.label_lower, f.name)
        for m in graph.insert_order()
        for f in m._meta.concrete_fields
        if isinstance(f, models.JSONField)
    }
    with_ids = {(label, name) for label, fields in graph.JSON_IDS.items() for name in fields}
    assert json_fields == with_ids | graph.PLAIN_JSON
    assert not with_ids & graph.PLAIN_JSON


def test_references_out_of_the_event_go_only_to_accounts_and_presets():
    outside = {
        f.related_model
        for m in graph.insert_order()
        for f in m._meta.concrete_fields
        if isinstance(f, models.ForeignKey)
        and f.related_model._meta.label_lower not in graph.MODELS
    }
    assert outside == {get_user_model(), RulePreset}


# --- the round trip -----------------------------------------------------------------------------


@pytest.mark.postgres
def test_a_rehearsed_event_goes_to_a_sqlite_laptop_and_back_unchanged(tmp_path, client_for):
    rehearsed()
    original = export_to(tmp_path, SLUG, "server.json")
    empty = {label for label, rows in original["models"].items() if not rows}
    # Every model is exercised (late arrivals are covered by the small event below).
    assert empty == {"tournaments.rosterchange"}, "cover the new model in this event"

    laptop(tmp_path, "migrate", "--verbosity", "0")
    said = laptop(tmp_path, "import_tournament", str(tmp_path / "server.json"), "--slug", "first")
    assert "Accounts created (they log in with their old passwords)" in said
    assert "printouts came without their PDF files" in said
    # Imported again beside the first copy: other ids, and the accounts now exist there.
    said = laptop(tmp_path, "import_tournament", str(tmp_path / "server.json"))
    assert f"as {SLUG}:" in said and "passwords unchanged" in said
    laptop(tmp_path, "export_tournament", SLUG, "--out", str(tmp_path / "laptop.json"))
    back = json.loads((tmp_path / "laptop.json").read_text())

    assert_same_event(normalised(original), normalised(back))
    # The superseded award travels, and the awards in force are the same ones.
    for export in (original, back):
        awards = export["models"][graph.AWARD]
        assert [a["version"] for a in awards if a["superseded_at"] is not None] == [1]
    # The ids did change, so the comparison above really translated them.
    assert [r["id"] for r in original["models"][graph.PLAYER]] != [
        r["id"] for r in back["models"][graph.PLAYER]
    ]
    # And the laptop's file comes back to the server showing what the server showed.
    call_command(
        "import_tournament",
        str(tmp_path / "laptop.json"),
        "--slug",
        "from-laptop",
        stdout=StringIO(),
    )
    assert_same_pages(client_for, SLUG, "from-laptop")


def test_imported_back_under_a_new_slug_it_shows_the_same_event(tmp_path, client_for):
    original_event = rehearsed()
    original = export_to(tmp_path, SLUG, "event.json")
    call_command(
        "import_tournament",
        str(tmp_path / "event.json"),
        "--slug",
        "moved",
        stdout=StringIO(),
    )
    moved = Tournament.objects.get(slug="moved")
    copy = export_to(tmp_path, "moved", "moved.json")
    assert copy["models"][graph.TOURNAMENT][0]["slug"] == "moved"
    copy["models"][graph.TOURNAMENT][0]["slug"] = SLUG
    assert_same_event(normalised(original), normalised(copy))
    assert not set(moved.players.values_list("pk", flat=True)) & set(
        original_event.players.values_list("pk", flat=True)
    )

    assert_ids_point_inside(moved)
    # Seeds and inputs translated together: every draw still replays to its pods.
    for stage in moved.stages.all():
        assert replay_matches(stage), stage
    # Existing accounts were used, not copied; the password set before the export still works.
    assert get_user_model().objects.filter(username="organiser").count() == 1
    assert signs_in(f"{SLUG}-staff1", "kept-across-machines")
    assert_same_pages(client_for, SLUG, "moved")


def test_a_small_event_with_a_late_arrival_and_an_own_preset_round_trips(
    tmp_path, tournament, organiser, staff_user
):
    preset = copy_preset(tournament.preset, "Our rules", organiser)
    Tournament.objects.filter(pk=tournament.pk).update(preset=preset)
    stage = drawn_stage(tournament, organiser, players=10, staff=staff_user, start=False)
    late = Player.objects.create(tournament=tournament, name="Late Lucy", email="lucy@example.org")
    seat_late_arrival(stage, late, actor=organiser)
    original = export_to(tmp_path, tournament.slug, "small.json")
    assert [p["slug"] for p in original["presets"]] == ["classic", "our-rules"]

    data = transfer.read_export(tmp_path / "small.json")
    report = transfer.import_tournament(data, slug="small-copy")
    assert report.presets_created == []  # the identical preset here is reused
    copy = export_to(tmp_path, "small-copy", "copy.json")
    copy["models"][graph.TOURNAMENT][0]["slug"] = tournament.slug
    assert_same_event(normalised(original), normalised(copy))
    assert len(copy["models"]["tournaments.rosterchange"]) == 1
    assert replay_matches(report.tournament.stages.get())

    # A preset of the same slug but other rules is not this one: a copy travels.
    data["presets"][1]["bunco_points"] = 30
    report = transfer.import_tournament(data, slug="small-other-rules")
    assert report.presets_created == ["our-rules-2"]
    assert report.tournament.preset.bunco_points == 30
    assert report.tournament.preset.based_on.slug == "classic"


def test_missing_accounts_are_created_with_their_password_and_existing_ones_kept(
    tmp_path, tournament, organiser, staff_user
):
    drawn_stage(tournament, organiser, players=8, staff=staff_user)
    data = export_to(tmp_path, tournament.slug, "event.json")
    staff = next(a for a in data["accounts"] if a["username"] == "staffer")
    staff["username"] = "staffer-at-home"  # an account this database does not have
    organiser_row = next(a for a in data["accounts"] if a["username"] == organiser.username)
    organiser_row["password"] = make_password("other")  # must be ignored
    before = organiser.password

    report = transfer.import_tournament(data, slug="with-new-account")
    assert report.accounts_created == ["staffer-at-home"]
    assert organiser.username in report.accounts_matched
    created = get_user_model().objects.get(username="staffer-at-home")
    assert created.password == get_user_model().objects.get(username="staffer").password
    assert signs_in("staffer-at-home", "dice-and-bells-2026")
    assert not created.is_superuser and not created.is_staff
    assert created.pods.count() == 1  # the pod of the imported stage it was assigned to
    organiser.refresh_from_db()
    assert organiser.password == before


# --- refusals -----------------------------------------------------------------------------------


@pytest.fixture
def small_export(tmp_path, tournament, organiser, staff_user):
    drawn_stage(tournament, organiser, players=8, staff=staff_user)
    export_to(tmp_path, tournament.slug, "event.json")
    return tmp_path / "event.json"


def test_an_import_under_a_taken_slug_is_refused_and_changes_nothing(small_export, tournament):
    counts = database_counts()
    with pytest.raises(CommandError, match=f"'{tournament.slug}' exists already.*--slug"):
        call_command("import_tournament", str(small_export))
    assert database_counts() == counts


def test_a_truncated_file_is_refused_and_changes_nothing(small_export):
    text = small_export.read_text()
    small_export.write_text(text[: len(text) // 2])
    counts = database_counts()
    with pytest.raises(CommandError, match="Nothing was imported.*cut short: invalid JSON at line"):
        call_command("import_tournament", str(small_export), "--slug", "elsewhere")
    assert database_counts() == counts


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: d.update(format="something-else"), "not a tournament export"),
        (lambda d: d.update(version=99), "format version 99; this site reads version 5"),
        # Before the final's order roll became roll-off rows (migration 0016).
        (lambda d: d.update(version=2), "format version 2; this site reads version 5"),
        # Before an award's note became data (migration 0025).
        (lambda d: d.update(version=3), "format version 3; this site reads version 5"),
        # Before the change counter travelled with the event.
        (lambda d: d.update(version=4), "format version 4; this site reads version 5"),
        (lambda d: d["models"].pop("tournaments.seat"), r"missing: tournaments\.seat"),
        (
            lambda d: d["models"]["tournaments.seat"][0].update(colour="red"),
            "unknown fields colour",
        ),
        (
            lambda d: d["models"]["tournaments.seat"][-1].update(player=10**9),
            f"seat .*, player: player {10**9} is not in the file",
        ),
        (
            lambda d: d["models"]["tournaments.round"][0].update(opened_at="yesterday"),
            "opened_at: .*invalid format",
        ),
    ],
)
def test_a_damaged_file_is_refused_and_changes_nothing(small_export, damage, message):
    """The accounts would be created, were the file not checked before anything is written."""
    data = json.loads(small_export.read_text())
    for account in data["accounts"]:
        account["username"] += "-elsewhere"  # would be created, were the import to stick
    damage(data)
    small_export.write_text(json.dumps(data))
    counts = database_counts()
    with pytest.raises(CommandError, match=message):
        call_command("import_tournament", str(small_export), "--slug", "elsewhere")
    assert database_counts() == counts
