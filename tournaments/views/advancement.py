"""The organiser's advancement page and the final table page.

Advancement (`stages.run`) shows the engine's steps one by one for the qualifying stage and,
once it is played, the semi-final: standings, eligibility (only verified pods advance), the
cut, the roll-offs (physical dice typed in, or rolled on screen with a draw code from the
tournament's secret) and saving the qualifiers; then drawing the semi-final and seating the
final table, whose codes come from the same secret: no form here takes a seed.

The final table page shows the four finalists with why and how they got there, the order
roll and every throw. Seating needs `stages.run`; the order roll and the throws need
`results.enter`, so staff can run the table too. Every POST calls one service of
`tournaments.services.advancement` and redirects back with its message.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import path, reverse
from django.views.generic import TemplateView, View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from ..forms.advancement import OrderForm, StageChoiceForm, ThrowForm
from ..foundation.text import count
from ..models import Stage
from ..permissions import TournamentPermissionMixin
from ..presenters import typed_dice
from ..presenters.advancement import UNITS, player_names, stages_shown
from ..presenters.final_table import drawn_pools, final_of, final_shown
from ..services import advancement as service
from ..services import draws as draw_service
from ..services import final_table

RUN = "stages.run"
ENTER = "results.enter"


# --- views ------------------------------------------------------------------------------------


class AdvancementMixin(TournamentPermissionMixin):
    permission = RUN

    def page_url(self) -> str:
        return reverse("advancement", args=[self.tournament.slug])

    def stage(self, kind: str) -> Stage:
        return service.drawn_stage(self.tournament, kind)


class AdvancementView(AdvancementMixin, TemplateView):
    template_name = "tournaments/advancement/advancement.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        tournament = self.tournament
        stages = {s.kind: s for s in tournament.stages.all()}
        qualifying = stages.get(Stage.Kind.QUALIFYING)
        semi = stages.get(Stage.Kind.SEMI_FINAL)
        shown = stages_shown(tournament, [s for s in (qualifying, semi) if s is not None])
        by_kind = {s.kind: s for s in shown}
        final = final_of(tournament)
        context.update(
            qualifying=by_kind.get(Stage.Kind.QUALIFYING),
            semi=by_kind.get(Stage.Kind.SEMI_FINAL),
            final=final,
            draws_published=final is not None
            and final.winner_id is not None
            and draw_service.is_published(tournament),
            units=UNITS,
            typed=typed_dice.take(self.request),
        )
        return context


class AdvancementAction(AdvancementMixin, View):
    """POST only: `act` calls one service and returns (message, where to go next)."""

    http_method_names = ["post"]

    def post(self, request, slug):
        try:
            message, url = self.act()
        except UserFacingError as exc:
            messages.error(request, exc.message)
            url = self.page_url()
        else:
            messages.success(request, message)
        return redirect(url)

    def act(self) -> tuple[str, str]:
        raise NotImplementedError

    def valid(self, form):
        if not form.is_valid():
            raise UserFacingError(first_error(form))
        return form.cleaned_data


class SaveQualifiersView(AdvancementAction):
    def act(self):
        stage = self.stage(self.valid(StageChoiceForm(self.request.POST))["stage"])
        rows = service.save_qualifiers(stage, actor=self.request.user)
        verb = "advances" if len(rows) == 1 else "advance"
        return f"Saved: {count(len(rows), 'player')} {verb} to the semi-final.", self.page_url()


class DrawSemiFinalView(AdvancementAction):
    def act(self):
        stage = service.draw_semi_final(self.tournament, actor=self.request.user)
        players = len(stage.draw_input["players"])
        pods = stage.pods.count()
        return (
            f"Semi-final drawn: {players} players in {pods} pod{'s' if pods != 1 else ''}, "
            f"draw code {stage.seed}. Assign its staff and ring the bell on the stage page.",
            self.page_url(),
        )


class SeatFinalView(AdvancementAction):
    def act(self):
        final = final_table.seat_final(self.tournament, actor=self.request.user)
        return (
            f"The final table is seated (draw code {final.seed}). Roll for the order of play.",
            reverse("final-table", args=[self.tournament.slug]),
        )


class PublishDrawsView(AdvancementAction):
    def act(self):
        draw_service.publish(self.tournament, actor=self.request.user)
        return (
            "The draw secret is published: anyone can now check every draw on the results page.",
            reverse("results", args=[self.tournament.slug]) + "#draws",
        )


class FinalMixin(TournamentPermissionMixin):
    permission = ENTER

    def page_url(self) -> str:
        return reverse("final-table", args=[self.tournament.slug])


class FinalTableView(FinalMixin, TemplateView):
    template_name = "tournaments/advancement/final_table.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        final = final_of(self.tournament)
        shown = final_shown(final) if final is not None else None
        context.update(
            final=final,
            shown=shown,
            typed=typed_dice.take(self.request),
            pools=drawn_pools(shown) if shown is not None else [],
            semi=self.tournament.stages.filter(kind=Stage.Kind.SEMI_FINAL).first(),
            # The void service refuses once the secret is out: no form it would refuse.
            result_final=final is not None and draw_service.is_published(self.tournament),
        )
        return context


class FinalAction(FinalMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug):
        try:
            final = final_of(self.tournament)
            if final is None:
                raise UserFacingError("The final table is not seated yet.")
            message = self.act(final)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            form_id = typed_dice.keep(request)  # the dice typed come back in their boxes
            return redirect(self.page_url() + (f"#{form_id}" if form_id else ""))
        messages.success(request, message)
        return redirect(self.page_url())

    def valid(self, form):
        if not form.is_valid():
            raise UserFacingError(first_error(form))
        return form.cleaned_data


class FinalOrderView(FinalAction):
    def act(self, final):
        form = OrderForm(self.request.POST)
        self.valid(form)
        final = final_table.roll_for_order(final, actor=self.request.user, faces=form.faces)
        if final.order:
            names = player_names(final.order)
            return (
                f"{names[final.order[0]]} throws first (lowest die), "
                "then the dice go clockwise round the seats."
            )
        shown = final_shown(final)
        return f"Tie for the lowest die: {' and '.join(s.name for s in shown.needed)} throw again."


class FinalThrowView(FinalAction):
    def act(self, final):
        form = ThrowForm(self.request.POST)
        data = self.valid(form)
        made = final_table.throw(
            final, actor=self.request.user, dice=form.dice, number=data["number"]
        )
        name = player_names([made.player_id])[made.player_id]
        dice = " ".join(map(str, made.dice))
        if len(set(made.dice)) == 1:
            return f"{name} throws {dice}: three of a kind! {name} wins the grand prize!"
        return f"Throw {made.number}: {name} throws {dice}."


urlpatterns = [
    path("t/<slug:slug>/manage/advancement/", AdvancementView.as_view(), name="advancement"),
    path(
        "t/<slug:slug>/manage/advancement/save/",
        SaveQualifiersView.as_view(),
        name="advancement-save",
    ),
    path(
        "t/<slug:slug>/manage/advancement/semi-final/",
        DrawSemiFinalView.as_view(),
        name="advancement-semi-final",
    ),
    path(
        "t/<slug:slug>/manage/advancement/seat-final/",
        SeatFinalView.as_view(),
        name="advancement-seat-final",
    ),
    path(
        "t/<slug:slug>/manage/advancement/publish-draws/",
        PublishDrawsView.as_view(),
        name="advancement-publish-draws",
    ),
    path("t/<slug:slug>/manage/final/", FinalTableView.as_view(), name="final-table"),
    path("t/<slug:slug>/manage/final/order/", FinalOrderView.as_view(), name="final-order"),
    path("t/<slug:slug>/manage/final/throw/", FinalThrowView.as_view(), name="final-throw"),
]
