"""Taking back the final table's last throw: a mistyped die, or a grand prize winner declared
by one, is undone by the organiser with a reason, never deleted.

Only the latest throw can be voided, and only until the next throw is recorded: after that
the table has played on from it. Once the draw secret is published the result is final.
"""

from __future__ import annotations

from django.utils import timezone

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError

from ..models import FinalTable, FinalThrow
from . import draws


@changes.announces
def void_last_throw(final: FinalTable, *, actor, number: int, reason: str) -> FinalThrow:
    """Marks throw `number` voided; the same finalist throws again, and a grand prize it
    won is taken back. `number` is the throw the organiser saw, so a throw recorded in the
    meantime is never voided by mistake."""
    reason = (reason or "").strip()
    if not reason:
        raise UserFacingError("Say why the throw is voided (for example: die 2 was a 5).")
    final = FinalTable.objects.select_for_update().select_related("tournament").get(pk=final.pk)
    last = final.throws.select_related("player").order_by("-number").first()
    if last is None:
        raise UserFacingError("No throw has been recorded yet.")
    if last.number != number or last.voided_at is not None:
        raise UserFacingError(
            f"Only the last throw can be voided, and throw {number} is not it: reload the page."
        )
    if draws.is_published(final.tournament):
        raise UserFacingError("The draw secret is published, so the final table's result is final.")
    took_back = final.winner_id is not None
    last.voided_at, last.voided_by, last.void_reason = timezone.now(), actor, reason[:200]
    last.save(update_fields=["voided_at", "voided_by", "void_reason"])
    if took_back:
        final.winner, final.finished_at = None, None
        final.save(update_fields=["winner", "finished_at"])
    dice = " ".join(map(str, last.dice))
    summary = f"Throw {last.number} ({last.player.name}, {dice}) voided: {reason}"
    if took_back:
        summary += f"; {last.player.name} no longer wins the grand prize"
    audit.record(
        "final.throw_voided",
        summary,
        actor=actor,
        tournament=final.tournament,
        target=final,
        data={"throw": last.number, "dice": last.dice, "winner_taken_back": took_back},
    )
    changes.bump(final.tournament_id)
    return last
