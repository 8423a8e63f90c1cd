"""Creating tournaments and switching registration and check-in on and off."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils.text import slugify

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError

from ..models import (
    ChangeCounter,
    Player,
    Qualifier,
    Role,
    RollOff,
    Stage,
    Tournament,
    TournamentRole,
)
from ..models.players import PLAYING
from . import waitlist


def unique_slug(name: str, date) -> str:
    base = slugify(f"{name} {date:%Y}")[:50] or "tournament"
    slug, n = base, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


@transaction.atomic
def create_tournament(tournament: Tournament, *, actor) -> Tournament:
    """Saves a new tournament and makes its creator its first organiser."""
    tournament.slug = unique_slug(tournament.name, tournament.date)
    tournament.created_by = actor
    tournament.save()
    TournamentRole.objects.create(
        tournament=tournament, user=actor, role=Role.ORGANISER, created_by=actor
    )
    # Made with the tournament: a first bump that had to insert it would take a key-share
    # lock on the tournament row last, out of the lock order (locks.py).
    ChangeCounter.objects.create(tournament=tournament)
    audit.record(
        "tournament.created",
        f"{tournament.name} created",
        actor=actor,
        tournament=tournament,
        target=tournament,
    )
    return tournament


SWITCHES = {
    "registration": ("registration_open", "Registration"),
    "check_in": ("check_in_open", "Check-in"),
    "standings": ("standings_public", "Public standings"),
}


@changes.announces
def set_switch(tournament: Tournament, switch: str, value: bool, *, actor) -> None:
    if switch not in SWITCHES:
        raise UserFacingError(f"Unknown setting {switch!r}.")
    field, label = SWITCHES[switch]
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    setattr(tournament, field, value)
    tournament.save(update_fields=[field])
    state = "opened" if value else "closed"
    audit.record(
        f"tournament.{switch}_{state}", f"{label} {state}", actor=actor, tournament=tournament
    )
    changes.bump(tournament.pk)


@dataclass(frozen=True)
class Counts:
    registered: int
    checked_in: int
    withdrawn: int
    walk_ins: int
    capacity: int
    costume: int

    @property
    def not_arrived(self) -> int:
        return self.registered - self.checked_in

    @property
    def capacity_left(self) -> int:
        return max(self.capacity - self.registered, 0)


def counts(tournament: Tournament) -> Counts:
    """All dashboard numbers in one query, whatever the number of players."""
    active = Q(status=Player.Status.REGISTERED)
    row = tournament.players.aggregate(
        registered=Count("id", filter=active),
        checked_in=Count("id", filter=PLAYING),
        withdrawn=Count("id", filter=Q(status=Player.Status.WITHDRAWN)),
        walk_ins=Count("id", filter=active & Q(source=Player.Source.WALK_IN)),
        costume=Count("id", filter=active & Q(costume_contest=True)),
    )
    return Counts(capacity=tournament.capacity, **row)


# Changing these once pods are drawn would change the rounds already played (sets) or the
# rules the tables were scored by (preset), so they are fixed from the first draw on.
FIXED_ONCE_DRAWN = {"qualifying_sets": "the number of sets", "preset": "the rules"}
# The cut's settings are fixed once a roll-off or the qualifiers are recorded, and the
# semi-final's length once it is drawn: changing them would change decided results.
CUT_FIELDS = ("wins_places", "buncos_places", "top_both")


def settings_refusals(saved: Tournament, changed: list[str], capacity: int) -> dict[str, str]:
    """Per field, why a change to the saved tournament is refused (empty when none is)."""
    refusals: dict[str, str] = {}
    if "capacity" in changed:
        registered = saved.players.filter(status=Player.Status.REGISTERED).count()
        if capacity < registered:
            refusals["capacity"] = (
                f"{registered} players are registered: the capacity cannot be lower. "
                "Withdraw players first, or keep it at least "
                f"{registered}."
            )
    fixed = [f for f in FIXED_ONCE_DRAWN if f in changed]
    if fixed and saved.stages.exists():
        for name in fixed:
            refusals[name] = (
                f"Fixed now: the pods are drawn, so {FIXED_ONCE_DRAWN[name]} can no longer change."
            )
    cut = [f for f in CUT_FIELDS if f in changed]
    if cut and (
        RollOff.objects.filter(tournament=saved, kind=RollOff.Kind.CUT).exists()
        or Qualifier.objects.filter(from_stage__tournament=saved).exists()
    ):
        for name in cut:
            refusals[name] = "Fixed now: roll-offs or qualifiers of this event are recorded."
    if "semi_final_sets" in changed and saved.stages.filter(kind=Stage.Kind.SEMI_FINAL).exists():
        refusals["semi_final_sets"] = "Fixed now: the semi-final is drawn."
    return refusals


@dataclass(frozen=True)
class Updated:
    tournament: Tournament
    promoted: list[Player]  # waitlisted players who got a place the change freed


@changes.announces
def update_tournament(edited: Tournament, changed: list[str], *, actor) -> Updated:
    """Saves the settings form's changes, checked again under the tournament's lock so a
    registration or a draw that landed since the form was read cannot slip past. A larger
    capacity or a looser party rule gives freed places to the waitlist in the same
    transaction, so nobody can take them in between."""
    saved = Tournament.objects.select_for_update().get(pk=edited.pk)
    refusals = settings_refusals(saved, changed, edited.capacity)
    if refusals:
        raise UserFacingError(" ".join(refusals.values()))
    edited.save()
    audit.record(
        "tournament.edited",
        f"Details changed: {', '.join(changed) or 'nothing'}",
        actor=actor,
        tournament=edited,
        data={"fields": changed},
    )
    promoted = []
    if {"capacity", "party_fit"} & set(changed):
        promoted = waitlist.fill_after_change(edited, actor=actor)
    changes.bump(edited.pk)
    return Updated(edited, promoted)
