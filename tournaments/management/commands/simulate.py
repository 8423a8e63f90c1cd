"""`manage.py simulate`: a qualifying stage played by the engine, for trying out a preset.

Thin on purpose: argument parsing and printing only; the stage itself is
`tournaments.rules.simulate.simulate_stage`, which needs no Django and no database.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.rules import PRESETS, RuleError
from tournaments.rules.simulate import render_text, simulate_stage


class Command(BaseCommand):
    help = "Simulates a qualifying stage (draw, every round, tie-breaks, movement, cut)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=120, help="number of players")
        parser.add_argument("--preset", choices=sorted(PRESETS), default="classic")
        parser.add_argument("--seed", type=int, default=0, help="same seed, same output")
        parser.add_argument("--sets", type=int, default=3, help="sets in the stage")
        parser.add_argument("--json", action="store_true", help="print JSON instead of tables")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            sim = simulate_stage(
                options["players"], PRESETS[options["preset"]], options["sets"], options["seed"]
            )
        except RuleError as exc:
            raise CommandError(str(exc)) from exc
        output = sim.to_json() + "\n" if options["json"] else render_text(sim)
        self.stdout.write(output, ending="")
