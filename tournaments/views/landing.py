"""Where a person goes after signing in: the page of their work at tonight's event."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils import timezone
from django.views.generic import TemplateView

from ..permissions import AUTHENTICATED, PermissionMixin
from ..services.phase import landings


class LandingView(LoginRequiredMixin, PermissionMixin, TemplateView):
    """Organisers on their event's dashboard, admins on Printouts or Prizes (by the event's
    phase), staff on My pods; a chooser when several events are current, the home page
    (invitations, new tournament) when none is."""

    permission = AUTHENTICATED
    template_name = "tournaments/landing.html"

    def get(self, request, *args, **kwargs):
        choices = [
            (landing, reverse(landing.url_name, args=[landing.tournament.slug]))
            for landing in landings(request.user, timezone.localdate())
        ]
        if not choices:
            return redirect("home")
        if len(choices) == 1:
            return redirect(choices[0][1])
        return self.render_to_response(self.get_context_data(choices=choices))


urlpatterns = [path("start/", LandingView.as_view(), name="landing")]
