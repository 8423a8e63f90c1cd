"""The organiser's waitlist page (order, reorder, seat a walk-in in a ghost seat) and the
desk's party check-in. Each write is a service call; bad input is a message, nothing saved."""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.views.generic import TemplateView, View

from tournaments.foundation.errors import UserFacingError

from ..forms.search import SearchForm
from ..models import Stage
from ..permissions import TournamentPermissionMixin
from ..services import parties, waitlist
from ..services.ghost_seats import free_ghost_seats
from ..services.registration import active_players


class MoveForm(forms.Form):
    to = forms.IntegerField(
        label="New place",
        min_value=1,
        max_value=5000,
        error_messages={
            "required": "Give the new place in line (1 is first).",
            "invalid": "The new place must be a whole number (1 is first).",
        },
    )


def drawn_stage(tournament) -> Stage | None:
    """The stage a waitlisted walk-in can join: the latest drawn and not finished."""
    return tournament.stages.exclude(status=Stage.Status.FINISHED).order_by("-drawn_at").first()


class WaitlistView(TournamentPermissionMixin, TemplateView):
    permission = "registrations.manage"
    template_name = "tournaments/players/waitlist.html"

    def get_context_data(self, **kwargs):
        waiting = list(waitlist.queue(self.tournament).select_related("party"))
        stage = drawn_stage(self.tournament)
        ghosts, from_round = free_ghost_seats(stage) if stage and waiting else (0, None)
        return super().get_context_data(
            waiting=waiting,
            stage=stage,
            ghosts_free=ghosts,
            ghosts_from=from_round,
            registered=active_players(self.tournament).count(),
            **kwargs,
        )


class WaitlistActionMixin(TournamentPermissionMixin):
    http_method_names = ["post"]

    def waiting_player(self, pk):
        return get_object_or_404(waitlist.queue(self.tournament), pk=pk)

    def back(self):
        return redirect("waitlist", self.tournament.slug)

    def run(self, call, done: str):
        """Calls the service; its refusal becomes the page's message, nothing saved."""
        try:
            call()
        except UserFacingError as exc:
            messages.error(self.request, exc.message)
        else:
            messages.success(self.request, done)
        return self.back()


class MoveView(WaitlistActionMixin, View):
    permission = "registrations.manage"

    def post(self, request, slug, pk):
        player = self.waiting_player(pk)
        form = MoveForm(request.POST)
        if not form.is_valid():
            messages.error(request, " ".join(form.errors["to"]))
            return self.back()
        return self.run(
            lambda: waitlist.move(player, form.cleaned_data["to"], actor=request.user),
            f"{player.name} moved on the waitlist.",
        )


class SeatFromWaitlistView(WaitlistActionMixin, View):
    permission = "checkin.manage"

    def post(self, request, slug, pk):
        player = self.waiting_player(pk)
        stage = drawn_stage(self.tournament)
        if stage is None:
            messages.error(request, "No stage is being played: there is no ghost seat to take.")
            return self.back()
        return self.run(
            lambda: waitlist.seat_walk_in(player, stage, actor=request.user),
            f"{player.name} is checked in and takes a ghost seat.",
        )


class PartyCheckInView(TournamentPermissionMixin, View):
    permission = "checkin.manage"
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        player = get_object_or_404(self.tournament.players.all(), pk=pk)
        try:
            outcomes = parties.check_in_party(player, request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            done = [o.player.name for o in outcomes if o.changed]
            messages.success(
                request,
                f"Checked in {len(done)} of the party: {', '.join(done)}."
                if done
                else "Everyone of this party was already checked in.",
            )
        query = SearchForm(request.POST).query
        desk = reverse("checkin-desk", args=[slug])
        return redirect(f"{desk}?{urlencode({'q': query})}" if query else desk)


urlpatterns = [
    path("t/<slug:slug>/manage/waitlist/", WaitlistView.as_view(), name="waitlist"),
    path("t/<slug:slug>/manage/waitlist/<int:pk>/move/", MoveView.as_view(), name="waitlist-move"),
    path(
        "t/<slug:slug>/manage/waitlist/<int:pk>/seat/",
        SeatFromWaitlistView.as_view(),
        name="waitlist-seat",
    ),
    path(
        "t/<slug:slug>/manage/checkin/<int:pk>/party/",
        PartyCheckInView.as_view(),
        name="checkin-party",
    ),
]
