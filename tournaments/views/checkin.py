from django.urls import path
from django.views.generic import TemplateView

from ..permissions import TournamentPermissionMixin


class CheckInDeskView(TournamentPermissionMixin, TemplateView):
    permission = "checkin.manage"
    template_name = "tournaments/dashboard.html"


urlpatterns = [
    path("t/<slug:slug>/manage/checkin/", CheckInDeskView.as_view(), name="checkin-desk"),
]
