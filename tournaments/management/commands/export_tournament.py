"""Writes a whole tournament to a JSON file that `import_tournament` reads on another site.

`python manage.py export_tournament <slug> --out event.json`: the event and everything in it
(see `tournaments.services.transfer`), from a laptop's SQLite or a PostgreSQL server alike.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Tournament
from tournaments.services import transfer


class Command(BaseCommand):
    help = "Exports a whole tournament (players, pods, results, cards, prizes...) as JSON."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The tournament's slug, as in its address.")
        parser.add_argument("--out", required=True, help="The JSON file to write.")

    def handle(self, *args, slug, out, **options):
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise CommandError(f"No tournament has the slug {slug!r}.")
        try:
            export = transfer.export_tournament(tournament)
            transfer.write_export(export, Path(out))
        except transfer.TransferError as exc:
            raise CommandError(exc.message) from exc
        except OSError as exc:
            raise CommandError(f"Cannot write {out}: {exc.strerror}.") from exc
        rows = sum(len(r) for r in export["models"].values())
        self.stdout.write(
            self.style.SUCCESS(
                f"Exported {tournament.name} ({slug}) to {out}: {rows} rows, "
                f"{len(export['accounts'])} accounts."
            )
        )
        printouts = len(export["models"]["tournaments.printout"])
        if printouts:
            self.stdout.write(
                f"{printouts} printouts are listed without their PDF files, which stay here; "
                "make them again on the new site's Printouts page."
            )
