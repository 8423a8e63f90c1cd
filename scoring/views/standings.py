"""Standings of a stage, overall or per pod, and every card of it as CSV.

The numbers are each player's official card (`scoring.services.cards.standings`): the
agreed card, else what the tables say so far. Staff, admins and organisers always see the
page; the public sees it once the organiser publishes the standings, and then without card
status details. Both the page and the CSV read a stage in a fixed number of queries.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import View

from scoring.mixins import StandingsAccessMixin
from scoring.presenters.stages import pick_stage, stages_newest_first
from scoring.presenters.standings import (
    Ranked,
    advanced_from,
    cards_csv_rows,
    ranks,
    shared_standings,
)
from scoring.rules.cards import Status
from scoring.services.cards import SORT_KEYS, StandingRow, load_stage, standings
from tournaments.foundation import audit
from tournaments.foundation.csv_files import csv_response, to_csv
from tournaments.foundation.text import whole_number
from tournaments.permissions import (
    PUBLIC,
    TournamentPermissionMixin,
    permissions_of,
)

EXPORT = "registrations.view"

# Column headers that sort: (key, label, shown only with snake eyes).
# (key, heading, heading on a phone, a snake-eyes column): short headings keep the table
# inside a 390 px screen, where it scrolled sideways and hid the card column.
COLUMNS = [
    ("pod", "Pod", "Pod", False),
    ("wins", "Wins", "W", False),
    ("losses", "Losses", "L", False),
    ("buncos", "Buncos", "B", False),
    ("minis", "Minis", "M", False),
    ("snake_eyes", "Snake eyes", "SE", True),
]


def ordered(rows: list[StandingRow], *, sort: str, pod: int | None) -> list[StandingRow]:
    return sorted((r for r in rows if pod is None or r.pod == pod), key=SORT_KEYS[sort])


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
                advanced=advanced_from(stage),
                columns=[
                    (key, label, short, link(sort=key))
                    for key, label, short, snake in COLUMNS
                    if snake_eyes or not snake
                ],
                name_sort_url=link(sort="name"),
                verified=sum(1 for r in rows if r.status == Status.VERIFIED),
                csv_url=reverse("cards-csv", args=[slug])
                + (f"?{urlencode(stage_query)}" if stage_query else ""),
            )
        return TemplateResponse(request, "scoring/standings/standings.html", context)


# --- every card as CSV ------------------------------------------------------------------------


class CardsCsvView(TournamentPermissionMixin, View):
    """Every player's card of a stage (`?stage=`, default the latest) for a spreadsheet."""

    permission = EXPORT
    http_method_names = ["get"]

    def get(self, request, slug):
        stages = stages_newest_first(self.tournament)
        stage = pick_stage(stages, request.GET.get("stage"))
        kind = stage.kind if stage else "none"
        if stage is None:
            text = to_csv([["player", "code", "pod", "status"]])
        else:
            text = to_csv(cards_csv_rows(load_stage(stage)))
        audit.record(
            "cards.exported",
            f"Score cards of the {stage.get_kind_display().lower() if stage else 'event'} "
            "exported as CSV",
            actor=request.user,
            tournament=self.tournament,
        )
        return csv_response(text, f"{self.tournament.slug}-{kind}-cards.csv")


urlpatterns = [
    path("t/<slug:slug>/standings/", StandingsView.as_view(), name="standings"),
    path("t/<slug:slug>/standings/cards.csv", CardsCsvView.as_view(), name="cards-csv"),
]
