"""Ending a stage before its last round, when the evening cannot go on (the hall must close).

The rounds not played are kept, marked "not played": their seating and the draw stay on
record, and the stage's `round_count` becomes the rounds played, so score cards, standings
and the cut work from those alone.
"""

from __future__ import annotations

from django.utils import timezone

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError

from ..models import Round, Stage


@changes.announces
def end_stage_early(stage: Stage, reason: str, *, actor) -> Stage:
    """Finishes the stage after its last closed round, with the reason in the audit log.

    Locks the stage, then its rounds in number order, as `start_next_round` does, so a round
    cannot be started while the stage is being ended (one of them waits and then sees the
    other's work).
    """
    reason = reason.strip()
    if not reason:
        raise UserFacingError("Say why the stage ends early.", field="reason")
    stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
    rounds = list(stage.rounds.select_for_update().order_by("number"))
    name = stage.get_kind_display().lower()
    if stage.status == Stage.Status.FINISHED:
        raise UserFacingError(f"The {name} is already finished.")
    playing = [r.number for r in rounds if r.status == Round.Status.OPEN]
    if playing:
        raise UserFacingError(
            f"Round {playing[0]} is still being played: close it when its tables have "
            "reported, then end the stage."
        )
    played = [r for r in rounds if r.status == Round.Status.CLOSED]
    if not played:
        raise UserFacingError(f"No round of the {name} has been played yet; nothing to end.")
    skipped = [r for r in rounds if r.status == Round.Status.PENDING]
    Round.objects.filter(pk__in=[r.pk for r in skipped]).update(status=Round.Status.NOT_PLAYED)
    stage.status = Stage.Status.FINISHED
    stage.played_rounds = len(played)
    stage.ended_early_at = timezone.now()
    stage.ended_early_reason = reason
    stage.save(update_fields=["status", "played_rounds", "ended_early_at", "ended_early_reason"])
    audit.record(
        "stage.ended_early",
        f"{stage.get_kind_display()} ended early after round {len(played)} "
        f"({len(skipped)} not played): {reason}",
        actor=actor,
        tournament=stage.tournament,
        target=stage,
        data={"played": len(played), "not_played": [r.number for r in skipped], "reason": reason},
    )
    changes.bump(stage.tournament_id)
    return stage
