"""Public pages: a player finds their seat on a phone; the board shows every pod on a projector.

Both read the latest stage. Once a pod's tables have all reported (or the round is closed),
the next round's seats exist and are the ones to walk to, so both pages show those first.
Once the final table is seated the board shows it instead: the four finalists, each throw as
it is recorded, and the grand prize winner. Neither page shows e-mails, phone numbers or
registration codes. Each runs a fixed number of queries whatever the number of players.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import Case, Exists, IntegerField, OuterRef, Q, Value, When
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import View

from tournaments.forms.numbers import whole_number
from tournaments.forms.search import SearchForm
from tournaments.models import FinalTable, Player, Round, Seat, Stage, Tournament
from tournaments.permissions import PUBLIC, TournamentPermissionMixin
from tournaments.services import cash_planner
from tournaments.services.draws import is_published
from tournaments.services.rounds import current_round, progress
from tournaments.services.seating import seating_by_pod
from tournaments.views.advancement import final_shown

from ..rules.table import partner_number
from .results import stages_newest_first
from .standings import ranks, shared_standings

MAX_MATCHES = 10
MIN_QUERY = 2


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


def round_state(tournament) -> RoundState:
    stages = stages_newest_first(tournament)
    if not stages:
        return RoundState(None, None, None)
    stage = stages[0]
    cur = current_round(stage)
    nxt = None
    if cur is not None:
        nxt = stage.rounds.filter(number=cur.number + 1).first()
    return RoundState(stage, cur, nxt)


# --- find my seat -----------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Match:
    name: str
    go_to: Placement | None
    go_to_label: str
    before: Placement | None = None
    before_label: str = ""


def find_players(tournament, query: str) -> list[Player]:
    """Up to MAX_MATCHES + 1 registered players by code (exact) or name (contains)."""
    code = query.replace(" ", "").upper()
    return list(
        Player.objects.filter(tournament=tournament, status=Player.Status.REGISTERED)
        .filter(Q(name__icontains=query) | Q(code=code))
        .annotate(
            by_code=Case(
                When(code=code, then=Value(0)), default=Value(1), output_field=IntegerField()
            )
        )
        .order_by("by_code", "name", "pk")
        .only("pk", "name")[: MAX_MATCHES + 1]
    )


def placements(state: RoundState, players: list[Player]) -> list[Match]:
    rounds = [r for r in (state.current, state.next) if r is not None]
    # Every seat at a table where one of the players sits, in one query: the players' own
    # seats and their partners'. The seat finder is the page the whole room polls, so this
    # replaced two queries, one of them an OR per seat that cost more to build than to run.
    at_their_table = Seat.objects.filter(
        round=OuterRef("round"), pod=OuterRef("pod"), table=OuterRef("table"), player__in=players
    )
    by_place: dict[tuple, Seat] = {}
    for seat in (
        Seat.objects.filter(round__in=rounds)
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
    for player in players[:MAX_MATCHES]:
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
                )
            )
        elif now is not None:
            label = {
                Round.Status.PENDING: f"Round {cur.number} — go to:",
                Round.Status.OPEN: f"Round {cur.number} — playing at:",
            }.get(cur.status, f"Round {cur.number} — played at:")
            matches.append(Match(player.name, now, label))
        else:
            matches.append(Match(player.name, None, ""))
    return matches


class SeatFinderView(TournamentPermissionMixin, View):
    """A GET form (works without JavaScript); with htmx the results fill in as one types."""

    permission = PUBLIC
    http_method_names = ["get"]

    def get(self, request, slug):
        query = SearchForm(request.GET).query
        state = round_state(self.tournament)
        context = {
            "tournament": self.tournament,
            "state": state,
            "q": query,
            "too_short": bool(query) and len(query) < MIN_QUERY,
            "matches": [],
            "more": False,
        }
        if len(query) >= MIN_QUERY and state.current is not None:
            players = find_players(self.tournament, query)
            context["matches"] = placements(state, players)
            context["more"] = len(players) > MAX_MATCHES
        template = (
            "scoring/_seat_results.html"
            if request.htmx and not request.htmx.history_restore_request
            else "scoring/seat_finder.html"
        )
        return TemplateResponse(request, template, context)


# --- the board --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PodBoard:
    number: int
    tables: list[list[Seat]]
    label: str
    ready: bool  # showing the next round's seats


# A pod card needs about CARD_W em across (one name per line, names up to ~22 letters at
# full size) and CARD_H em down (a heading and three tables of four); the grid gets 97% of
# the width and 83.5% of the height (the header and the draw fingerprint's line take the
# rest). Keep these in step with the board's CSS.
CARD_W, CARD_H = 15.5, 18.6
GRID_W, GRID_H = 16 * 0.97, 9 * 0.835
# With published standings a column of LEADERS_VW (of the screen's width) shows the top ten
# and the pods share what is left; `_board_live.html` uses the same numbers.
LEADERS, LEADERS_VW, LEADERS_GAP_VW = 10, 26, 1


def grid_shape(pods: int, width: float = GRID_W) -> tuple[int, int]:
    """Columns and rows that give the biggest type on a 16:9 screen."""
    if pods <= 0:
        return 1, 1
    best = (0.0, 1, pods)
    for cols in range(1, pods + 1):
        rows = math.ceil(pods / cols)
        size = min(width / cols / CARD_W, GRID_H / rows / CARD_H)
        if size > best[0] + 1e-9:
            best = (size, cols, rows)
    return best[1], best[2]


def pod_range(value: str) -> tuple[int, int] | None:
    """`?pods=1-10` (or `?pods=3`): one board per projector when there are many pods."""
    low, _, high = value.partition("-")
    low_n = whole_number(low.strip())
    high_n = whole_number(high.strip()) if high else low_n
    if low_n is None or high_n is None:
        return None
    return (min(low_n, high_n), max(low_n, high_n))


class BoardView(TournamentPermissionMixin, View):
    """The projector page; `live` renders only the part htmx swaps in every 5 seconds."""

    permission = PUBLIC
    http_method_names = ["get"]
    live = False

    def get_tournament_queryset(self):
        # The final table comes with the tournament: no extra query while it is not seated.
        return Tournament.objects.select_related("preset", "final__winner", "cashbook_settings")

    def final_context(self, final: FinalTable) -> dict:
        """Three queries (tournament, seats, throws) however many players there are."""
        return {
            "tournament": self.tournament,
            "final": final,
            "shown": final_shown(final),
            "draws_published": final.winner_id is not None and is_published(self.tournament),
            "confetti": range(36),
            "live_url": reverse("board-live", args=[self.tournament.slug]),
        }

    def context(self) -> dict:
        try:
            final = self.tournament.final
        except FinalTable.DoesNotExist:
            final = None
        if final is not None:
            return self.final_context(final)
        state = round_state(self.tournament)
        pods: list[PodBoard] = []
        if state.current is not None:
            cur, nxt = state.current, state.next
            now = seating_by_pod(cur)
            then = seating_by_pod(nxt) if nxt is not None else {}
            shown = pod_range(self.request.GET.get("pods", ""))
            for p in progress(cur):
                if shown and not shown[0] <= p.number <= shown[1]:
                    continue
                if then.get(p.pod_id):
                    label = f"Round {nxt.number} seats"
                    pods.append(PodBoard(p.number, then[p.pod_id], label, True))
                else:
                    if cur.status == Round.Status.OPEN:
                        label = f"{p.reported}/{p.tables} reported"
                    else:
                        label = f"Round {cur.number} seats"
                    pods.append(PodBoard(p.number, now.get(p.pod_id, []), label, False))
        leaders = []
        grid_vw = 97
        if self.tournament.standings_public and state.stage is not None:
            # Five queries whatever the number of players, at most once per 20 seconds.
            top = shared_standings(state.stage)[:LEADERS]
            rank_of = ranks(top)
            leaders = [(rank_of[row.player.pk], row) for row in top]
            grid_vw = 97 - LEADERS_VW - LEADERS_GAP_VW
        cols, rows = grid_shape(len(pods), width=16 * grid_vw / 100)
        return {
            "tournament": self.tournament,
            "state": state,
            "pods": pods,
            "cols": cols,
            "rows": rows,
            "leaders": leaders,
            "grid_vw": grid_vw,
            "leaders_vw": LEADERS_VW,
            "finder_url": self.request.build_absolute_uri(
                reverse("seat-finder", args=[self.tournament.slug])
            ),
            "live_url": reverse("board-live", args=[self.tournament.slug])
            + (f"?{self.request.GET.urlencode()}" if self.request.GET else ""),
        }

    def get(self, request, slug):
        template = "scoring/_board_live.html" if self.live else "scoring/board.html"
        return TemplateResponse(
            request,
            template,
            {**self.context(), "raised": cash_planner.board_total(self.tournament)},
        )


urlpatterns = [
    path("t/<slug:slug>/seat/", SeatFinderView.as_view(), name="seat-finder"),
    path("t/<slug:slug>/board/", BoardView.as_view(), name="board"),
    path("t/<slug:slug>/board/live/", BoardView.as_view(live=True), name="board-live"),
]
