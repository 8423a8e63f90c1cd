"""Lifts sign-in pauses from the server: for an organiser's own account, which no other
organiser may unlock, or for everyone at once after a false alarm."""

from django.core.management.base import BaseCommand, CommandError

from tournaments.lockout import clear_failures


class Command(BaseCommand):
    help = "Forgets failed sign-ins of one account (--username), one address (--address) or all."

    def add_arguments(self, parser):
        parser.add_argument("--username", help="the account to unlock, from every address")
        parser.add_argument("--address", help="the address whose failed sign-ins to forget")
        parser.add_argument("--all", action="store_true", help="forget every failed sign-in")

    def handle(self, *args, username=None, address=None, **options):
        if options["all"] == bool(username or address):
            raise CommandError("Give --username and/or --address, or --all.")
        count = clear_failures(username=username, address=address)
        self.stdout.write(f"{count} failed sign-in{'s' if count != 1 else ''} forgotten.")
