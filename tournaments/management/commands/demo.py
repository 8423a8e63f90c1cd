"""Loads a demo tournament with players and one account per role, and prints the passwords."""

import datetime
import random

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from tournaments.models import Player, RulePreset, Tournament, TournamentRole, UserProfile
from tournaments.services import registration, tournaments
from tournaments.services.accounts import one_time_password

FIRST = "Ann Barb Carol Dee Edie Fran Gail Hannah Iris Jan Kay Lori Mae Nell Opal Pam Rita "
FIRST += "Stacy Tess Uma Vera Wanda Yolanda Zoe Bob Carl Dan Ed Gus Hal Ike Joe"
LAST = "Adams Baker Cruz Diaz Evans Ford Garcia Hill Irwin Jones King Lopez Moore Nash Ortiz "
LAST += "Park Quinn Reed Smith Turner Underwood Vance White Young"
GROUPS = ["Pink Ladies", "Dice Divas", "Lucky Rollers", "", "", "", ""]


class Command(BaseCommand):
    help = "Creates (or refreshes) the demo tournament and the organiser, staff and admin accounts."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=60)
        parser.add_argument("--checked-in", type=int, default=48)
        parser.add_argument("--seed", type=int, default=2026)

    @transaction.atomic
    def handle(self, *args, players, checked_in, seed, **options):
        rng = random.Random(seed)
        passwords = {}
        accounts = {}
        User = get_user_model()
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

        Tournament.objects.filter(slug="demo-pink-bunco").delete()
        tournament = Tournament(
            name="Demo Pink Bunco Night",
            charity="Breast cancer research",
            date=timezone.localdate() + datetime.timedelta(days=14),
            venue="Community Center Ballroom",
            entry_fee=25,
            capacity=120,
            qualifying_sets=3,
            preset=RulePreset.objects.get(slug="rolling-for-pink"),
            registration_open=True,
            check_in_open=True,
        )
        tournament = tournaments.create_tournament(tournament, actor=accounts["organiser"])
        Tournament.objects.filter(pk=tournament.pk).update(slug="demo-pink-bunco")
        tournament.refresh_from_db()
        for username, role in (("staff", "staff"), ("admin", "admin")):
            TournamentRole.objects.create(tournament=tournament, user=accounts[username], role=role)

        firsts, lasts = FIRST.split(), LAST.split()
        for i in range(players):
            name = f"{rng.choice(firsts)} {rng.choice(lasts)}"
            registration.register(
                tournament,
                registration.Registrant(
                    name=name,
                    email=f"{name.lower().replace(' ', '.')}.{i}@example.org",
                    group_name=rng.choice(GROUPS),
                    costume_contest=rng.random() < 0.3,
                ),
                source=Player.Source.WEB,
                check_in=i < checked_in,
                actor=accounts["organiser"] if i < checked_in else None,
            )

        self.stdout.write(self.style.SUCCESS(f"Demo tournament: {tournament.name}"))
        self.stdout.write(f"  {players} registered, {checked_in} checked in")
        self.stdout.write(f"  Public page: /t/{tournament.slug}/")
        self.stdout.write("Accounts (passwords are new each time the demo loads):")
        for username, password in passwords.items():
            self.stdout.write(f"  {username:<10} {password}")
