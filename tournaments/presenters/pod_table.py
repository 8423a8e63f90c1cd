"""The stage page's pod table, a page of pods at a time, and who can still be seated."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.services.phones import PodPhones
from scoring.services.seating import seating_by_pod

from ..forms.stages import registered_players
from ..models import Player, Pod, RosterChange, Round, Seat, Stage
from ..services.ghost_seats import changes_after


@dataclass
class PodRow:
    pod: Pod
    tables: list[list[Seat]]
    # Who plays in the pod from the next round that can change on (pending changes applied).
    members: list[Player] = field(default_factory=list)
    staff_ids: set[int] = field(default_factory=set)
    phones: PodPhones | None = None  # when its staff's phones last synced, what they hold
    # The round a late arrival or a leaver changes the pod from, when that is after the
    # round shown: the counts then describe that round, as `members` does.
    changes_from: int | None = None

    @property
    def player_seats(self) -> int:
        return len(self.members)

    @property
    def ghost_seats(self) -> int:
        return sum(len(table) for table in self.tables) - len(self.members)

    @property
    def hostess_options(self) -> list[Player]:
        """The pod's players, plus the hostess herself if she has left the pod."""
        hostess = self.pod.hostess
        if hostess is not None and all(p.pk != hostess.pk for p in self.members):
            return sorted([*self.members, hostess], key=lambda p: (p.name, p.pk))
        return self.members


def unseated_players(tournament, shown: Round | None, changes: list[RosterChange]) -> list[Player]:
    """Registered players without a seat from the next round that can change on (the seats
    of the round shown, with the later changes applied), those checked in first."""
    players = registered_players(tournament)
    if shown is not None:
        seated = Seat.objects.filter(round=shown, player__isnull=False).values("player")
        players = players.exclude(pk__in=seated)
    later = changes_after(shown, changes)
    joined = {c.player_id for c in later if c.kind == RosterChange.Kind.JOIN}
    found = [p for p in players if p.pk not in joined]
    found += [
        c.player
        for c in later
        if c.kind != RosterChange.Kind.JOIN and c.player.status == Player.Status.REGISTERED
    ]
    return sorted(found, key=lambda p: (p.checked_in_at is None, p.name, p.pk))


def pod_rows(
    stage: Stage, shown: Round | None, changes: list[RosterChange], numbers: tuple[int, int]
) -> list[PodRow]:
    """The rows of pods `numbers` (low, high): a page of the pod table."""
    pods = list(
        stage.pods.filter(number__range=numbers)
        .order_by("number")
        .select_related("hostess")
        .prefetch_related("staff")
    )
    seating = seating_by_pod(shown, numbers) if shown is not None else {}
    pending: dict[int, list[RosterChange]] = {}
    for change in changes_after(shown, changes):
        pending.setdefault(change.pod_id, []).append(change)
    rows = []
    for pod in pods:
        tables = seating.get(pod.pk, [])
        members = {s.player_id: s.player for table in tables for s in table if s.player_id}
        for change in pending.get(pod.pk, []):
            if change.kind == RosterChange.Kind.JOIN:
                members[change.player_id] = change.player
            else:
                members.pop(change.player_id, None)
        later = pending.get(pod.pk, [])
        rows.append(
            PodRow(
                pod=pod,
                tables=tables,
                members=sorted(members.values(), key=lambda p: (p.name, p.pk)),
                staff_ids={u.pk for u in pod.staff.all()},
                changes_from=max((c.from_round for c in later), default=None),
            )
        )
    return rows
