from django.db.models import CharField, Q
from django.db.models.functions import Cast
from django.urls import path
from django.views.generic import ListView

from scoring.models import TableResult
from tournaments.foundation.audit_words import KINDS, sentence

from ..foundation.text import whole_number
from ..permissions import TournamentPermissionMixin


def about_pod(tournament, number: int) -> Q:
    """Entries about pod `number`: results and cards carry `data["pod"]`. Table results logged
    before they did are found through the result they point at."""
    results = (
        TableResult.objects.filter(pod__stage__tournament=tournament, pod__number=number)
        .annotate(key=Cast("pk", CharField()))
        .values("key")
    )
    return Q(data__pod=number) | Q(target_type="scoring.tableresult", target_id__in=results)


class AuditLogView(TournamentPermissionMixin, ListView):
    permission = "audit.view"
    template_name = "tournaments/audit_log.html"
    context_object_name = "entries"
    paginate_by = 100

    def get_queryset(self):
        entries = self.tournament.audit.select_related("actor")
        person = self.request.GET.get("person", "").strip()
        action = self.request.GET.get("action", "").strip()
        if "\x00" in person + action:  # in no username or action; PostgreSQL refuses it
            return entries.none()
        if person:
            entries = entries.filter(actor__username__iexact=person)
        if action:
            entries = entries.filter(action__startswith=action)
        if (pod := whole_number(self.request.GET.get("pod", "").strip())) is not None:
            entries = entries.filter(about_pod(self.tournament, pod))
        return entries

    def get_context_data(self, **kwargs):
        context = super().get_context_data(kinds=KINDS, **kwargs)
        for entry in context["entries"]:
            entry.sentence = sentence(entry.action, entry.actor.username if entry.actor else None)
        return context


urlpatterns = [
    path("t/<slug:slug>/manage/audit/", AuditLogView.as_view(), name="audit-log"),
]
