"""The seat finder: a player finds their seat on a phone (the board is `board.py`).

It reads the latest stage. Once a pod's tables have all reported (or the round is closed),
the next round's seats exist and are the ones to walk to, so it shows those first. It shows
no e-mails or phone numbers, and runs a fixed number of queries whatever the number of players.
"""

from __future__ import annotations

from django.db.models import Case, IntegerField, Value, When
from django.template.response import TemplateResponse
from django.urls import path
from django.views.generic import View

from scoring.presenters.rounds import MAX_MATCHES, placements, round_state
from tournaments import http_cache
from tournaments.forms.search import SearchForm
from tournaments.foundation.search import player_matches
from tournaments.models import Player
from tournaments.permissions import PUBLIC, TournamentPermissionMixin

MIN_QUERY = 2


# --- find my seat -----------------------------------------------------------------------------


def find_players(tournament, query: str) -> list[Player]:
    """Up to MAX_MATCHES + 1 registered players the public search of foundation/search.py
    finds (every word in the name, or the exact code), the exact code first."""
    code = "".join(query.split()).upper()
    return list(
        Player.objects.filter(tournament=tournament, status=Player.Status.REGISTERED)
        .filter(player_matches(query, public=True))
        .annotate(
            by_code=Case(
                When(code=code, then=Value(0)), default=Value(1), output_field=IntegerField()
            )
        )
        .order_by("by_code", "name", "pk")
        .only("pk", "name", "code", "group_name", "checked_in_at")[: MAX_MATCHES + 1]
    )


class SeatFinderView(TournamentPermissionMixin, View):
    """A GET form (works without JavaScript); with htmx the results fill in as one types."""

    permission = PUBLIC
    reads_account = False  # a public search: never asks who is signed in
    http_method_names = ["get"]

    def context(self) -> dict:
        query = SearchForm(self.request.GET).query
        state = round_state(self.tournament)
        context = {
            "tournament": self.tournament,
            "state": state,
            "q": query,
            "too_short": bool(query) and len(query) < MIN_QUERY,
            "matches": [],
            "more": False,
        }
        if len(query) >= MIN_QUERY and state.current is not None:
            players = find_players(self.tournament, query)
            context["matches"] = placements(state, players)
            context["more"] = len(players) > MAX_MATCHES
        return context

    def get(self, request, slug):
        if request.htmx and not request.htmx.history_restore_request:
            # The results alone: asked for again by the phone whenever the room changes.
            return http_cache.answer(
                request,
                self.tournament,
                lambda: TemplateResponse(request, "scoring/_seat_results.html", self.context()),
            )
        return TemplateResponse(request, "scoring/seat_finder.html", self.context())


urlpatterns = [
    # Public, and its results are what phones ask for again: no account is loaded for it.
    path("t/<slug:slug>/seat/", SeatFinderView.as_view(), name="seat-finder"),
]
