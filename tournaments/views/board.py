"""The projector board: every pod's seats, or the final table once it is seated.

Read from across a hall, so type never shrinks below what a name needs to be read there:
up to MAX_ON_ONE_SCREEN pods share one screen (the grid picks the shape that gives the
biggest type); a bigger event pages through its pods, a few at a time in large type, turning
the page every PAGE_SECONDS (the page follows the clock, so every projector shows the same
page; board.js turns it, since the live part is only fetched again when the room changes).
The header gives the seat finder's address in full and as a QR code, and warns when that
address is one only the laptop itself can open. A fixed number of queries whatever the
number of players.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from functools import lru_cache

import segno
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import View

from scoring.presenters.rounds import round_state
from scoring.presenters.standings import ranks, shared_standings
from scoring.services.rounds import progress
from scoring.services.seating import seating_by_pod
from tournaments import http_cache
from tournaments.foundation.site import is_loopback, site_url
from tournaments.foundation.text import whole_number
from tournaments.models import FinalTable, Round, Seat, Tournament
from tournaments.permissions import PUBLIC, TournamentPermissionMixin
from tournaments.presenters.final_table import final_shown
from tournaments.services import cash_planner
from tournaments.services.draws import is_published, unsealed_source, unsealed_words


@dataclass(frozen=True)
class PodBoard:
    number: int
    tables: list[list[Seat]]
    label: str
    ready: bool  # showing the next round's seats


@dataclass(frozen=True)
class BoardPage:
    pods: list[PodBoard]
    number: int
    shown: bool

    @property
    def first(self) -> int:
        return self.pods[0].number

    @property
    def last(self) -> int:
        return self.pods[-1].number


# A pod card needs about CARD_W em across (one name per line, names up to ~22 letters at
# full size) and CARD_H em down (a heading and three tables of four); the grid gets GRID_VW
# of the width and GRID_VH of the height (the header, with the seat finder's QR code, and
# the draw fingerprint's line take the rest). Keep these in step with static/css/board.css.
CARD_W, CARD_H = 15.5, 18.6
GRID_VW, GRID_VH, GAP_VW = 98, 79, 0.9
# With published standings a column of LEADERS_VW (of the screen's width) shows the top ten
# and the pods share what is left.
LEADERS, LEADERS_VW, LEADERS_GAP_VW = 10, 26, 1
# Paging: more pods than this page, each page holding as many pods as fit side by side with
# names of MIN_NAME_PX on a REFERENCE_PX-wide screen (a 1366x768 projector).
MAX_ON_ONE_SCREEN, MIN_NAME_PX, REFERENCE_PX, PAGE_SECONDS = 6, 28, 1366, 10


def grid_shape(pods: int, width_vw: float = GRID_VW) -> tuple[int, int]:
    """Columns and rows that give the biggest type on a 16:9 screen."""
    if pods <= 0:
        return 1, 1
    width, height = 16 * width_vw / 100, 9 * GRID_VH / 100
    best = (0.0, 1, pods)
    for cols in range(1, pods + 1):
        rows = math.ceil(pods / cols)
        size = min(width / cols / CARD_W, height / rows / CARD_H)
        if size > best[0] + 1e-9:
            best = (size, cols, rows)
    return best[1], best[2]


def pods_per_page(width_vw: float = GRID_VW) -> int:
    """How many pods fit side by side, names at MIN_NAME_PX on the reference screen."""
    width_px = width_vw / 100 * REFERENCE_PX
    gap_px = GAP_VW / 100 * REFERENCE_PX
    return max(1, int((width_px + gap_px) // (CARD_W * MIN_NAME_PX + gap_px)))


def paged(pods: list[PodBoard], per_page: int, now: float) -> list[BoardPage]:
    """Pages of nearly equal size (13 pods three at a time: 3, 3, 3, 2, 2), the one to show
    now chosen by the clock."""
    count = math.ceil(len(pods) / per_page)
    small, extra = divmod(len(pods), count)
    showing = int(now // PAGE_SECONDS) % count
    pages, start = [], 0
    for n in range(count):
        size = small + (1 if n < extra else 0)
        pages.append(BoardPage(pods[start : start + size], n + 1, n == showing))
        start += size
    return pages


def pod_range(value: str) -> tuple[int, int] | None:
    """`?pods=1-10` (or `?pods=3`): one board per projector when there are many pods."""
    low, _, high = value.partition("-")
    low_n = whole_number(low.strip())
    high_n = whole_number(high.strip()) if high else low_n
    if low_n is None or high_n is None:
        return None
    return (min(low_n, high_n), max(low_n, high_n))


@lru_cache(maxsize=32)
def qr_svg(url: str) -> str:
    """The QR code as inline SVG (no style attributes, so the content policy allows it)."""
    code = segno.make(url, error="m", micro=False)
    return code.svg_inline(scale=1, border=2, dark="#000", light="#fff", omitsize=True)


class BoardView(TournamentPermissionMixin, View):
    """The projector page; `live` renders only the part fetched again whenever the room changes
    (static/js/live.js), answered from the change counter (http_cache)."""

    permission = PUBLIC
    http_method_names = ["get"]
    live = False

    def get_tournament_queryset(self):
        # The final table comes with the tournament: no extra query while it is not seated.
        return Tournament.objects.select_related(
            "preset", "final__winner", "cashbook_settings", "change_counter"
        ).annotate(unsealed_source=unsealed_source())

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

    def pods(self, state) -> list[PodBoard]:
        pods: list[PodBoard] = []
        if state.current is None:
            return pods
        cur, nxt = state.current, state.next
        shown = pod_range(self.request.GET.get("pods", ""))
        now = seating_by_pod(cur, shown)
        then = seating_by_pod(nxt, shown) if nxt is not None else {}
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
        return pods

    def context(self) -> dict:
        try:
            final = self.tournament.final
        except FinalTable.DoesNotExist:
            final = None
        if final is not None:
            return self.final_context(final)
        state = round_state(self.tournament)
        pods = self.pods(state)
        leaders = []
        grid_vw = GRID_VW
        if self.tournament.standings_public and state.stage is not None:
            # Five queries whatever the number of players, at most once per 20 seconds.
            top = shared_standings(state.stage)[:LEADERS]
            rank_of = ranks(top)
            leaders = [(rank_of[row.player.pk], row) for row in top]
            grid_vw = GRID_VW - LEADERS_VW - LEADERS_GAP_VW
        if len(pods) > MAX_ON_ONE_SCREEN:
            per_page = pods_per_page(grid_vw)
            pages = paged(pods, per_page, time.time())
            cols, rows = per_page, 1
        else:
            pages = [BoardPage(pods, 1, True)] if pods else []
            cols, rows = grid_shape(len(pods), grid_vw)
        finder_url = site_url(self.request) + reverse("seat-finder", args=[self.tournament.slug])
        return {
            "tournament": self.tournament,
            "state": state,
            "unsealed": unsealed_words(self.tournament),
            "pages": pages,
            "paging": len(pages) > 1,
            "page_seconds": PAGE_SECONDS,
            "cols": cols,
            "rows": rows,
            "leaders": leaders,
            "finder_url": finder_url,
            # Line breaks only after a slash, so the address never splits inside a number.
            "finder_url_parts": re.findall(r"(?:\w+://)?[^/]*/+|[^/]+$", finder_url),
            "finder_qr": qr_svg(finder_url),
            "loopback": is_loopback(finder_url),
            "live_url": reverse("board-live", args=[self.tournament.slug])
            + (f"?{self.request.GET.urlencode()}" if self.request.GET else ""),
        }

    def get(self, request, slug):
        template = "scoring/_board_live.html" if self.live else "scoring/board.html"

        def render():
            context = {**self.context(), "raised": cash_planner.board_total(self.tournament)}
            return TemplateResponse(request, template, context)

        # The live part is what every projector asks for again after each change.
        return http_cache.answer(request, self.tournament, render) if self.live else render()


urlpatterns = [
    path("t/<slug:slug>/board/", BoardView.as_view(), name="board"),
    path(
        "t/<slug:slug>/board/live/",
        BoardView.as_view(live=True, reads_account=False),
        name="board-live",
    ),
]
