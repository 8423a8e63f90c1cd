"""The organiser's undo of the final table's last throw (see `services.final_undo`)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import path, reverse
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from ..forms.advancement import VoidThrowForm
from ..models import FinalTable
from ..permissions import TournamentPermissionMixin
from ..services.final_undo import void_last_throw


class VoidThrowView(TournamentPermissionMixin, View):
    """Staff record throws; only the organiser takes one back, so a wrong undo needs two
    people to agree on the floor (the one who typed it and the one who runs the event)."""

    permission = "stages.run"
    http_method_names = ["post"]

    def post(self, request, slug):
        form = VoidThrowForm(request.POST)
        try:
            final = FinalTable.objects.filter(tournament=self.tournament).first()
            if final is None:
                raise UserFacingError("The final table is not seated yet.")
            if not form.is_valid():
                raise UserFacingError(first_error(form))
            voided = void_last_throw(
                final,
                actor=request.user,
                number=form.cleaned_data["number"],
                reason=form.cleaned_data["reason"],
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            again = f"{voided.player.name} throws again."
            messages.success(request, f"Throw {voided.number} is voided. {again}")
        return redirect(reverse("final-table", args=[self.tournament.slug]))


urlpatterns = [
    path("t/<slug:slug>/manage/final/void/", VoidThrowView.as_view(), name="final-void"),
]
