"""Deletes expired printouts and their files: what celery beat runs every hour, for a laptop
that runs no beat (or none at all)."""

from django.core.management.base import BaseCommand

from tournaments.services.printouts import purge_expired


class Command(BaseCommand):
    help = "Deletes printouts past their expiry, and their PDF files."

    def handle(self, *args, **options):
        count = purge_expired()
        self.stdout.write(f"{count} expired printout{'s' if count != 1 else ''} deleted.")
