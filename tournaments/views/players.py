from django.urls import path
from django.views.generic import TemplateView

from ..permissions import TournamentPermissionMixin


class PlayerListView(TournamentPermissionMixin, TemplateView):
    permission = "registrations.view"
    template_name = "tournaments/dashboard.html"


urlpatterns = [
    path("t/<slug:slug>/manage/players/", PlayerListView.as_view(), name="player-list"),
]
