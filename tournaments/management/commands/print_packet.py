"""Prints the whole pre-event packet (score cards, tally sheets, seating charts) to a file.

`python manage.py print_packet <tournament-slug> --out packet.pdf` goes through the same
printout row and task as the page: the row is saved, the task runs here in this process,
and the PDF it saved is copied to --out. The row expires like any other printout.
"""

import sys
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.site import is_loopback
from tournaments.models import Printout, Tournament
from tournaments.services import printouts as service
from tournaments.tasks import render_printout
from tournaments.venue import lan_address


class Command(BaseCommand):
    help = "Renders a tournament's pre-event packet (cards, tallies, seating charts) as a PDF."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The tournament's slug, as in its address.")
        parser.add_argument("--out", default="packet.pdf", help="Where to write the PDF.")
        parser.add_argument(
            "--pagesize", choices=Printout.PageSize.values, default=Printout.PageSize.LETTER
        )
        parser.add_argument(
            "--stage",
            choices=["qualifying", "semi_final"],
            help="Which stage's seating (default: the latest stage with pods).",
        )
        parser.add_argument(
            "--base-url",
            default="",
            help="The site's address for the QR codes (default: SITE_URL, else this laptop's "
            "network address on port 8000, as `make venue` serves it).",
        )
        parser.add_argument("--user", help="Record the printout as asked for by this account.")

    def base_url(self, given: str) -> str:
        """The address the QR codes open, said out loud when the organiser did not choose
        it, and a warning when phones could not open it."""
        chosen = given.rstrip("/") or settings.SITE_URL
        if not chosen:
            address = lan_address()
            chosen = f"http://{address}:8000" if address else "http://localhost:8000"
            self.stderr.write(f"QR codes open {chosen} (set SITE_URL or --base-url to change).")
        if is_loopback(chosen):
            self.stderr.write(
                self.style.WARNING(
                    f"Warning: {chosen} only works on this computer; players' phones cannot "
                    "open these QR codes. Serve the site with `make venue` and print again, "
                    "or pass --base-url with the address phones will use."
                )
            )
        return chosen

    def handle(self, *args, slug, out, pagesize, stage, base_url, user, **options):
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise CommandError(f"No tournament has the slug {slug!r}.")
        actor = None
        if user:
            actor = get_user_model().objects.filter(username=user).first()
            if actor is None:
                raise CommandError(f"No account is called {user!r}.")
        chosen = None
        if stage:
            chosen = tournament.stages.filter(kind=stage).first()
            if chosen is None:
                raise CommandError(f"{tournament.name} has no {stage.replace('_', '-')} stage.")
        base_url = self.base_url(base_url)
        started = time.perf_counter()
        try:
            printout = service.request_printout(
                tournament,
                Printout.Kind.PACKET,
                actor,
                stage=chosen,
                pagesize=pagesize,
                base_url=base_url,
                send=False,
            )
        except UserFacingError as exc:
            raise CommandError(exc.message) from exc
        # The task itself, run here: no worker needed, same code path as a worker.
        render_printout.apply(args=[printout.pk], throw=False)
        printout.refresh_from_db()
        if printout.status != Printout.Status.DONE:
            raise CommandError(printout.error or "The packet could not be made.")
        with printout.file.open("rb") as source:
            data = source.read()
        if out == "-":
            sys.stdout.buffer.write(data)
        else:
            Path(out).write_bytes(data)
        seconds = time.perf_counter() - started
        self.stderr.write(
            self.style.SUCCESS(
                f"{service.describe(printout)}: {printout.pages} pages, "
                f"{printout.bytes:,} bytes in {seconds:.1f} s -> {out}"
            )
        )
