"""`rehearse` plays a whole qualifying stage through the services the pages call."""

import json
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from scoring.models import RollCredit, TableResult
from scoring.rules import PRESETS
from tournaments.models import Seat, Stage
from tournaments.rules.simulate import simulate_stage

pytestmark = pytest.mark.django_db


def rehearse_json(*args):
    out = StringIO()
    call_command("rehearse", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_rehearse_120_players_reports_every_round_and_table():
    summary = rehearse_json("--players", "120", "--preset", "classic", "--seed", "7")
    assert summary["tournament"] == "rehearsal-classic-7"
    assert summary["players"] == 120
    assert summary["pods"] == 10
    assert summary["ghosts"] == 0
    qualifying = summary["stages"]["qualifying"]
    assert qualifying["rounds"] == 3 * 6
    assert qualifying["table_results"] == 3 * 6 * 10 * 3
    stage = Stage.objects.get(tournament__slug="rehearsal-classic-7", kind="qualifying")
    assert TableResult.objects.filter(pod__stage=stage, is_current=True).count() == 540
    # Corrections were made like staff make them: the old versions are still there.
    assert qualifying["corrections"] > 0
    assert (
        TableResult.objects.filter(pod__stage=stage, is_current=False).count()
        == (qualifying["corrections"])
    )
    # Every paper card entered and checked by two people; the miscounted ones resolved.
    assert qualifying["cards_verified"] == 120
    assert qualifying["discrepancies_resolved"] == 120 // 13
    # Then the semi-final, the final table and the prize table.
    assert len(summary["semifinalists"]) == 20
    assert {s["reason"] for s in summary["semifinalists"]} == {"Most wins", "Most buncos"}
    assert [f["seat"] for f in summary["finalists"]] == [1, 2, 3, 4]
    assert [f["reason"] for f in summary["finalists"]] == [
        "Most wins in the semi-final",
        "Most buncos in the semi-final",
        "Drawn from the other semi-finalists",
        "Wild card drawn from all participants",
    ]
    assert summary["grand_prize_winner"] in {f["player"] for f in summary["finalists"]}
    assert summary["stages"]["semi_final"]["cards_verified"] == 20
    assert summary["prizes"]["awarded"] > 0
    assert summary["prizes"]["total_paid"] == summary["prizes"]["total_awarded"]


def test_rehearsal_matches_the_simulator_for_the_same_seed():
    """Same seed, same dice: the site's records give the simulator's standings."""
    rehearse_json("--players", "30", "--preset", "mingle", "--seed", "11")
    stage = Stage.objects.get(tournament__slug="rehearsal-mingle-11", kind="qualifying")
    sim = simulate_stage(30, PRESETS["mingle"], 3, 11)

    # Player k of the simulator is the k-th registered player.
    # (Those who play: the rehearsal also has a cancelled and a waitlisted registration.)
    pks = sorted(stage.tournament.players.filter(status="registered").values_list("pk", flat=True))
    wins: Counter = Counter()
    seats = {
        (s.round_id, s.pod_id, s.table, s.seat): s.player_id
        for s in Seat.objects.filter(round__stage=stage)
    }
    for r in TableResult.objects.filter(pod__stage=stage, is_current=True):
        for seat in (1, 3) if r.winner == 0 else (2, 4):
            if player := seats[(r.round_id, r.pod_id, r.table, seat)]:
                wins[player] += 1
    buncos: Counter = Counter()
    for credit in RollCredit.objects.filter(result__pod__stage=stage, result__is_current=True):
        buncos[credit.player_id] += credit.buncos

    expected_wins = {pks[s.player - 1]: s.wins for pod in sim.pods for s in pod.standings}
    expected_buncos = {pks[s.player - 1]: s.buncos for pod in sim.pods for s in pod.standings}
    assert {p: wins[p] for p in pks} == expected_wins
    assert {p: buncos[p] for p in pks} == expected_buncos


def test_rehearse_can_stop_mid_stage():
    summary = rehearse_json("--players", "24", "--seed", "3", "--stop-after-round", "4")
    assert summary["stages"]["qualifying"]["rounds"] == 4
    stage = Stage.objects.get(tournament__slug=summary["tournament"], kind="qualifying")
    statuses = list(stage.rounds.order_by("number").values_list("status", flat=True))
    assert statuses[:4] == ["closed"] * 4 and statuses[4:] == ["pending"] * 14
    # Round 5 is seated and ready for the bell.
    assert Seat.objects.filter(round__stage=stage, round__number=5).count() == 24


def test_rehearse_registers_a_party_and_uses_the_waitlist():
    summary = rehearse_json("--players", "24", "--seed", "3", "--stop-after-round", "1")
    assert summary["registration"] == {
        "parties": 1,
        "promoted_from_waitlist": 1,
        "waiting": 1,
        "cancelled": 1,
    }
    tournament = Stage.objects.get(tournament__slug=summary["tournament"]).tournament
    assert tournament.players.filter(status="registered", checked_in_at__isnull=False).count() == 24
    promoted = tournament.players.get(promoted_at__isnull=False)
    assert Seat.objects.filter(round__stage__tournament=tournament, player=promoted).exists()
