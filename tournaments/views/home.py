from django.urls import path
from django.utils import timezone
from django.views.generic import TemplateView

from ..models import Tournament
from ..permissions import PUBLIC
from ..services.invitations import pending_for
from ..services.registration import taking_registrations


class HomeView(TemplateView):
    """Open registrations for visitors; each signed-in person's own tournaments and roles,
    and the invitations waiting for their answer."""

    permission = PUBLIC
    template_name = "home.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        today = timezone.localdate()
        context["open_tournaments"] = taking_registrations(
            Tournament.objects.filter(date__gte=today)
        ).order_by("date")
        user = self.request.user
        if user.is_authenticated:
            mine = (
                Tournament.objects.all()
                if user.is_superuser
                else Tournament.objects.filter(roles__user=user)
            )
            roles: dict[int, set[str]] = {}
            for tid, role in user.tournament_roles.values_list("tournament_id", "role"):
                roles.setdefault(tid, set()).add(role)
            context["my_tournaments"] = [
                (t, sorted(roles.get(t.pk, {"superuser"}))) for t in mine.distinct()
            ]
            context["my_invitations"] = pending_for(user)
        return context


urlpatterns = [path("", HomeView.as_view(), name="home")]
