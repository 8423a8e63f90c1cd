"""Counts the facts the phase rule (tournaments/rules/phases.py) needs, and where each role lands.

A fixed number of queries whatever the number of players, so the dashboard and the sign-in
landing stay as fast on a 200-player night as on a 12-player rehearsal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from django.db.models import Count

from scoring.models import CardEntry, TableResult
from tournaments.rules.phases import EventFacts, NextStep, Phase, StageFacts, next_step

from ..models import (
    FinalTable,
    Payout,
    Qualifier,
    Role,
    Round,
    Seat,
    Stage,
    Tournament,
    TournamentRole,
)
from .tournaments import counts

STARTED = (Round.Status.OPEN, Round.Status.CLOSED, Round.Status.NOT_PLAYED)


def stage_facts(stage: Stage) -> StageFacts:
    rounds = list(stage.rounds.values_list("number", "status"))
    open_round = next((n for n, status in rounds if status == Round.Status.OPEN), None)
    pods = dict(stage.pods.values_list("pk", "tables"))
    pods_reported = 0
    if open_round is not None:
        reported = (
            TableResult.objects.filter(
                round__stage=stage, round__number=open_round, is_current=True
            )
            .values("pod_id")
            .annotate(n=Count("id"))
            .values_list("pod_id", "n")
        )
        pods_reported = sum(1 for pod_id, n in reported if n >= pods.get(pod_id, 0))
    players = (
        Seat.objects.filter(round__stage=stage, player__isnull=False)
        .values("player_id")
        .distinct()
        .count()
    )
    return StageFacts(
        kind=stage.kind,
        finished=stage.status == Stage.Status.FINISHED,
        rounds=len(rounds),
        rounds_started=sum(1 for _, status in rounds if status in STARTED),
        open_round=open_round,
        pods=len(pods),
        pods_reported=pods_reported,
        players=players,
        cards_entered=CardEntry.objects.filter(stage=stage, is_current=True).count(),
    )


def event_facts(tournament: Tournament) -> EventFacts:
    numbers = counts(tournament)
    stages = {s.kind: s for s in tournament.stages.all()}
    qualifying = stages.get(Stage.Kind.QUALIFYING)
    semi = stages.get(Stage.Kind.SEMI_FINAL)
    final = FinalTable.objects.filter(tournament=tournament).values("winner_id").first()
    return EventFacts(
        registration_open=tournament.registration_open,
        check_in_open=tournament.check_in_open,
        registered=numbers.registered,
        checked_in=numbers.checked_in,
        qualifying=stage_facts(qualifying) if qualifying else None,
        qualifiers_saved=bool(qualifying)
        and Qualifier.objects.filter(from_stage=qualifying).exists(),
        semi_final=stage_facts(semi) if semi else None,
        final_seated=final is not None,
        final_won=final is not None and final["winner_id"] is not None,
        prizes_awarded=tournament.awards.current().count(),
        prizes_paid=len(paid_award_ids(tournament)),
    )


def paid_award_ids(tournament: Tournament) -> set[int]:
    """The awards in force that have a live payment (at most one each). Superseded awards
    are left out on both sides of the count: an event awarded again would otherwise never
    have every prize paid."""
    return set(
        Payout.objects.filter(
            award__tournament=tournament,
            award__superseded_at__isnull=True,
            voided_at__isnull=True,
        ).values_list("award_id", flat=True)
    )


def step_of(tournament: Tournament) -> NextStep:
    return next_step(event_facts(tournament))


# --- where each role lands --------------------------------------------------------------------

ROLE_ORDER = (Role.ORGANISER, Role.ADMIN, Role.STAFF)


@dataclass(frozen=True)
class Landing:
    tournament: Tournament
    role: str
    url_name: str

    @property
    def role_label(self) -> str:
        return Role(self.role).label


def current_events(tournaments: list[Tournament], today: date) -> list[Tournament]:
    """Tonight's events, else the coming ones, else the most recent: a staff member who
    helped last month and staffs again tonight lands on tonight's."""
    for bucket in (
        [t for t in tournaments if t.date == today],
        [t for t in tournaments if t.date > today],
    ):
        if bucket:
            return sorted(bucket, key=lambda t: (t.date, t.name))
    past = sorted(tournaments, key=lambda t: t.date, reverse=True)
    return past[:1]


def landing_page(role: str, step: Callable[[], NextStep]) -> str:
    """`step` is asked only for an admin, whose page follows the event's phase."""
    if role == Role.ORGANISER:
        return "tournament-dashboard"
    if role == Role.ADMIN:
        return step().admin_page
    return "my-pods"


def landings(user, today: date) -> list[Landing]:
    """The events to choose from, each with the user's main role there and its page."""
    if user.is_superuser:
        held = {t.pk: (t, Role.ORGANISER) for t in Tournament.objects.all()}
    else:
        held = {}
        rows = TournamentRole.objects.filter(user=user).select_related("tournament")
        for row in rows:
            _, role = held.get(row.tournament_id, (row.tournament, None))
            if role is None or ROLE_ORDER.index(row.role) < ROLE_ORDER.index(role):
                held[row.tournament_id] = (row.tournament, row.role)
    events = current_events([t for t, _ in held.values()], today)
    step = functools.cache(step_of)  # each event's phase is a dozen queries: read it once

    if len(events) > 1:
        # An event played to the end earlier today (every prize paid) gives way to one still
        # running: the chooser listed both, and the finished one first by name. It stays on
        # the home page's list of the user's tournaments.
        events = [t for t in events if step(t).phase != Phase.DONE] or events
    return [
        Landing(t, held[t.pk][1], landing_page(held[t.pk][1], lambda t=t: step(t))) for t in events
    ]
