"""Which stage a page shows (`?stage=`, else the latest drawn) and a pod page's address."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse

from tournaments.models import Pod, Stage


def stages_newest_first(tournament) -> list[Stage]:
    return list(tournament.stages.order_by("-drawn_at", "-pk"))


def pick_stage(stages: list[Stage], kind: str | None) -> Stage | None:
    """The stage named by `?stage=`, else the latest one drawn."""
    for stage in stages:
        if stage.kind == kind:
            return stage
    return stages[0] if stages else None


def pod_url(pod: Pod, stage_query: str, round_number: int | None = None) -> str:
    url = reverse("pod-detail", args=[pod.stage.tournament.slug, pod.number])
    query = {"stage": stage_query} if stage_query else {}
    if round_number is not None:
        query["round"] = str(round_number)
    return f"{url}?{urlencode(query)}" if query else url
