"""Runs a whole event through the services the pages use, for demos, checks and load tests."""

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.rules import PRESETS
from tournaments.foundation.errors import UserFacingError
from tournaments.services.rehearsal import rehearse


class Command(BaseCommand):
    help = "Registers, checks in, draws and plays a tournament with the engine's dice."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=120)
        parser.add_argument("--preset", choices=sorted(PRESETS), default="classic")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--slug", help="Tournament slug (replaced if it exists).")
        parser.add_argument(
            "--stop-after-round", type=int, help="Leave the event after this qualifying round."
        )
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def handle(self, *args, players, preset, seed, slug, stop_after_round, **options):
        if players < 2:
            raise CommandError("A rehearsal needs at least two players.")
        try:
            result = rehearse(
                players=players,
                preset=preset,
                seed=seed,
                slug=slug,
                stop_after_round=stop_after_round,
            )
        except UserFacingError as exc:
            raise CommandError(exc.message) from exc
        summary = result.as_dict()
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2, sort_keys=True))
            return
        self.stdout.write(self.style.SUCCESS(f"Rehearsed {summary['tournament']}"))
        self.stdout.write(
            f"  {summary['players']} players in {summary['pods']} pods, "
            f"{summary['ghosts']} ghost seats, seed {summary['seed']}"
        )
        for kind, stage in summary["stages"].items():
            self.stdout.write(
                f"  {kind}: {stage['rounds']} rounds, {stage['table_results']} table results, "
                f"{stage['corrections']} corrected ({stage['result_versions']} versions kept)"
            )
