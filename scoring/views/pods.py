"""Staff pages for a pod: my pods, and one pod's tables in a round (seats, results, where
everyone goes next). The table result form (results.py) shows its table the same way."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.urls import path
from django.views.generic import TemplateView

from scoring.forms import add_pod_page_forms
from scoring.mixins import ENTER, PodAccessMixin
from scoring.models import TableResult
from scoring.presenters.stages import pod_url, stages_newest_first
from scoring.presenters.tables import build_tables, with_credits
from scoring.services.rounds import current_of, current_round, progress
from tournaments import http_cache
from tournaments.foundation import changes
from tournaments.foundation.text import whole_number
from tournaments.models import Pod, Seat, Stage
from tournaments.permissions import TournamentPermissionMixin, has_permission

# --- my pods ----------------------------------------------------------------------------------


@dataclass
class PodSummary:
    pod: Pod
    reported: int
    url: str

    @property
    def complete(self) -> bool:
        return self.reported >= self.pod.tables


class MyPodsView(TournamentPermissionMixin, TemplateView):
    permission = ENTER
    template_name = "scoring/my_pods.html"

    def get_context_data(self, **kwargs):
        user = self.request.user
        every_pod = has_permission(user, self.tournament, "stages.run")
        stages = stages_newest_first(self.tournament)
        pods = Pod.objects.filter(stage__tournament=self.tournament).select_related(
            "stage__tournament", "hostess"
        )
        if not every_pod:
            pods = pods.filter(staff=user)
        pods_by_stage: dict[int, list[Pod]] = {}
        for pod in pods.order_by("number"):
            pods_by_stage.setdefault(pod.stage_id, []).append(pod)
        sections = []
        for stage in stages:
            mine = pods_by_stage.get(stage.pk)
            if not mine:
                continue
            round_ = current_round(stage)
            reported = {p.pod_id: p.reported for p in progress(round_)} if round_ else {}
            query = "" if stage is stages[0] else stage.kind
            sections.append(
                {
                    "stage": stage,
                    # The stage being played comes first; a finished one below it is folded.
                    "folded": bool(sections) and stage.status == Stage.Status.FINISHED,
                    "round": round_,
                    "pods": [
                        PodSummary(pod, reported.get(pod.pk, 0), pod_url(pod, query))
                        for pod in mine
                    ],
                }
            )
        # Every stage played to the end: nothing is left to assign, so the page must not send
        # staff to the organiser for a pod.
        over = bool(stages) and all(s.status == Stage.Status.FINISHED for s in stages)
        # A semi-final drawn while this staff member has pods only in the qualifying stage:
        # say so, or the page shows last stage's closed pods as if nothing were going on.
        newest = stages[0] if stages else None
        unassigned = (
            newest
            if newest is not None
            and sections
            and not every_pod
            and newest.status != Stage.Status.FINISHED
            and newest.pk not in pods_by_stage
            else None
        )
        return super().get_context_data(
            sections=sections,
            every_pod=every_pod,
            drawn=bool(stages),
            over=over,
            unassigned=unassigned,
            **kwargs,
        )


# --- one pod ----------------------------------------------------------------------------------


class PodDetailView(PodAccessMixin, http_cache.LivePart, TemplateView):
    live_template = "scoring/_pod_live.html"
    """The pod's tables for the current round (or `?round=N`): seats, results, next seats.

    A fixed number of queries whatever the size of the event.
    """

    permission = ENTER
    template_name = "scoring/pod_detail.html"

    def live_version(self) -> str:
        """The pod's tables change with the whole room or a save at this pod: a save at
        another pod answers this part 304."""
        return changes.pod_version(self.pod)

    def get_context_data(self, **kwargs):
        pod, stage = self.pod, self.stage
        # The round buttons need no times nor who rang them: a qualifying stage has 18 rounds,
        # and psycopg parses each timestamp in Python.
        rounds = list(
            stage.rounds.only("stage_id", "number", "set_number", "target", "status").order_by(
                "number"
            )
        )
        for r in rounds:
            r.stage = stage
        current = current_of(rounds)
        round_ = current
        wanted = whole_number(self.request.GET.get("round", ""))
        if wanted is not None:
            round_ = next((r for r in rounds if r.number == wanted), None)
            if round_ is None:
                raise Http404("No such round.")
        if round_ is None:
            raise Http404("This stage has no rounds.")
        next_round = next((r for r in rounds if r.number == round_.number + 1), None)
        seats, next_seats = [], []
        for seat in Seat.objects.filter(
            pod=pod, round__in=[r for r in (round_, next_round) if r is not None]
        ).select_related("player"):
            (seats if seat.round_id == round_.pk else next_seats).append(seat)
        results = {
            r.table: r
            for r in with_credits(
                TableResult.objects.filter(round=round_, pod=pod, is_current=True)
            )
        }
        tables = build_tables(pod, seats, results, next_seats)
        add_pod_page_forms(tables, stage, round_)
        next_tables = [
            sorted((s for s in next_seats if s.table == n), key=lambda s: s.seat)
            for n in range(1, pod.tables + 1)
        ]
        return super().get_context_data(
            stage=stage,
            pod=pod,
            round=round_,
            current=current,
            rounds=rounds,
            next_round=next_round,
            next_tables=next_tables if next_seats else [],
            tables=tables,
            reported=len(results),
            stage_query=self.stage_query,
            **kwargs,
        )


urlpatterns = [
    path("t/<slug:slug>/pods/", MyPodsView.as_view(), name="my-pods"),
    path("t/<slug:slug>/pods/<int:number>/", PodDetailView.as_view(), name="pod-detail"),
]
