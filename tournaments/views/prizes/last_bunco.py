"""The night's last bunco: the site's answer from when each bunco was typed in, and staff's
mark when the table that shouted last was entered earlier (`services/last_bunco.py`)."""

from dataclasses import dataclass

from django.contrib import messages
from django.shortcuts import redirect
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from ...forms.prizes import LastBuncoForm
from ...mixins.prizes import AWARD, PrizePageMixin
from ...presenters.last_bunco import bunco_text
from ...services import last_bunco as service


@dataclass
class StageShown:
    stage: object
    night: service.LastBunco
    last: list[tuple[str, object]]  # (who and where, recorded at)
    automatic: list[str]
    recorded: list[tuple[str, object, bool]]  # newest first: (text, recorded at, is last)
    form: LastBuncoForm


class LastBuncoView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["get", "post"]
    tab = "winners"

    def stages(self):
        kinds = set(
            self.tournament.prize_categories.filter(measure="last_bunco").values_list(
                "stage_kind", flat=True
            )
        )
        return list(self.tournament.stages.filter(kind__in=kinds).order_by("pk"))

    def shown(self, stage, names, form=None) -> StageShown:
        night = service.last_bunco(stage)
        last = set(night.last)
        choices = [
            (f"{b.result_id}:{b.player_id}", bunco_text(b, names)) for b in reversed(night.recorded)
        ]
        return StageShown(
            stage,
            night,
            [(bunco_text(b, names), b.recorded_at) for b in night.last],
            [bunco_text(b, names) for b in night.automatic],
            [(bunco_text(b, names), b.recorded_at, b in last) for b in reversed(night.recorded)],
            form or LastBuncoForm(buncos=choices, prefix=stage.kind),
        )

    def names(self) -> dict[int, str]:
        return dict(self.tournament.players.values_list("pk", "name"))

    def page(self, names, bound=None, status=200):
        shown = [
            self.shown(s, names, bound[1] if bound and bound[0] == s.pk else None)
            for s in self.stages()
        ]
        return self.render("last_bunco.html", status=status, stages=shown)

    def get(self, request, slug):
        return self.page(self.names())

    def post(self, request, slug):
        names = self.names()
        stage = next((s for s in self.stages() if str(s.pk) == request.POST.get("stage")), None)
        if stage is None:
            messages.error(request, "That stage has no Last Bunco prize.")
            return redirect("prize-last-bunco", slug)
        choices = [
            (f"{b.result_id}:{b.player_id}", bunco_text(b, names))
            for b in service.recorded_buncos(stage)
        ]
        form = LastBuncoForm(request.POST, buncos=choices, prefix=stage.kind)
        if not form.is_valid():
            messages.error(request, first_error(form))
            return self.page(names, (stage.pk, form), status=400)
        result_id, player_id = form.chosen()
        player = self.tournament.players.get(pk=player_id)
        try:
            service.mark_last_bunco(
                stage,
                result_id=result_id,
                player=player,
                actor=request.user,
                reason=form.cleaned_data["reason"],
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return self.page(names, (stage.pk, form), status=400)
        messages.success(request, f"{player.name} now holds the last bunco.")
        return redirect("prize-last-bunco", slug)
