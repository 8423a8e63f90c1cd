"""How many players and ghost seats a stage has from the next round that can change: the
round shown with the roster changes after it applied. The stage page's totals and the
waitlist's "take a ghost seat" both read it, so the button is offered only when the stage
page would count a ghost seat free."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from scoring.services.rounds import current_of, first_pending_of

from ..models import RosterChange, Round, Seat, Stage


@dataclass(frozen=True)
class SeatCount:
    players: int
    ghosts: int
    changes_from: int | None  # the round the last change after the round shown starts


def changes_after(shown: Round | None, changes: list[RosterChange]) -> list[RosterChange]:
    """The roster changes not in `shown`'s seats yet: those from a later round (a change
    from the round shown, still pending, was written into its seats at once)."""
    return [c for c in changes if shown is not None and c.from_round > shown.number]


def seat_count(shown: Round | None, changes: list[RosterChange]) -> SeatCount:
    """The seats of `shown` (one query), with the stage's `changes` after it applied."""
    seats = Seat.objects.filter(round=shown).aggregate(players=Count("player"), every=Count("pk"))
    later = changes_after(shown, changes)
    joins = sum(1 for c in later if c.kind == RosterChange.Kind.JOIN)
    players = seats["players"] + joins - (len(later) - joins)
    return SeatCount(
        players, seats["every"] - players, max((c.from_round for c in later), default=None)
    )


def free_ghost_seats(stage: Stage) -> tuple[int, int | None]:
    """Ghost seats a late arrival could take, and from which round; (0, None) once every
    round has started. A handful of queries whatever the size of the stage."""
    rounds = list(stage.rounds.order_by("number"))
    upcoming = first_pending_of(rounds)
    if upcoming is None:
        return 0, None
    changes = list(RosterChange.objects.filter(pod__stage=stage))
    return seat_count(current_of(rounds), changes).ghosts, upcoming.number
