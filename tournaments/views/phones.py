"""The staff phones' heartbeat: a queue says it is there and how long it is (docs/offline.md).

Answered in JSON; sent with `X-Bunco-Queue: 1` like a queued save, so a phone signed out
meanwhile is told so in JSON too (tournaments/queue.py) instead of sent to the login page.
"""

from __future__ import annotations

from django.urls import path
from django.views.generic import View

from scoring import queue
from scoring.services import phones
from tournaments.foundation.text import count, whole_number

from ..permissions import TournamentPermissionMixin

NOT_STAFF = "Nothing noted: this account staffs no pod of the stage being played."


class StaffSyncView(TournamentPermissionMixin, View):
    """POST, optionally with `pod` (its number) and the `X-Bunco-Queued` header."""

    permission = "results.enter"
    http_method_names = ["post"]

    def post(self, request, slug):
        queued = queue.queued_count(request)
        pods = phones.heartbeat(
            request.user,
            self.tournament,
            queued,
            pod_number=whole_number(request.POST.get("pod", "")),
        )
        if not pods:
            return queue.answer(queue.SAVED, NOT_STAFF)
        numbers = ", ".join(str(pod.number) for pod in pods)
        waiting = f"{count(queued, 'save')} waiting" if queued else "nothing waiting"
        word = "Pod" if len(pods) == 1 else "Pods"
        return queue.answer(queue.SAVED, f"{word} {numbers}: this phone has {waiting}.")


urlpatterns = [
    path("t/<slug:slug>/staff/sync/", StaffSyncView.as_view(), name="staff-sync"),
]
