"""A whole qualifying stage played by the engine alone, from one seed.

Organisers use it to see what an evening looks like under a preset (how many roll-offs, how
many buncos a pod leader has); we use it to exercise draw, play, tie-breaks, movement and
advancement together. Same seed, same output, byte for byte.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from scoring.rules.cards import Card, SeatResult, derive, standing_order
from scoring.rules.errors import EngineBug, RuleError
from scoring.rules.pod import PodRound, play_pod_round
from scoring.rules.ruleset import RuleSet
from scoring.rules.seating import Table, draw_pods, next_seating
from scoring.rules.table import pair_of
from scoring.rules.tiebreak import RollOff

from .advancement import AdvancementRules, Standing, advance_group


def player_name(player: int) -> str:
    return f"Player {player}"


@dataclass
class PlayerStanding:
    """One score card at the end of the stage."""

    player: int
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    minis: int = 0
    snake_eyes: int = 0

    @classmethod
    def of(cls, player: int, card: Card) -> PlayerStanding:
        return cls(player, card.wins, card.losses, card.buncos, card.minis, card.snake_eyes)

    @property
    def name(self) -> str:
        return player_name(self.player)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "wins": self.wins,
            "losses": self.losses,
            "buncos": self.buncos,
            "minis": self.minis,
            "snake_eyes": self.snake_eyes,
        }


@dataclass(frozen=True)
class Advancer:
    """A player going to the semi-final and why; `roll_off` is set when dice decided it."""

    player: int
    reason: str  # "most wins" or "most buncos"
    value: int
    roll_off: RollOff | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": player_name(self.player),
            "reason": self.reason,
            "value": self.value,
            "won_roll_off": self.roll_off is not None,
        }


@dataclass(frozen=True)
class RoundRecord:
    """A pod's round as played: seats before the round and the engine's result."""

    set_no: int
    seating: list[Table]
    result: PodRound


@dataclass(frozen=True)
class PodSimulation:
    number: int
    standings: list[PlayerStanding]
    advancers: list[Advancer]
    rounds: list[RoundRecord]

    def to_dict(self) -> dict[str, Any]:
        first = self.rounds[0].seating if self.rounds else []
        return {
            "pod": self.number,
            "players": len(self.standings),
            "tables": len(first),
            "ghosts": sum(seat is None for table in first for seat in table),
            "tie_breaks": sum(
                tb is not None for record in self.rounds for tb in record.result.tie_breaks
            ),
            "standings": [s.to_dict() for s in self.standings],
            "advancers": [a.to_dict() for a in self.advancers],
            "roll_offs": [
                {"reason": a.reason, **_roll_off_dict(a.roll_off)}
                for a in self.advancers
                if a.roll_off is not None
            ],
        }


@dataclass(frozen=True)
class StageSimulation:
    seed: int
    preset: str
    players: int
    sets: int
    pods: list[PodSimulation]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "preset": self.preset,
            "players": self.players,
            "sets": self.sets,
            "pods": [pod.to_dict() for pod in self.pods],
            "semi_finalists": [a.player for pod in self.pods for a in pod.advancers],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _roll_off_dict(result: RollOff) -> dict[str, Any]:
    return {
        "players": list(result.players),
        "rounds": [
            [{"player": player, "die": die} for player, die in faces.items()]
            for faces in result.rounds
        ],
        "winner": result.winner,
    }


def simulate_stage(n_players: int, rules: RuleSet, sets: int, seed: int) -> StageSimulation:
    """Play a qualifying stage: draw, every round of every set, movement, standings, cut.

    One `random.Random(seed)` draws the pods and then a seed per pod, so each pod's evening
    depends only on its own seed (as if pods played in separate rooms) and a replay of one
    pod needs only that pod's seed. Players keep their pod for the whole stage, and movement
    carries on from set to set (nobody is reseated between sets).
    """
    if isinstance(n_players, bool) or not isinstance(n_players, int) or n_players < 2:
        # One person cannot play Bunco: their table would have a team of two ghosts.
        raise RuleError("A stage needs at least two players.")
    if isinstance(sets, bool) or not isinstance(sets, int) or sets < 1:
        raise RuleError("A stage has at least one set.")
    master = random.Random(seed)
    players = list(range(1, n_players + 1))
    pods = draw_pods(players, master)
    pod_seeds = [master.getrandbits(64) for _ in pods]
    return StageSimulation(
        seed=seed,
        preset=rules.name,
        players=n_players,
        sets=sets,
        pods=[
            _play_pod(number, seating, rules, sets, random.Random(pod_seed))
            for number, (seating, pod_seed) in enumerate(zip(pods, pod_seeds, strict=True), 1)
        ],
    )


def _play_pod(
    number: int, seating: list[Table], rules: RuleSet, sets: int, rng: random.Random
) -> PodSimulation:
    played: dict[int, list[SeatResult]] = {
        p: [] for table in seating for p in table if p is not None
    }
    rounds: list[RoundRecord] = []
    for set_no in range(1, sets + 1):
        for target in rules.targets:
            ghosts = [tuple(seat is None for seat in table) for table in seating]
            result = play_pod_round(target, rules, rng, len(seating), ghosts)
            rounds.append(RoundRecord(set_no, seating, result))
            _seat_results(played, len(rounds), seating, result)
            seating = next_seating(seating, result.winners, rules.movement)
    cards = {player: derive(len(rounds), results) for player, results in played.items()}
    order = sorted(cards, key=lambda player: (standing_order(cards[player]), player))
    standings = [PlayerStanding.of(player, cards[player]) for player in order]
    return PodSimulation(number, standings, _advancers(number, standings, rng), rounds)


def _seat_results(
    played: dict[int, list[SeatResult]], round_number: int, seating: list[Table], result: PodRound
) -> None:
    """Each player's part in the round, as staff would enter it (cards come from `derive`)."""
    for table, outcome, winner in zip(seating, result.tables, result.winners, strict=True):
        for seat, player in enumerate(table):
            if player is None:
                continue  # the partner already holds the ghost's credits (TableRound)
            played[player].append(
                SeatResult(
                    round_number,
                    player,
                    pair_of(seat) == winner,
                    outcome.buncos[seat],
                    outcome.minis[seat],
                    outcome.snake_eyes[seat],
                )
            )
        if any(
            outcome.buncos[s] or outcome.minis[s] or outcome.snake_eyes[s]
            for s, player in enumerate(table)
            if player is None
        ):
            raise EngineBug("A ghost was credited with a roll; its partner should have been.")


def _advancers(pod: int, standings: list[PlayerStanding], rng: random.Random) -> list[Advancer]:
    """The sheet's cut (most wins, then most buncos among the rest) by the advancement engine."""
    cards = [Standing(s.player, s.wins, s.losses, s.buncos, s.minis) for s in standings]
    result = advance_group(pod, cards, AdvancementRules(), rng)
    roll_offs = {r.tie.category_key: r.roll_off for r in result.roll_offs}
    return [
        Advancer(
            q.player,  # type: ignore[arg-type]
            q.category_label.lower(),  # "most wins", as the simulator has always said
            q.value,
            roll_offs[q.category_key] if q.via_roll_off else None,
        )
        for q in result.qualifiers
    ]


def render_text(sim: StageSimulation) -> str:
    """Readable tables per pod for a terminal; the same facts as `to_json`."""
    tables = sum(len(pod.rounds[0].seating) for pod in sim.pods if pod.rounds)
    ghosts = sum(
        seat is None for pod in sim.pods if pod.rounds for t in pod.rounds[0].seating for seat in t
    )
    lines = [
        f"Qualifying stage: preset {sim.preset}, {sim.players} players, "
        f"{sim.sets} set{'' if sim.sets == 1 else 's'}, seed {sim.seed}",
        f"{len(sim.pods)} pods, {tables} tables, {ghosts} ghosts",
    ]
    for pod in sim.pods:
        data = pod.to_dict()
        lines += [
            "",
            f"Pod {pod.number}: {data['players']} players, {data['tables']} tables, "
            f"{data['ghosts']} ghosts, tied tables rolled off: {data['tie_breaks']}",
            f"  {'Player':<12} {'W':>3} {'L':>3} {'Buncos':>7} {'Minis':>6} {'Snake eyes':>11}",
        ]
        for s in pod.standings:
            lines.append(
                f"  {s.name:<12} {s.wins:>3} {s.losses:>3} {s.buncos:>7} {s.minis:>6} "
                f"{s.snake_eyes:>11}"
            )
        for a in pod.advancers:
            note = ""
            if a.roll_off is not None:
                throws = "; ".join(
                    ", ".join(f"{player_name(p)} {die}" for p, die in faces.items())  # type: ignore[arg-type]
                    for faces in a.roll_off.rounds
                )
                note = f" - won a roll-off among {len(a.roll_off.players)}: {throws}"
            lines.append(f"  Advances: {player_name(a.player)} ({a.reason}: {a.value}){note}")
    advancing = [f"{player_name(a.player)}" for pod in sim.pods for a in pod.advancers]
    lines += ["", f"Semi-finalists ({len(advancing)}): {', '.join(advancing)}"]
    return "\n".join(lines) + "\n"
