"""One tie, one roll-off: the stored roll-offs as the cut and the prizes read them.

A roll-off is stored once (`RollOff`), whichever page threw it. The cut reads its own and
the prizes'; the prizes read their own and the cut's; `tournaments.rules.roll_offs` says which
tie is which, and each side checks that the other's faces settle its own tie before using
them. Only the newest version of a roll-off counts: an earlier one is kept, not used.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.rules import RuleError
from tournaments.rules.advancement import Tie, settle
from tournaments.rules.roll_offs import Tied, cut_key, cut_tied, prize_tied, settled_by

from ..models import PrizeCategory, Qualifier, RollOff, Stage, Tournament
from ..rules.prizes import PrizeTie, settle_prize_tie


@dataclass(frozen=True)
class ForCut:
    """A stage's own roll-offs by group and category, and the prize ones of the event."""

    cuts: dict[str, dict[str, RollOff]]
    prizes: tuple[tuple[Tied | None, RollOff], ...]

    def shared(self, stage_kind: str, tie: Tie) -> RollOff | None:
        """The prize roll-off of this very tie, when its dice settle the cut's tie too."""
        tied = cut_tied(stage_kind, str(tie.group), tie.category_key, tie.players)
        found = settled_by(tied, self.prizes)
        if found is None:
            return None
        try:
            settle(tie, list(found.faces))
        except RuleError:
            return None  # the prize tie was for fewer places: its dice do not settle this one
        return found


def for_cut(stage: Stage) -> ForCut:
    cuts: dict[str, dict[str, RollOff]] = {}
    prizes = []
    for record in (
        RollOff.objects.current()
        .filter(tournament_id=stage.tournament_id)
        .select_related("stage", "recorded_by")
    ):
        if record.kind == RollOff.Kind.CUT and record.stage_id == stage.pk:
            cuts.setdefault(record.group, {})[record.category_key] = record
        elif record.kind == RollOff.Kind.PRIZE:
            prizes.append((record.tied(), record))
    return ForCut(cuts, tuple(prizes))


@dataclass(frozen=True)
class ForPrizes:
    """The prize roll-offs by tie key, and the cut roll-offs a prize tie may share."""

    prizes: dict[str, RollOff]
    cuts: tuple[tuple[Tied | None, RollOff], ...]

    def own(self, tie: PrizeTie) -> RollOff | None:
        """Used only for the tie it was thrown for (same key, same players): after a card is
        corrected, the tie may be gone or be between other players, and is thrown anew."""
        record = self.prizes.get(tie.key)
        return record if record is not None and list(record.players) == list(tie.players) else None

    def shared(self, tie: PrizeTie, category: PrizeCategory) -> RollOff | None:
        """The cut's roll-off of this very tie, when its dice settle the prize tie too."""
        tied = prize_tied(
            category.stage_kind, category.scope, category.measure, tie.scope_group, tie.players
        )
        found = settled_by(tied, self.cuts)
        if found is None:
            return None
        try:
            settle_prize_tie(tie, list(found.faces))
        except RuleError:
            return None  # the cut's tie was for fewer places: its dice do not settle this one
        return found


def for_prizes(tournament: Tournament) -> ForPrizes:
    prizes: dict[str, RollOff] = {}
    cuts = []
    for record in (
        RollOff.objects.current()
        .filter(tournament=tournament)
        .select_related("stage", "recorded_by")
    ):
        if record.kind == RollOff.Kind.PRIZE:
            prizes[record.key] = record
        elif record.kind == RollOff.Kind.CUT:
            cuts.append((record.tied(), record))
    return ForPrizes(prizes, tuple(cuts))


def cut_roll_offs(stage: Stage, qualifiers: list[Qualifier]) -> dict[tuple[str, str], RollOff]:
    """Every roll-off that settled a tie of this stage's saved cut, by (pod, category): its
    own, and a prize roll-off of the same tie whose winners advanced after a roll-off there.
    Read from the stored rows in one query, so the public results page stays cheap."""
    rows = list(RollOff.objects.current().filter(stage=stage).select_related("stage"))
    found = {(r.group, r.category_key): r for r in rows if r.kind == RollOff.Kind.CUT}
    via: dict[tuple[str, str], set[int]] = {}
    for q in qualifiers:
        if q.via_roll_off:
            via.setdefault((q.group.rsplit(" ", 1)[-1], q.category_key), set()).add(q.player_id)
    for r in rows:
        tied = r.tied() if r.kind == RollOff.Kind.PRIZE else None
        cut = cut_key(tied) if tied else None
        if cut and cut not in found and set(r.winners) <= via.get(cut, set()):
            found[cut] = r
    return found
