"""What the organiser knows about the staff phones: when each pod's staff last reached the
server, and how many saves their phones said were still waiting.

A phone that lost the venue Wi-Fi keeps its saves in a queue (docs/offline.md); the
organiser cannot see the phone, so before closing a round they need to know whether a pod's
results are missing or only waiting on a phone. Every save a phone sends leaves a receipt
(services/idempotency.py), and its queue reports its length on each save and on a small
heartbeat; the stage page reads both in one query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import OuterRef, Subquery, Sum
from django.utils import timezone

from tournaments.models import PhoneSync, Pod, Stage, Tournament, WriteReceipt


@dataclass(frozen=True)
class PodPhones:
    last_synced: datetime | None  # the last save or heartbeat from one of the pod's staff
    queued: int  # saves their phones last said were still waiting

    @property
    def waiting(self) -> bool:
        return self.queued > 0


def report(account, pod: Pod, queued: int | None) -> None:
    """Notes that the account's phone reached the server about this pod just now, with the
    length of its queue when it said it."""
    values: dict = {"synced_at": timezone.now()}
    if queued is not None:
        values["queued"] = queued
    PhoneSync.objects.update_or_create(account=account, pod=pod, defaults=values)


def heartbeat(
    account, tournament: Tournament, queued: int | None, *, pod_number: int | None = None
) -> list[Pod]:
    """A phone saying it is there (and how long its queue is) for the account's pods in the
    stage being played, or for one of them; returns the pods noted (none for an organiser
    who staffs no pod: their phone is not a pod's)."""
    stage = tournament.stages.order_by("-drawn_at", "-pk").first()
    pods = list(Pod.objects.filter(stage=stage, staff=account).order_by("number"))
    if pod_number is not None:
        pods = [pod for pod in pods if pod.number == pod_number]
    for pod in pods:
        report(account, pod, queued)
    return pods


def pod_phones(stage: Stage) -> dict[int, PodPhones]:
    """Per pod id, what its own staff's phones last said (an organiser's saves do not count:
    they are not the pod's phones). One query, whatever the number of pods."""
    mine = {"pod": OuterRef("pk"), "account__pods": OuterRef("pk")}
    last_write = WriteReceipt.objects.filter(**mine).order_by("-created_at").values("created_at")
    syncs = PhoneSync.objects.filter(**mine)
    last_seen = syncs.order_by("-synced_at").values("synced_at")
    waiting = syncs.order_by().values("pod").annotate(total=Sum("queued")).values("total")
    rows = (
        Pod.objects.filter(stage=stage)
        .annotate(
            last_write=Subquery(last_write[:1]),
            last_seen=Subquery(last_seen[:1]),
            waiting=Subquery(waiting),
        )
        .values_list("pk", "last_write", "last_seen", "waiting")
    )
    return {
        pk: PodPhones(max((t for t in (write, seen) if t is not None), default=None), total or 0)
        for pk, write, seen, total in rows
    }
