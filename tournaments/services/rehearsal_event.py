"""A rehearsal's event before play: its organiser, staff, and a crowd registered and checked
in through the registration services; and deleting a practice event whole.

The names are drawn from the rehearsal's seed, so the same seed registers the same people.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from scoring.models import CardEntry, TableResult

from ..models import (
    FinalTable,
    LedgerEntry,
    Payout,
    PrizeAward,
    Qualifier,
    RosterChange,
    RulePreset,
    Seat,
    Tournament,
    TournamentRole,
    TravelingPass,
    UserProfile,
)
from . import registration, rehearsal_cash
from .rehearsal_crowd import register_crowd

FIRST = [
    "Ann",
    "Barb",
    "Carol",
    "Dee",
    "Edie",
    "Fran",
    "Gail",
    "Hannah",
    "Iris",
    "Jan",
    "Kay",
    "Lori",
    "Mae",
    "Nell",
    "Opal",
    "Pam",
    "Rita",
    "Stacy",
    "Tess",
    "Uma",
    "Vera",
    "Wanda",
    "Yolanda",
    "Zoe",
    "Bob",
    "Carl",
    "Dan",
    "Ed",
    "Gus",
    "Hal",
    "Ike",
    "Joe",
    "Lynn",
    "Meg",
    "Nora",
    "Olive",
]
LAST = [
    "Adams",
    "Baker",
    "Cruz",
    "Diaz",
    "Evans",
    "Ford",
    "Garcia",
    "Hill",
    "Irwin",
    "Jones",
    "King",
    "Lopez",
    "Moore",
    "Nash",
    "Ortiz",
    "Park",
    "Quinn",
    "Reed",
    "Smith",
    "Turner",
    "Underwood",
    "Vance",
    "White",
    "Young",
    "Zimmer",
]


def staff_accounts(tournament: Tournament, n_staff: int) -> list:
    """`n_staff` staff accounts of the event, made once (a second rehearsal reuses them)."""
    User = get_user_model()
    staff = []
    for i in range(1, n_staff + 1):
        user, _ = User.objects.get_or_create(username=f"{tournament.slug}-staff{i}"[:150])
        UserProfile.objects.get_or_create(user=user)
        TournamentRole.objects.get_or_create(tournament=tournament, user=user, role="staff")
        staff.append(user)
    return staff


def practice_secret(seed: int) -> str:
    """A practice event's draw secret: anyone can work it out, which is fine for practice."""
    return hashlib.sha256(f"bunco rehearsal {seed}".encode()).hexdigest()


def create_event(
    *,
    players: int,
    preset: str,
    seed: int,
    slug: str,
    organiser_name: str = "organiser",
    entry_fee: int = 20,
) -> tuple[Tournament, Any]:
    """Registers and checks in `players` people through the registration services."""
    User = get_user_model()
    organiser, _ = User.objects.get_or_create(username=organiser_name)
    UserProfile.objects.get_or_create(user=organiser)
    tournament = Tournament.objects.create(
        name=f"Rehearsal {preset} {seed}" if slug.startswith("rehearsal") else slug,
        slug=slug,
        charity="Rehearsal charity",
        date=timezone.localdate() + datetime.timedelta(days=7),
        venue="Rehearsal hall",
        entry_fee=entry_fee,
        capacity=max(players, 4),
        qualifying_sets=3,
        preset=RulePreset.objects.get(slug=preset),
        registration_open=True,
        check_in_open=True,
        created_by=organiser,
        draw_secret=practice_secret(seed),
    )
    TournamentRole.objects.create(tournament=tournament, user=organiser, role="organiser")
    rng = random.Random(seed)
    names = [f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(players)]
    register_crowd(
        tournament,
        [
            registration.Registrant(
                name=name, email=f"{name.lower().replace(' ', '.')}.{i}@rehearsal.invalid"
            )
            for i, name in enumerate(names)
        ],
    )
    for i, player in enumerate(registration.active_players(tournament).order_by("pk")):
        rehearsal_cash.arrive(player, i, organiser)
    return tournament, organiser


def purge_tournament(tournament: Tournament) -> None:
    """Deletes a rehearsal or demo event whole; results are protected from casual deletes."""
    TravelingPass.objects.filter(tournament=tournament).delete()
    LedgerEntry.objects.filter(tournament=tournament).update(reverses=None)
    LedgerEntry.objects.filter(tournament=tournament).delete()
    Payout.objects.filter(award__tournament=tournament).delete()
    PrizeAward.objects.filter(tournament=tournament).delete()
    FinalTable.objects.filter(tournament=tournament).delete()
    Qualifier.objects.filter(from_stage__tournament=tournament).delete()
    CardEntry.objects.filter(stage__tournament=tournament).update(supersedes=None)
    CardEntry.objects.filter(stage__tournament=tournament).delete()
    results = TableResult.objects.filter(pod__stage__tournament=tournament)
    results.update(supersedes=None)
    results.delete()
    Seat.objects.filter(pod__stage__tournament=tournament).delete()
    RosterChange.objects.filter(pod__stage__tournament=tournament).delete()
    tournament.delete()
