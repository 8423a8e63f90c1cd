"""Loads a demo event in the middle of its qualifying stage, with one account per role."""

import random

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from scoring.services import rounds
from tournaments.models import Player, Tournament, TournamentRole, UserProfile
from tournaments.services import invitations, registration, waitlist
from tournaments.services.accounts import one_time_password
from tournaments.services.rehearsal import rehearse
from tournaments.services.rehearsal_event import FIRST, LAST

SLUG = "demo-pink-bunco"
FINISHED_SLUG = "demo-mesquite-finished"


class Command(BaseCommand):
    help = "Creates (or refreshes) the demo tournament and the organiser, staff and admin accounts."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=60)
        parser.add_argument("--no-shows", type=int, default=6)
        parser.add_argument("--rounds-played", type=int, default=4)
        parser.add_argument("--seed", type=int, default=2026)

    @transaction.atomic
    def handle(self, *args, players, no_shows, rounds_played, seed, **options):
        User = get_user_model()
        passwords, accounts = {}, {}
        for username in ("organiser", "staff", "admin"):
            user, _ = User.objects.get_or_create(username=username)
            passwords[username] = one_time_password()
            user.set_password(passwords[username])
            user.save()
            UserProfile.objects.update_or_create(
                user=user, defaults={"must_change_password": False}
            )
            accounts[username] = user
        accounts["organiser"].user_permissions.add(
            Permission.objects.get(codename="create_tournament")
        )

        # The $25 entry is set before the desk records the fees, so the fees in the cash book
        # are the fee the dashboard and the desk show.
        rehearse(
            players=players,
            preset="rolling-for-pink",
            seed=seed,
            slug=SLUG,
            stop_after_round=rounds_played,
            entry_fee=25,
        )
        tournament = Tournament.objects.get(slug=SLUG)
        Tournament.objects.filter(pk=tournament.pk).update(
            name="Demo Pink Bunco Night",
            charity="Breast cancer research",
            venue="Community Center Ballroom",
            date=timezone.localdate(),  # being played now
            # Full: the rehearsal's last registrant waits on the waitlist for a freed place.
            capacity=players + no_shows,
        )
        tournament.refresh_from_db()
        TournamentRole.objects.create(tournament=tournament, user=accounts["staff"], role="staff")
        TournamentRole.objects.create(tournament=tournament, user=accounts["admin"], role="admin")
        # Waiting on its owner: the organiser's Staff & admins page shows the link to pass
        # on, and staff see the invitation on their home page after signing in.
        invitations.invite(tournament, accounts["staff"], "admin", actor=accounts["organiser"])
        stage = tournament.stages.get()
        for pod in stage.pods.filter(number__in=(1, 2)):
            pod.staff.add(accounts["staff"])
        rng = random.Random(seed)
        for i in range(no_shows):
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            registration.register(
                tournament,
                registration.Registrant(name=name, email=f"no.show.{i}@example.org"),
                source=Player.Source.ORGANISER,
                actor=accounts["organiser"],
            )
        current = rounds.start_next_round(stage, actor=accounts["organiser"])

        # A second event, played to the end, so the results, the final table, the prize
        # table, the ledger and the cash book have something to show.
        # A $50 entry, as the finished event's prize list expects: set before the desk records
        # the fees, so its cash book, ledger and planner agree.
        finished = rehearse(
            players=players, preset="mesquite", seed=seed + 1, slug=FINISHED_SLUG, entry_fee=50
        ).tournament
        Tournament.objects.filter(pk=finished.pk).update(
            name="Demo Mesquite Night (finished)",
            charity="Children's hospital",
            standings_public=True,
            # Played to the end just now: dated today, as its payouts and cash book are timed
            # (the rehearsal dates a new event a week ahead, where these read as impossible).
            date=timezone.localdate(),
        )
        for username, role in (("staff", "staff"), ("admin", "admin")):
            TournamentRole.objects.create(tournament=finished, user=accounts[username], role=role)

        self.stdout.write(self.style.SUCCESS(f"Demo tournament: {tournament.name}"))
        self.stdout.write(
            f"  {players} checked in and playing in {stage.pods.count()} pods, "
            f"{no_shows} registered no-shows; round {current.number} "
            f"(set {current.set_number}, rolling for {current.target}s) is being played"
        )
        party = tournament.parties.first()
        self.stdout.write(
            f"  The event is full: {waitlist.queue(tournament).count()} on the waitlist "
            f"(the organiser's Players > Waitlist); {party.name} registered a party of "
            f"{party.members.count()} in one form"
        )
        self.stdout.write(
            f"  Public page: /t/{SLUG}/   Seat finder: /t/{SLUG}/seat/   Board: /t/{SLUG}/board/"
        )
        self.stdout.write(
            f"Finished event: /t/{FINISHED_SLUG}/results/ (standings, final table, prizes paid)"
        )
        self.stdout.write(
            f"  Cash book: /t/{FINISHED_SLUG}/manage/cashbook/ (fees, donations, a prize given "
            "back, expenses, both cash boxes counted and closed)"
        )
        self.stdout.write("Accounts (passwords are new each time the demo loads):")
        for username, password in passwords.items():
            self.stdout.write(f"  {username:<10} {password}")
        self.stdout.write(
            "  staff records pods 1 and 2 and has an invitation to help at the prize table "
            "(their home page); admin prints and pays prizes."
        )
