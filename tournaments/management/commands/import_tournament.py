"""Reads a file made by `export_tournament` into this site's database, all or nothing.

`python manage.py import_tournament event.json [--slug new-slug]`: the slug must be free here;
accounts are matched by username or created with the password they had.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.services import transfer


class Command(BaseCommand):
    help = "Imports a tournament exported by export_tournament (in one transaction)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="The JSON file export_tournament wrote.")
        parser.add_argument("--slug", help="Import under this slug instead of the file's.")

    def handle(self, *args, file, slug, **options):
        try:
            report = transfer.import_tournament(transfer.read_export(Path(file)), slug=slug)
        except transfer.TransferError as exc:
            raise CommandError(f"Nothing was imported. {exc.message}") from exc
        tournament = report.tournament
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {tournament.name} as {tournament.slug}: {report.rows} rows."
            )
        )
        if report.accounts_created:
            self.stdout.write(
                f"Accounts created (they log in with their old passwords): "
                f"{', '.join(report.accounts_created)}"
            )
        if report.accounts_matched:
            self.stdout.write(
                f"Accounts already here, used as they are (passwords unchanged): "
                f"{', '.join(report.accounts_matched)}"
            )
        if report.presets_created:
            self.stdout.write(f"Rule presets created: {', '.join(report.presets_created)}")
        if report.printouts:
            self.stdout.write(
                f"{report.printouts} printouts came without their PDF files; make them again "
                "on the Printouts page."
            )
