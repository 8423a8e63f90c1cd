"""`import_tournament` checks the whole file before it writes anything.

Each damage a file can carry (rules the engine refuses, amounts that are not money, a printout
naming another event's PDF, nesting that overflows the parser, a file too large, wrong types,
references to rows that are not there, choices that do not exist) is refused with one message
that names the row, the field and the problem, the command exits with that message and no
traceback, and every table of the database keeps its rows.
"""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from tests.support.data import database_counts, export_to
from tests.support.factories import TournamentFactory, drawn_stage
from tournaments.models import Printout, Tournament
from tournaments.models.printouts import FILE_NAME, new_file_name
from tournaments.services import transfer, transfer_checks
from tournaments.services import transfer_graph as graph
from tournaments.services.presets import copy_preset
from tournaments.services.prizes import load_template

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
STAGE = "tournaments.stage"
CATEGORY = "tournaments.prizecategory"
PRINTOUT = "tournaments.printout"


@pytest.fixture
def event(tmp_path, tournament, organiser, staff_user):
    """A small event with an own preset, a prize list, a printout and a round under way,
    exported; its accounts are renamed so an import would create them."""
    preset = copy_preset(tournament.preset, "Our rules", organiser)
    Tournament.objects.filter(pk=tournament.pk).update(preset=preset)
    drawn_stage(tournament, organiser, players=8, staff=staff_user)
    load_template(tournament, "classic", actor=organiser)
    Printout.objects.create(tournament=tournament, kind="results")
    data = export_to(tmp_path, tournament.slug, "event.json")
    for account in data["accounts"]:
        account["username"] += "-elsewhere"
    return data


def row(data, label, n=0):
    return data["models"][label][n]


def refused(tmp_path, content, message):
    """Imports `content` (the export's structure, or text as it is) and expects it refused
    with `message` (a regular expression), changing nothing."""
    path = tmp_path / "damaged.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    counts = database_counts()
    with pytest.raises(CommandError, match=message) as refusal:
        call_command("import_tournament", str(path), "--slug", "elsewhere", stdout=StringIO())
    assert str(refusal.value).startswith("Nothing was imported. ")
    assert "\n" not in str(refusal.value)
    assert database_counts() == counts
    return str(refusal.value)


def test_the_undamaged_file_imports(tmp_path, event):
    path = tmp_path / "fine.json"
    path.write_text(json.dumps(event))
    call_command("import_tournament", str(path), "--slug", "elsewhere", stdout=StringIO())
    copy = Tournament.objects.get(slug="elsewhere")
    assert copy.prize_categories.get(key="buncos").amounts_cents == [2000]
    assert copy.preset.label == "Our rules" and copy.stages.get().ruleset()


# --- rules --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, message",
    [
        ({"targets": [7]}, "Target numbers must be whole numbers 1 to 6, not 7"),
        ({"targets": [1, 1]}, "Each target number may appear only once"),
        ({"movement": "sideways"}, "Unknown movement 'sideways'"),
        ({"bell_points": "21"}, "bell points must be a whole number"),
        ({"colour": "red"}, "Unknown rule fields: colour"),
    ],
)
def test_stage_rules_the_engine_refuses(tmp_path, event, rules, message):
    row(event, STAGE)["rules"].update(rules)
    stage = row(event, STAGE)["id"]
    refused(tmp_path, event, rf"stage {stage}, rules: {message}")


def test_stage_rules_that_are_not_rules(tmp_path, event):
    row(event, STAGE)["rules"] = ["classic"]
    refused(tmp_path, event, r"stage \d+, rules: Rules must be given as a mapping")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"targets": "1,1,2"}, r": Each target number may appear only once in a set\."),
        ({"targets": "1,x"}, r", targets: Targets must be numbers 1 to 6\."),
        ({"movement": "sideways"}, r", movement: Value 'sideways' is not a valid choice\."),
        ({"bell_points": 0}, r": The bell needs at least 1 point to ring\."),
        ({"label": "x" * 101}, r", label: Ensure this value has at most 100 characters"),
    ],
)
def test_preset_rules_the_preset_form_refuses(tmp_path, event, change, message):
    own = event["presets"][1]
    own.update(change)
    refused(tmp_path, event, rf"rule preset {own['id']} \(.*\){message}")


def test_a_built_in_preset_this_site_lacks(tmp_path, event):
    event["presets"][0]["slug"] = "poker"
    refused(tmp_path, event, "This site has no built-in preset 'poker'")


# --- money --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "amounts, message",
    [
        (["abc"], "amount 'abc' is not an amount of money"),
        ([5000, -500], "amount -500 is not an amount of money"),
        ([12.5], "amount 12.5 is not an amount of money"),
        ([True], "amount True is not an amount of money"),
        ([10**12], f"amount {10**12} is not an amount of money"),
        ("5000", "the amounts are a list of whole cents, one per place, not str"),
        ([], "give one amount in cents per place, 1 to 20 places"),
    ],
)
def test_prize_amounts_that_are_not_money(tmp_path, event, amounts, message):
    category = row(event, CATEGORY)
    assert category["label"] == "Most Buncos"
    category["amounts_cents"] = amounts
    refused(tmp_path, event, rf"prize category {category['id']} \(Most Buncos\): .*{message}")


@pytest.mark.parametrize(
    "fee, message",
    [
        ("abc", "'abc' is not an amount of money"),
        ("NaN", "'NaN' is not an amount of money"),
        ("-Infinity", "'-Infinity' is not an amount of money"),
        ("-5", "greater than or equal to 0"),
        ("12.345", "no more than 2 decimal places"),
        (12.345, "no more than 2 decimal places"),
        ("123456789", "no more than 8 digits"),
        (True, "True is not an amount"),
    ],
)
def test_an_entry_fee_that_is_not_money(tmp_path, event, fee, message):
    row(event, graph.TOURNAMENT)["entry_fee"] = fee
    refused(tmp_path, event, rf"tournament \d+ \(.*\), entry_fee: .*{message}")


def test_nan_and_infinity_are_not_json_numbers(tmp_path, event):
    row(event, CATEGORY)["amounts_cents"] = ["__NAN__", 10]
    text = json.dumps(event).replace('"__NAN__"', "NaN")
    refused(tmp_path, text, "holds NaN, which is not a number")
    text = json.dumps(event).replace('"__NAN__"', "-Infinity")
    refused(tmp_path, text, "holds -Infinity, which is not a number")


def test_an_award_of_negative_cents(tmp_path, event):
    event["models"]["tournaments.prizeaward"] = [
        {
            "id": 1,
            "tournament": row(event, graph.TOURNAMENT)["id"],
            "category": row(event, CATEGORY)["id"],
            "scope_group": "overall",
            "place": 1,
            "player": row(event, graph.PLAYER)["id"],
            "amount_cents": -100,
            "value": 3,
            "via_roll_off": False,
            "why": {},
            "awarded_by": None,
            "awarded_at": "2026-05-02T21:00:00+00:00",
            "version": 1,
            "superseded_at": None,
        }
    ]
    refused(tmp_path, event, r"prize award 1, amount_cents: -100 is outside 0 to 2147483647")


# --- printouts ----------------------------------------------------------------------------------


def test_a_printout_may_not_name_another_events_pdf(tmp_path, event, settings):
    theirs = Printout.objects.create(
        tournament=TournamentFactory(), kind="results", file=new_file_name()
    )
    printout = row(event, PRINTOUT)
    printout["file"] = theirs.file.name
    refused(tmp_path, event, rf"printout {printout['id']}, file: .* is another printout's file")

    # Nor a file this site has that no printout names any more.
    orphan = new_file_name()
    (Path(settings.MEDIA_ROOT) / orphan).parent.mkdir(parents=True, exist_ok=True)
    (Path(settings.MEDIA_ROOT) / orphan).write_bytes(b"%PDF-")
    printout["file"] = orphan
    refused(tmp_path, event, "is another printout's file")


@pytest.mark.parametrize(
    "name",
    [
        "printouts/../secret_key",
        "printouts/../../etc/passwd",
        "/etc/passwd",
        "/printouts/" + "A" * 32 + ".pdf",
        "C:\\printouts\\x.pdf",
        "media/" + "A" * 32 + ".pdf",
        "printouts/report.pdf",
        "printouts/" + "A" * 32 + ".exe",
        "printouts/x/" + "A" * 32 + ".pdf",
    ],
)
def test_a_printout_file_outside_the_printouts_folder(tmp_path, event, name):
    printout = row(event, PRINTOUT)
    printout["file"] = name
    message = refused(tmp_path, event, rf"printout {printout['id']}, file: ")
    assert "printouts folder" in message


def test_a_printout_name_the_site_could_make_is_accepted_without_its_pdf(tmp_path, event):
    row(event, PRINTOUT)["file"] = new_file_name()
    path = tmp_path / "named.json"
    path.write_text(json.dumps(event))
    call_command("import_tournament", str(path), "--slug", "elsewhere", stdout=StringIO())
    assert Printout.objects.get(tournament__slug="elsewhere").file.name == ""


def test_the_file_name_pattern_is_the_one_the_model_makes():
    assert all(FILE_NAME.fullmatch(new_file_name()) for _ in range(50))


# --- the file itself ----------------------------------------------------------------------------


def test_json_nested_100000_levels_deep(tmp_path, event):
    row(event, graph.AUDIT)["data"] = "__DEEP__"
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps(event, indent=1).replace('"__DEEP__"', deep)
    line = text[: text.index("[" * 30)].count("\n") + 1
    refused(tmp_path, text, rf"at line {line} it is nested more than 20 levels deep")


def test_json_nested_one_level_too_deep_with_brackets_in_strings_not_counted(tmp_path, event):
    row(event, graph.PLAYER)["name"] = '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ \\" {{{{{{{{{{{{{{{{'
    level = {"a": 1}
    for _ in range(transfer_checks.MAX_DEPTH - 5):  # the data is at depth 5: 20 in all
        level = {"a": level}
    row(event, graph.AUDIT)["data"] = level
    path = tmp_path / "deepest.json"
    path.write_text(json.dumps(event))
    assert transfer.read_export(path)["models"][graph.AUDIT][0]["data"] == level
    row(event, graph.AUDIT)["data"] = {"a": level}
    refused(tmp_path, event, "nested more than 20 levels deep")


def test_deep_nesting_ends_the_command_without_a_traceback(tmp_path):
    """As typed at a shell: exit status 1 and the message; the file is refused before the
    database is opened, so an empty one does."""
    path = tmp_path / "deep.json"
    path.write_text(
        '{"format": "bunco-tournament", "models": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite3'}", BUNCO_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "manage.py", "import_tournament", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert "Nothing was imported." in done.stderr and "nested more than 20 levels" in done.stderr


def test_a_file_larger_than_any_export(tmp_path, event):
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:  # sparse: no time or disk spent on the bytes
        handle.truncate(transfer_checks.MAX_BYTES + 1)
    counts = database_counts()
    with pytest.raises(CommandError, match="larger than 128 MB"):
        call_command("import_tournament", str(path), stdout=StringIO())
    assert database_counts() == counts


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello", "not a tournament export, or is cut short: invalid JSON at line 1"),
        ("[1, 2]", "not a tournament export"),
        ('"bunco-tournament"', "not a tournament export"),
        ('{"format": "bunco-tournament", "version": "1"}', "format version '1'"),
        ('{"format": "bunco-tournament", "version": 5, "models": []}', 'no "models"'),
        ('{"format": "bunco-tournament", "id": ' + "9" * 5000 + "}", "more than 4,300 digits"),
    ],
)
def test_a_file_that_is_not_an_export(tmp_path, text, message):
    refused(tmp_path, text, message)


def test_a_file_that_is_not_text(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00{")
    with pytest.raises(CommandError, match="not UTF-8 text"):
        call_command("import_tournament", str(path), stdout=StringIO())


def test_rows_that_are_not_rows(tmp_path, event):
    event["models"][STAGE] = {"1": row(event, STAGE)}
    refused(tmp_path, event, r"tournaments\.stage is not a list of rows")


# --- types, references, choices, constraints ----------------------------------------------------


@pytest.mark.parametrize(
    "label, field, value, message",
    [
        ("tournaments.pod", "number", "1", "'1' is not a whole number"),
        ("tournaments.pod", "number", 1.5, "1.5 is not a whole number"),
        ("tournaments.pod", "number", True, "True is not a whole number"),
        ("tournaments.pod", "number", 40_000, "40000 is outside 0 to 32767"),
        ("tournaments.pod", "hostess_drawn", 1, "1 is not true or false"),
        ("tournaments.pod", "hostess_drawn", "yes", "'yes' is not true or false"),
        ("tournaments.pod", "tables", None, "is empty, but needs a value"),
        (STAGE, "seed", 2**64, f"{2**64} is outside -{2**63} to {2**63 - 1}"),
        (STAGE, "drawn_at", "2026-05-02T20:00:00", "has no time zone offset"),
        (STAGE, "drawn_at", "yesterday", "invalid format"),
        (graph.PLAYER, "name", 12, "12 is not text"),
        (graph.PLAYER, "name", "x" * 500, "at most 100 characters"),
        (graph.PLAYER, "email", "not an address", "valid email address"),
        (STAGE, "rules", None, "is empty, but needs a value"),
    ],
)
def test_a_value_of_the_wrong_type_or_size(tmp_path, event, label, field, value, message):
    label_row = row(event, label)
    label_row[field] = value
    noun = label.split(".")[1]
    refused(tmp_path, event, rf"{noun} {label_row['id']}( \(.*\))?, {field}: .*{message}")


@pytest.mark.parametrize(
    "label, field, value, message",
    [
        (STAGE, "status", "paused", "Value 'paused' is not a valid choice"),
        (STAGE, "kind", "", "'' is not one of the choices"),
        ("tournaments.round", "status", "OPEN", "Value 'OPEN' is not a valid choice"),
        (CATEGORY, "measure", "most_hugs", "Value 'most_hugs' is not a valid choice"),
        (PRINTOUT, "pagesize", "A3", "Value 'A3' is not a valid choice"),
    ],
)
def test_a_choice_that_does_not_exist(tmp_path, event, label, field, value, message):
    row(event, label)[field] = value
    refused(tmp_path, event, rf", {field}: {message}")


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda d: row(d, "tournaments.pod").update(stage=999_999),
            r"pod \d+, stage: stage 999999 is not in the file",
        ),
        (
            lambda d: row(d, graph.TOURNAMENT).update(preset=999_999),
            r"tournament \d+ \(.*\), preset: rule preset 999999 is not in the file",
        ),
        (
            lambda d: row(d, "tournaments.round").update(opened_by=999_999),
            r"round \d+, opened_by: account 999999 is not in the file",
        ),
        (
            lambda d: row(d, STAGE)["draw_input"]["players"].append(10**9),
            rf"stage \d+, draw_input: player {10**9} is not in the file",
        ),
        (
            lambda d: row(d, "tournaments.pod").update(stage="1"),
            r"pod \d+, stage: '1' is not an id",
        ),
        (
            lambda d: row(d, STAGE).update(draw_input="everyone"),
            r"stage \d+, draw_input: not in the shape this site writes",
        ),
        (
            lambda d: row(d, graph.AUDIT).update(target_id="../1"),
            r"audit entry \d+, target_id: '../1' is not an id",
        ),
    ],
)
def test_a_reference_to_a_row_that_is_not_in_the_file(tmp_path, event, damage, message):
    damage(event)
    refused(tmp_path, event, message)


def test_two_rows_that_a_constraint_keeps_apart(tmp_path, event):
    seats = event["models"]["tournaments.seat"]
    first, second = seats[0], seats[1]
    second.update(table=first["table"], seat=first["seat"], pod=first["pod"])
    refused(
        tmp_path,
        event,
        rf"seat {second['id']}: its round, pod, table, seat are those of seat {first['id']} too",
    )


def test_a_row_that_breaks_a_check_constraint(tmp_path, event):
    seat = event["models"]["tournaments.seat"][0]
    seat["ghost"] = 1  # a player's seat is not a ghost's too
    refused(
        tmp_path, event, rf"seat {seat['id']}: Constraint .seat_is_player_or_ghost. is violated"
    )


def test_a_row_with_a_field_too_many_or_too_few(tmp_path, event):
    row(event, "tournaments.round")["colour"] = "red"
    del row(event, "tournaments.round")["closed_at"]
    refused(tmp_path, event, r"round \d+: unknown fields colour; missing fields closed_at")


def test_an_account_that_could_not_sign_in(tmp_path, event):
    account = event["accounts"][0]
    account["username"] = "no spaces allowed!"
    message = refused(
        tmp_path, event, rf"account {account['id']} \(no spaces allowed!\), username:"
    )
    assert "Enter a valid username" in message
    account["username"] = " "
    refused(tmp_path, event, rf"account {account['id']}, username: .* is empty")
    account["username"] = "fine"
    account["must_change_password"] = "no"
    refused(tmp_path, event, "must_change_password: 'no' is not true or false")
    assert not get_user_model().objects.filter(username="fine").exists()
