"""`make venue`: serve the site to the venue's network from this laptop.

Finds the laptop's network address (`tournaments.venue`), prints what to tell staff and
where the board and the seat finder are, then runs gunicorn on every interface with that
address allowed and set as SITE_URL, so printed QR codes and the board point at it.
"""

import os
import shutil
import sys

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from tournaments.models import Tournament
from tournaments.venue import lan_address, venue_environment


class Command(BaseCommand):
    help = "Serves the site on this laptop's network address, for phones at the venue."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--address", help="The address to announce (default: found from the network)."
        )
        parser.add_argument("--workers", type=int, default=3)
        parser.add_argument(
            "--dry-run", action="store_true", help="Print the plan and the command; serve nothing."
        )
        # HTTPS lets staff phones keep their pages for offline use (a service worker); the
        # phones must trust the certificate (README: "At the venue without Wi-Fi").
        parser.add_argument("--certfile", help="Serve HTTPS with this certificate (PEM).")
        parser.add_argument("--keyfile", help="The certificate's private key (PEM).")

    def handle(self, *args, port, address, workers, dry_run, certfile, keyfile, **options):
        if bool(certfile) != bool(keyfile):
            raise CommandError("Give both --certfile and --keyfile, or neither.")
        address = address or lan_address()
        if not address:
            raise CommandError(
                "This laptop has no network address: join the venue's Wi-Fi (or plug in its "
                "cable) and run `make venue` again, or give one with --address."
            )
        env = venue_environment(address, port, dict(os.environ), https=bool(certfile))
        site = env["SITE_URL"]
        self.stdout.write(f"Serving the site for the venue at {site}/\n")
        self.stdout.write("Tell staff and admins (on the venue's Wi-Fi):")
        self.stdout.write(f"  sign in at {site}{reverse('login')}")
        for tournament in Tournament.objects.order_by("-date")[:3]:
            slug = tournament.slug
            self.stdout.write(f"\n{tournament.name}:")
            self.stdout.write(f"  board (projector):  {site}{reverse('board', args=[slug])}")
            self.stdout.write(f"  players' seats:     {site}{reverse('seat-finder', args=[slug])}")
        self.stdout.write(
            "\nPrint score cards only from now on: their QR codes use this address. "
            "Keep this window open; Ctrl-C stops the site."
        )
        gunicorn = shutil.which("gunicorn", path=os.path.dirname(sys.executable)) or "gunicorn"
        command = [
            gunicorn,
            "bunco_site.wsgi",
            "--bind",
            f"0.0.0.0:{port}",
            "--workers",
            str(workers),
        ]
        if certfile:
            command += ["--certfile", certfile, "--keyfile", keyfile]
        if dry_run:
            self.stdout.write(f"ALLOWED_HOSTS={env['ALLOWED_HOSTS']} SITE_URL={site}")
            self.stdout.write(" ".join(command))
            return
        sys.stdout.flush()
        os.execvpe(command[0], command, env)
