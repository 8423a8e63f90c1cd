"""One view for every roll-off, the cut's (advancement page) and the prizes' (winners page).

The kind is in the URL, so the permission is known before anything is read: a cut is the
organiser's (`stages.run`), a prize roll-off the prize desk's (`prizes.award`), checked on
every method as any other view. Both kinds take the same dice form, call one service and go
back to the page the form was on with what the dice decided.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import path, reverse
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error
from tournaments.rules.roll_offs import SEMI_GROUP

from ..forms.advancement import RollOffForm
from ..models import RollOff
from ..permissions import TournamentPermissionMixin
from ..presenters import typed_dice
from ..presenters.advancement import player_names
from ..services import roll_off_entry


def cut_message(record: RollOff) -> str:
    names = player_names(record.winners)
    winners = " and ".join(names[p] for p in record.winners)
    where = "the semi-final" if record.group == SEMI_GROUP else f"pod {record.group}"
    how = (
        f"rolled on screen, draw code {record.seed}"
        if record.source == RollOff.Source.SITE
        else f"{len(record.faces)} dice entered"
    )
    verb = "wins" if len(record.winners) == 1 else "win"
    return f"{record.category_label} in {where}: {winners} {verb} the roll-off ({how})."


def prize_message(record: RollOff) -> str:
    how = "rolled on screen" if record.source == RollOff.Source.SITE else "recorded"
    return f"Roll-off {how}: dice {', '.join(map(str, record.faces))}."


class RollOffView(TournamentPermissionMixin, View):
    """POST only; a GET is refused as a method once the permission is checked."""

    http_method_names = ["post"]
    # kind -> (permission, the page it is thrown from, what the message says)
    KINDS = {
        RollOff.Kind.CUT: ("stages.run", "advancement", cut_message),
        RollOff.Kind.PRIZE: ("prizes.award", "prize-winners", prize_message),
    }
    permission_by_kind = {kind: code for kind, (code, _, _) in KINDS.items()}

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        if kwargs.get("kind") not in self.KINDS:
            raise Http404("No such kind of roll-off.")
        self.kind = kwargs["kind"]
        self.permission, self.page, self.message = self.KINDS[self.kind]

    def post(self, request, slug, kind):
        back = redirect(reverse(self.page, args=[slug]))
        form = RollOffForm(request.POST, kind=kind)
        if not form.is_valid():
            messages.error(request, first_error(form))
            return self.refused(request, slug)
        try:
            record = roll_off_entry.record(
                self.tournament, kind, form.tie(), actor=request.user, faces=form.faces
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return self.refused(request, slug)
        messages.success(request, self.message(record))
        return back

    def refused(self, request, slug):
        """Back to the form, with the dice that were typed still in it."""
        form_id = typed_dice.keep(request)
        anchor = f"#{form_id}" if form_id else ""
        return redirect(reverse(self.page, args=[slug]) + anchor)


urlpatterns = [
    path("t/<slug:slug>/manage/roll-offs/<str:kind>/", RollOffView.as_view(), name="roll-off"),
]
