"""The stage simulator: pure function, text and JSON output, and the manage.py command."""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from scoring.rules import PRESETS, RuleError
from tournaments.rules.simulate import render_text, simulate_stage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stages():
    return {name: simulate_stage(60, rules, 2, seed=11) for name, rules in PRESETS.items()}


def test_same_seed_same_output_different_seed_different():
    rules = PRESETS["classic"]
    a, b = simulate_stage(48, rules, 1, 7), simulate_stage(48, rules, 1, 7)
    assert render_text(a) == render_text(b)
    assert a.to_json() == b.to_json()
    assert a.to_json() != simulate_stage(48, rules, 1, 8).to_json()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_score_cards_add_up(stages, name):
    sim = stages[name]
    rules = PRESETS[name]
    rounds = sim.sets * len(rules.targets)
    assert len(sim.pods) == 5
    for pod in sim.pods:
        assert len(pod.rounds) == rounds
        for card in pod.standings:
            assert card.wins + card.losses == rounds
        # Two seats win at every table of every round; ghosts' wins are not on any card.
        seat_wins = sum(
            sum(p is not None and seat % 2 == w for seat, p in enumerate(table))
            for record in pod.rounds
            for table, w in zip(record.seating, record.result.winners, strict=True)
        )
        assert seat_wins == sum(c.wins for c in pod.standings)
        buncos = sum(sum(t.buncos) for r in pod.rounds for t in r.result.tables)
        assert buncos == sum(c.buncos for c in pod.standings)


def test_snake_eyes_only_where_the_preset_has_them(stages):
    def snakes(sim):
        return sum(c.snake_eyes for pod in sim.pods for c in pod.standings)

    assert snakes(stages["mingle"]) > 0
    for name in ("classic", "mesquite", "rolling-for-pink"):
        assert snakes(stages[name]) == 0


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_advancers_are_the_pod_leaders(stages, name):
    for pod in stages[name].pods:
        wins_adv, bunco_adv = pod.advancers
        assert wins_adv.reason == "most wins" and bunco_adv.reason == "most buncos"
        assert wins_adv.player != bunco_adv.player
        cards = {c.player: c for c in pod.standings}
        top_wins = max(c.wins for c in pod.standings)
        assert cards[wins_adv.player].wins == top_wins == wins_adv.value
        tied = [c.player for c in pod.standings if c.wins == top_wins]
        assert (wins_adv.roll_off is not None) == (len(tied) > 1)
        if wins_adv.roll_off:
            assert sorted(wins_adv.roll_off.players) == sorted(tied)
        rest = [c for c in pod.standings if c.player != wins_adv.player]
        assert cards[bunco_adv.player].buncos == max(c.buncos for c in rest)


def test_ghosts_and_json_shape():
    sim = simulate_stage(30, PRESETS["mesquite"], 1, 3)
    data = json.loads(sim.to_json())
    assert data["seed"] == 3 and data["preset"] == "mesquite" and data["players"] == 30
    # 30 players fill 8 tables: pods of 12, 11 and 7, one ghost in each of the last two.
    assert [p["ghosts"] for p in data["pods"]] == [0, 1, 1]
    names = {s["name"] for p in data["pods"] for s in p["standings"]}
    assert names == {f"Player {i}" for i in range(1, 31)}
    assert len(data["semi_finalists"]) == 6
    for pod in data["pods"]:
        assert [a["reason"] for a in pod["advancers"]] == ["most wins", "most buncos"]
        assert [r["reason"] for r in pod["roll_offs"]] == [
            a["reason"] for a in pod["advancers"] if a["won_roll_off"]
        ]
        for roll in pod["roll_offs"]:
            assert roll["winner"] in roll["players"]
            assert all(1 <= t["die"] <= 6 for r in roll["rounds"] for t in r)


def test_bad_stage_input():
    with pytest.raises(RuleError):
        simulate_stage(1, PRESETS["classic"], 1, 0)
    with pytest.raises(RuleError):
        simulate_stage(12, PRESETS["classic"], 0, 0)


def test_the_management_command_prints_the_pure_result():
    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command("simulate", "--players", "24", "--preset", "mingle", "--seed", "5", stdout=out)
    expected = render_text(simulate_stage(24, PRESETS["mingle"], 3, 5))
    assert out.getvalue() == expected
    out = StringIO()
    call_command("simulate", players=24, seed=5, sets=1, json=True, stdout=out)
    assert json.loads(out.getvalue()) == simulate_stage(24, PRESETS["classic"], 1, 5).to_dict()
    with pytest.raises(CommandError, match="at least two players"):
        call_command("simulate", "--players", "1", stdout=StringIO())


def test_manage_py_output_is_byte_identical_across_processes():
    args = [sys.executable, "manage.py", "simulate", "--players", "40", "--seed", "9", "--json"]
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, check=True)
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["players"] == 40
