"""The one door every roll-off's dice come in by, whichever page the tie is shown on.

A cut's tie is named by its stage, group and category, a prize tie by its key; both are
settled by the engine's roll-off and stored as one `RollOff` row. The kind-specific checks
(the stage is closed, the tie is still pending, a shared tie is already settled) stay with
the service that plans that kind's ties, since only it knows which ties are pending.
"""

from __future__ import annotations

from ..models import RollOff, Tournament
from . import advancement, prizes


def record(
    tournament: Tournament, kind: str, tie: dict[str, str], *, actor, faces: list[int] | None
) -> RollOff:
    """Stores the dice of one pending tie: `faces` as typed in throw order, or None for the
    site to roll from the tournament's draw secret."""
    if kind == RollOff.Kind.PRIZE:
        return prizes.record_prize_roll_off(tournament, tie["key"], actor=actor, faces=faces)
    stage = advancement.drawn_stage(tournament, tie["stage"])
    return advancement.record_roll_off(
        stage, tie["group"], tie["category"], actor=actor, faces=faces
    )
