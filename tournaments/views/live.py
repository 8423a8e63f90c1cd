"""How a page learns that the room changed: the tournament's change counter, asked for every
few seconds by static/js/live.js.

Why short polls and not Server-Sent Events or long polls: the site runs on gunicorn's sync
workers (three by default, `make serve`), where an open connection holds a whole worker for
as long as it stays open, so a hundred phones waiting on a stream would need a hundred
workers; and on a laptop's runserver the same page must work. A poll answered from the
tournament's row (one query, a few bytes, 204 when nothing changed) costs about what a
static file does, and the page fetches its live parts only when the count moved. A phone
that was offline sends the count it last saw as soon as it is back and catches up at once.
"""

from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.urls import path
from django.views.generic import View

from tournaments.foundation import changes
from tournaments.foundation.text import whole_number

from ..permissions import PUBLIC, TournamentPermissionMixin


class ChangesView(TournamentPermissionMixin, View):
    """`?since=<count>`: 204 while the count is the same, else the count as JSON. Public like
    the board: the count says that something changed, never what."""

    permission = PUBLIC
    reads_account = False  # polled by every screen in the room, signed in or not
    http_method_names = ["get"]

    def get(self, request, slug):
        count = changes.seen(self.tournament)
        if whole_number(request.GET.get("since", "")) == count:
            response = HttpResponse(status=204)
        else:
            response = JsonResponse({"count": count})
        response["Cache-Control"] = "no-store"
        return response


urlpatterns = [
    path("t/<slug:slug>/changes/", ChangesView.as_view(), name="live-changes"),
]
