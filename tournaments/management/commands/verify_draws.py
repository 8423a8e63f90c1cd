"""Checks every draw of a tournament against its draw secret, as the results page does.

`python manage.py verify_draws <slug> [--fingerprint HEX]`: lists each draw (what was drawn,
its label and draw code) and, once the secret is published, whether it checks out. Give the
fingerprint you noted before the draws to check the secret against it. Fails (exit 1) when
a published secret or a draw does not check out.
"""

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Tournament
from tournaments.rules.draws import Status
from tournaments.services.draws import draw_report

MARKS = {Status.CHECKS: "ok", Status.WRONG: "FAIL", Status.SEALED: "..", Status.UNSEALED: "--"}


class Command(BaseCommand):
    help = "Checks every draw of a tournament against its published draw secret."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The tournament's slug, as in its address.")
        parser.add_argument(
            "--fingerprint", help="The fingerprint you noted before the draws (64 hex digits)."
        )

    def handle(self, *args, slug, fingerprint, **options):
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise CommandError(f"No tournament has the slug {slug!r}.")
        report = draw_report(tournament, fingerprint)
        out = self.stdout.write
        out(f"Draws of {tournament.name} ({slug})")
        out(f"Fingerprint (SHA-256 of the secret): {report.fingerprint}")
        if report.published:
            out(f"Secret (published): {report.secret}")
            matches = "matches" if report.verification.secret_matches else "DOES NOT match"
            out(f"SHA-256 of the secret {matches} the fingerprint.")
        else:
            out(
                "Secret: still sealed. It is published once the grand prize is won and the "
                "first prize is paid (or the organiser publishes it after the final); the "
                "draws below are checked then."
            )
        for line in report.lines:
            out(
                f"[{MARKS[line.status]:>4}] {line.what}: label {line.label}, "
                f"draw code {line.draw.seed}, {line.verdict}"
            )
        if not report.lines:
            out("Nothing has been drawn yet.")
        for problem in report.problems:
            out(f"Problem: {problem}")
        if report.published and not report.ok:
            raise CommandError("Not every draw checks out.")
        if report.published:
            checked = sum(1 for line in report.lines if line.status == Status.CHECKS)
            others = len(report.lines) - checked
            note = f"; {others} not drawn from the secret (see above)" if others else ""
            out(self.style.SUCCESS(f"Every draw checks out: {checked} from the secret{note}."))
