from django.db.models import Exists, OuterRef
from django.urls import path
from django.utils import timezone
from django.views.generic import TemplateView

from ..models import FinalTable, Tournament
from ..permissions import PUBLIC
from ..services.invitations import pending_for
from ..services.registration import taking_registrations


class HomeView(TemplateView):
    """Tonight's events and open registrations for visitors; each signed-in person's own
    tournaments and roles, and the invitations waiting for their answer."""

    permission = PUBLIC
    template_name = "home.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        today = timezone.localdate()
        open_now = list(
            taking_registrations(Tournament.objects.filter(date__gte=today)).order_by("date")
        )
        context["open_tournaments"] = open_now
        context["today"] = today
        # Tonight's events the list above no longer shows (drawn, or sign-ups closed): a
        # player at the venue opens the site to find a seat, not to register.
        # One played to the end (the grand prize won) offers its results instead of seats.
        finished = Exists(
            FinalTable.objects.filter(tournament=OuterRef("pk"), winner__isnull=False)
        )
        context["tonight"] = (
            Tournament.objects.filter(date=today)
            .exclude(pk__in=[t.pk for t in open_now])
            .annotate(finished=finished)
            .order_by("name")
        )
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
