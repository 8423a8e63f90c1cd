"""Standings of a stage, overall or per pod, and every card of it as CSV.

The numbers are each player's official card (`scoring.services.cards.standings`): the
agreed card, else what the tables say so far. Staff, admins and organisers always see the
page; the public sees it once the organiser publishes the standings, and then without card
status details. Both the page and the CSV read a stage in a fixed number of queries.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.cache import cache
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import View

from tournaments.forms.numbers import whole_number
from tournaments.permissions import (
    PUBLIC,
    TournamentPermissionMixin,
    has_permission,
    permissions_of,
)
from tournaments.services import audit
from tournaments.services.csv_io import neutralise

from ..cards import STATUS_LABELS, Status
from ..services.cards import SORT_KEYS, StandingRow, load_stage, standings
from .cards import STATUS_BADGES, usernames
from .results import pick_stage, stages_newest_first

VIEW = "tournament.view"
EXPORT = "registrations.view"

# Column headers that sort: (key, label, shown only with snake eyes).
COLUMNS = [
    ("pod", "Pod", False),
    ("wins", "Wins", False),
    ("losses", "Losses", False),
    ("buncos", "Buncos", False),
    ("minis", "Minis", False),
    ("snake_eyes", "Snake eyes", True),
]


@dataclass(frozen=True)
class Ranked:
    rank: int
    row: StandingRow

    @property
    def label(self) -> str:
        return STATUS_LABELS[self.row.status]

    @property
    def badge(self) -> str:
        return STATUS_BADGES[self.row.status]

    @property
    def verified(self) -> bool:
        return self.row.status == Status.VERIFIED


# The board (every projector polls every 5 s) and public visitors share one reading of the
# stage for this long: reading a fully played stage of 1,200 players takes about a second.
# Staff, admins and organisers always get fresh numbers.
SHARED_SECONDS = 20


def shared_standings(stage) -> list[StandingRow]:
    """Every row of `stage` in the default order, computed at most once per SHARED_SECONDS."""
    key = f"standings:{stage.pk}:{stage.drawn_at.timestamp()}"
    return cache.get_or_set(key, lambda: standings(load_stage(stage)), SHARED_SECONDS)


def ordered(rows: list[StandingRow], *, sort: str, pod: int | None) -> list[StandingRow]:
    return sorted((r for r in rows if pod is None or r.pod == pod), key=SORT_KEYS[sort])


def ranks(rows: list[StandingRow]) -> dict[int, int]:
    """Rank by wins then buncos; players level on both share a rank (1, 2, 2, 4)."""
    result: dict[int, int] = {}
    previous = None
    for position, row in enumerate(sorted(rows, key=SORT_KEYS["wins"]), start=1):
        key = (row.card.wins, row.card.buncos)
        if key != previous:
            rank, previous = position, key
        result[row.player.pk] = rank
    return result


class StandingsAccessMixin:
    """Public once published; before that, anyone who may see the tournament's dashboard."""

    def dispatch(self, request, *args, **kwargs):
        self.insider = has_permission(request.user, self.tournament, VIEW)
        if not (self.tournament.standings_public or self.insider):
            # A player's shared link: say so, instead of the staff sign-in page.
            return TemplateResponse(
                request,
                "scoring/not_published.html",
                {"tournament": self.tournament},
                status=403,
            )
        return super().dispatch(request, *args, **kwargs)


class StandingsView(TournamentPermissionMixin, StandingsAccessMixin, View):
    permission = PUBLIC  # checked in StandingsAccessMixin: the flag, else `tournament.view`
    http_method_names = ["get"]

    def get(self, request, slug):
        stages = stages_newest_first(self.tournament)
        stage = pick_stage(stages, request.GET.get("stage"))
        sort = request.GET.get("sort", "wins")
        if sort not in SORT_KEYS:
            sort = "wins"
        pod = request.GET.get("pod", "")
        pod_number = whole_number(pod)
        context = {
            "tournament": self.tournament,
            "perms_here": permissions_of(request.user, self.tournament),
            "insider": self.insider,
            "stages": stages,
            "stage": stage,
            "sort": sort,
            "pod": pod_number,
            "rows": [],
            "pods": [],
        }
        if stage is not None:
            every = standings(load_stage(stage)) if self.insider else shared_standings(stage)
            pods = sorted({r.pod for r in every})
            if pod_number not in pods:
                pod_number = None
            rows = ordered(every, sort=sort, pod=pod_number)
            rank_of = ranks(rows)
            stage_query = {} if stage is stages[0] else {"stage": stage.kind}
            base = reverse("standings", args=[slug])

            def link(**changes) -> str:
                query = {**stage_query, "pod": pod_number, "sort": sort, **changes}
                if query["sort"] == "wins":  # the default order needs no parameter
                    query["sort"] = None
                query = {k: v for k, v in query.items() if v is not None}
                return f"{base}?{urlencode(query)}" if query else base

            snake_eyes = bool(stage.rules.get("snake_eyes"))
            context.update(
                pod=pod_number,
                rows=[Ranked(rank_of[r.player.pk], r) for r in rows],
                pods=[(n, link(pod=n)) for n in pods],
                all_pods_url=link(pod=None),
                stage_links=[
                    (s, f"{base}?{urlencode({'stage': s.kind})}" if s is not stages[0] else base)
                    for s in stages
                ],
                snake_eyes=snake_eyes,
                columns=[
                    (key, label, link(sort=key))
                    for key, label, snake in COLUMNS
                    if snake_eyes or not snake
                ],
                name_sort_url=link(sort="name"),
                verified=sum(1 for r in rows if r.status == Status.VERIFIED),
                shared_seconds=SHARED_SECONDS,
                csv_url=reverse("cards-csv", args=[slug])
                + (f"?{urlencode(stage_query)}" if stage_query else ""),
            )
        return TemplateResponse(request, "scoring/standings/standings.html", context)


# --- every card as CSV ------------------------------------------------------------------------


def cards_csv_rows(cards) -> list[list]:
    stage = cards.stage
    snake_eyes = bool(stage.rules.get("snake_eyes"))
    targets = stage.targets
    totals = ["wins", "losses", "buncos", "minis"] + (["snake_eyes"] if snake_eyes else [])
    header = ["player", "code", "pod"]
    header += [
        f"round_{n}_{targets[(n - 1) % len(targets)]}s" for n in range(1, stage.round_count + 1)
    ]
    header += totals + ["status", "version", "entered_by", "confirmed_by"]
    names = usernames(cards)
    rows = [header]
    for row in standings(cards, sort="pod"):
        pid = row.player.pk
        versions = cards.versions.get(pid, [])
        current = versions[-1] if versions else None
        checker = cards.states[pid].checked_by
        marks = list(row.card.rounds) or [None] * stage.round_count
        rows.append(
            [
                neutralise(row.player.name),
                neutralise(row.player.code),
                row.pod,
                *[mark or "" for mark in marks],
                *[getattr(row.card, name) for name in totals],
                STATUS_LABELS[row.status],
                current.version if current else "",
                neutralise(names.get(current.entered_by_id, "")) if current else "",
                neutralise(names.get(checker, "")) if checker else "",
            ]
        )
    return rows


class CardsCsvView(TournamentPermissionMixin, View):
    """Every player's card of a stage (`?stage=`, default the latest) for a spreadsheet."""

    permission = EXPORT
    http_method_names = ["get"]

    def get(self, request, slug):
        stages = stages_newest_first(self.tournament)
        stage = pick_stage(stages, request.GET.get("stage"))
        out = io.StringIO()
        out.write("\ufeff")  # so Excel reads it as UTF-8
        writer = csv.writer(out)
        kind = stage.kind if stage else "none"
        if stage is None:
            writer.writerow(["player", "code", "pod", "status"])
        else:
            writer.writerows(cards_csv_rows(load_stage(stage)))
        audit.record(
            "cards.exported",
            f"Score cards of the {stage.get_kind_display().lower() if stage else 'event'} "
            "exported as CSV",
            actor=request.user,
            tournament=self.tournament,
        )
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="{self.tournament.slug}-{kind}-cards.csv"'
        )
        return response


urlpatterns = [
    path("t/<slug:slug>/standings/", StandingsView.as_view(), name="standings"),
    path("t/<slug:slug>/standings/cards.csv", CardsCsvView.as_view(), name="cards-csv"),
]
