from django.urls import path
from django.views.generic import ListView

from ..permissions import TournamentPermissionMixin


class AuditLogView(TournamentPermissionMixin, ListView):
    permission = "audit.view"
    template_name = "tournaments/audit_log.html"
    context_object_name = "entries"
    paginate_by = 100

    def get_queryset(self):
        entries = self.tournament.audit.select_related("actor")
        if person := self.request.GET.get("person", "").strip():
            entries = entries.filter(actor__username__iexact=person)
        if action := self.request.GET.get("action", "").strip():
            entries = entries.filter(action__startswith=action)
        return entries


urlpatterns = [
    path("t/<slug:slug>/manage/audit/", AuditLogView.as_view(), name="audit-log"),
]
