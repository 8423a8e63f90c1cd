"""The stage page and its actions: who may run the stages, and the one shape every action
takes (one service call, a message, back to the page)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.generic import View
from django_htmx.http import HttpResponseClientRedirect

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from ..models import Pod, Stage
from ..permissions import TournamentPermissionMixin

PERMISSION = "stages.run"


def latest_stage(tournament) -> Stage | None:
    return tournament.stages.select_related("drawn_by").order_by("-drawn_at", "-pk").first()


class StagePermissionMixin(TournamentPermissionMixin):
    permission = PERMISSION

    def handle_no_permission(self):
        # A poll from a page whose session expired would swap the login page into a card.
        if getattr(self.request, "htmx", False) and not self.request.user.is_authenticated:
            page = reverse("stage-control", args=[self.kwargs["slug"]])
            return HttpResponseClientRedirect(redirect_to_login(page).url)
        return super().handle_no_permission()

    def page_url(self) -> str:
        # No #anchor: the messages are at the top of the page.
        return reverse("stage-control", args=[self.tournament.slug])


class StageActionView(StagePermissionMixin, View):
    """POST only: `act` calls one service and returns the success message."""

    http_method_names = ["post"]

    def post(self, request, slug, **kwargs):
        stage = latest_stage(self.tournament)
        try:
            if stage is None:
                raise UserFacingError("Draw the pods first.")
            message = self.act(stage, **kwargs)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, message)
        return redirect(self.page_url())

    def act(self, stage: Stage, **kwargs) -> str:
        raise NotImplementedError

    def valid(self, form):
        if not form.is_valid():
            raise UserFacingError(first_error(form))
        return form.cleaned_data

    def pod(self, stage: Stage, number: int) -> Pod:
        return get_object_or_404(Pod.objects.select_related("stage"), stage=stage, number=number)
