"""One Save for the staff of every pod on the stage page (see `services.pod_staff`)."""

from __future__ import annotations

from django.urls import path

from tournaments.foundation.errors import UserFacingError

from ..forms.stages import staff_accounts
from ..foundation.text import whole_number
from ..mixins.stages import StageActionView
from ..services.pod_staff import PodStaffChoice, assign_all_staff


def _ids(values: list[str]) -> frozenset[int]:
    ids = {whole_number(v.strip()) for v in values if v.strip()}
    if None in ids:
        raise UserFacingError("The staff ticks could not be read: reload the page.")
    return frozenset(ids)


class AllStaffView(StageActionView):
    """Reads `pod` (every pod the table showed), `staff-N` (ticked) and `shown-N` (ticked
    when the page was drawn) for each pod N."""

    def act(self, stage):
        post = self.request.POST
        choices = []
        for number in _ids(post.getlist("pod")):
            shown = _ids(post.get(f"shown-{number}", "").split(","))
            choices.append(PodStaffChoice(number, _ids(post.getlist(f"staff-{number}")), shown))
        if not choices:
            raise UserFacingError("No pods were sent: reload the page.")
        users = {u.pk: u for u in staff_accounts(self.tournament)}
        saved = assign_all_staff(stage, choices, actor=self.request.user, users=users)
        if not saved:
            return "Nothing changed: every pod keeps its staff."
        listed = ", ".join(str(p.number) for p in saved)
        word = "pod" if len(saved) == 1 else "pods"
        return f"Staff saved for {word} {listed}."


urlpatterns = [
    path("t/<slug:slug>/manage/stage/staff/", AllStaffView.as_view(), name="stage-staff-all"),
]
