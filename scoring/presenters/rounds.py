"""Where the room stands (the latest stage's current and next round, in words) and where the
players a search found sit."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from scoring.rules.table import partner_number
from scoring.services.rounds import current_of
from tournaments.models import Player, Round, Seat, Stage


@dataclass(frozen=True)
class RoundState:
    stage: Stage | None
    current: Round | None
    next: Round | None

    @property
    def headline(self) -> str:
        cur, nxt = self.current, self.next
        if self.stage is None or cur is None:
            return "The pods have not been drawn yet."
        if cur.status == Round.Status.PENDING:
            return f"Round {cur.number} — take your seats"
        if cur.status == Round.Status.OPEN:
            return f"Round {cur.number} — playing"
        if nxt is not None:
            return f"Round {cur.number} closed — move to your round {nxt.number} seats"
        return f"Round {cur.number} closed — {self.stage.get_kind_display().lower()} finished"

    @property
    def without_seat(self) -> str:
        """For a checked-in player with no seat in this stage. In the qualifying that is a
        late arrival the desk seats; in a later stage it is everyone who did not go on, and
        sending them all to the desk would queue half the room there."""
        kind = self.stage.get_kind_display().lower()
        if self.stage.kind == Stage.Kind.QUALIFYING:
            return f"No seat in the {kind} yet: ask at the front desk."
        return f"Not playing in the {kind}: it seats only the players who went on."


def round_state(tournament) -> RoundState:
    """The latest stage and its current and next rounds, in two queries whatever the size
    of the event (the seat finder and the board ask on every poll)."""
    stage = tournament.stages.order_by("-drawn_at", "-pk").first()
    if stage is None:
        return RoundState(None, None, None)
    rounds = list(stage.rounds.order_by("number"))
    cur = current_of(rounds)
    nxt = next((r for r in rounds if cur is not None and r.number == cur.number + 1), None)
    return RoundState(stage, cur, nxt)


@dataclass(frozen=True)
class Match:
    name: str
    go_to: Placement | None
    go_to_label: str
    before: Placement | None = None
    before_label: str = ""
    which: str = ""  # tells apart players of the same name
    checked_in: bool = True


def placements(state: RoundState, players: list[Player]) -> list[Match]:
    rounds = [r for r in (state.current, state.next) if r is not None]
    # Every seat at a table where one of the players sits, in one query: the players' own
    # seats and their partners'. The seat finder is the page the whole room polls, so this
    # replaced two queries, one of them an OR per seat that cost more to build than to run.
    # Only the pods the players sit in are read, not the whole round's seats.
    theirs = Seat.objects.filter(round__in=rounds, player__in=players)
    at_their_table = Seat.objects.filter(
        round=OuterRef("round"), pod=OuterRef("pod"), table=OuterRef("table"), player__in=players
    )
    by_place: dict[tuple, Seat] = {}
    for seat in (
        Seat.objects.filter(round__in=rounds, pod__in=theirs.values("pod"))
        .filter(Exists(at_their_table))
        .select_related("pod", "player")
    ):
        by_place[(seat.round_id, seat.pod_id, seat.table, seat.seat)] = seat
    wanted = {p.pk for p in players}
    by_player: dict[tuple[int, int], Placement] = {}
    round_by_id = {r.pk: r for r in rounds}
    for (round_id, pod_id, table, number), s in by_place.items():
        if s.player_id in wanted:
            partner = by_place.get((round_id, pod_id, table, partner_number(number)))
            by_player[(s.player_id, round_id)] = Placement(round_by_id[round_id], s, partner)

    cur, nxt = state.current, state.next
    matches = []
    which = which_of(players[:MAX_MATCHES])
    for player in players[:MAX_MATCHES]:
        tell = {"which": which.get(player.pk, ""), "checked_in": player.checked_in_at is not None}
        now = by_player.get((player.pk, cur.pk))
        then = by_player.get((player.pk, nxt.pk)) if nxt else None
        if then is not None:
            done = "finished" if cur.status == Round.Status.OPEN else "closed"
            matches.append(
                Match(
                    player.name,
                    then,
                    f"Round {nxt.number} — go to:",
                    now,
                    f"Round {cur.number} ({done}):",
                    **tell,
                )
            )
        elif now is not None:
            label = {
                Round.Status.PENDING: f"Round {cur.number} — go to:",
                Round.Status.OPEN: f"Round {cur.number} — playing at:",
            }.get(cur.status, f"Round {cur.number} — played at:")
            matches.append(Match(player.name, now, label, **tell))
        else:
            matches.append(Match(player.name, None, "", **tell))
    return matches


MAX_MATCHES = 10


@dataclass(frozen=True)
class Placement:
    round: Round
    seat: Seat
    partner: Seat | None

    @property
    def head(self) -> bool:
        return self.seat.table == 1

    @property
    def where(self) -> str:
        return f"Pod {self.seat.pod.number}, table {self.seat.table}, seat {self.seat.seat}"

    @property
    def partner_name(self) -> str:
        if self.partner is None:
            return ""
        if self.partner.player_id is None:
            return "a ghost — you roll for both of you"
        return self.partner.player.name


def which_of(players: list[Player]) -> dict[int, str]:
    """For players sharing a name: their group when the groups differ, else the last two
    characters of their code (enough to tell them apart, too few to look up a card)."""
    by_name: dict[str, list[Player]] = {}
    for player in players:
        by_name.setdefault(player.name.strip().lower(), []).append(player)
    which: dict[int, str] = {}
    for same in by_name.values():
        if len(same) < 2:
            continue
        groups = [p.group_name.strip() for p in same]
        use_groups = all(groups) and len(set(g.lower() for g in groups)) == len(groups)
        for player, group in zip(same, groups, strict=True):
            which[player.pk] = group if use_groups else f"code ending …{player.code[-2:]}"
    return which
