"""A player's own page, opened by the link in their confirmation (code + signature).

It shows only the player's own name, code and state, their party's names, their seat and
partner, their card, their prizes: never anyone's e-mail or phone. A link whose code or
signature was changed is a 404, like a page that does not exist. A fixed number of queries.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.views.generic import View

from scoring.presenters.cards import stage_cards
from scoring.presenters.rounds import placements, round_state
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.site import site_url

from ..forms.player_page import CardProblemForm
from ..foundation.text import money
from ..mixins.players import PlayerLinkMixin
from ..models import FinalSeat, Player
from ..services import cash_boxes, mail, player_self, waitlist
from ..services.player_links import qr_svg_path


def prizes_of(player: Player) -> list[dict]:
    awards = player.awards.current().select_related("category").prefetch_related("payouts")
    prizes = [
        {
            "label": award.category.label,
            "amount": money(award.amount_cents),
            "paid": any(p.voided_at is None for p in award.payouts.all()),
        }
        for award in awards
    ]
    if any(not prize["paid"] for prize in prizes):
        # Both boxes counted: no cash is paid tonight, so the prize table is not the answer.
        later = cash_boxes.paid_later(player.tournament)
        for prize in prizes:
            prize["later"] = later
    return prizes


class PlayerPageView(PlayerLinkMixin, View):
    http_method_names = ["get"]

    def get(self, request, slug, code, token):
        return self.render(self.player())

    def render(self, player: Player, *, problem_form=None, status: int = 200):
        state = round_state(self.tournament)
        placement = None
        if player.status == Player.Status.REGISTERED and state.current is not None:
            placement = placements(state, [player])[0]
        url = site_url(self.request) + self.page_path(player)
        size, qr_path = qr_svg_path(url)
        party = []
        if player.party_id:
            party = list(
                player.party.members.order_by("pk").only(
                    "pk", "name", "status", "checked_in_at", "party_id"
                )
            )
        seat = player_self.current_pod_seat(player)
        context = {
            "tournament": self.tournament,
            "player": player,
            "token": self.kwargs["token"],
            "email_on": mail.enabled(),
            "position": waitlist.position_of(player),
            "placement": placement,
            "state": state,
            "stages": stage_cards(self.tournament, player),
            "prizes": prizes_of(player),
            "party": party,
            "page_url": url,
            "qr_size": size,
            "qr_path": qr_path,
            "may_cancel": player.status != Player.Status.WITHDRAWN
            and player.checked_in_at is None
            and not player_self.event_started(player),
            "card_pod": seat.pod if seat else None,
            "problem_form": problem_form or CardProblemForm(),
            "problems": list(player.card_problems.all()),
            "final_seat": FinalSeat.objects.filter(player=player)
            .select_related("final__winner")
            .first(),
        }
        return TemplateResponse(
            self.request, "tournaments/player_page.html", context, status=status
        )


class CancelOwnPlaceView(PlayerLinkMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug, code, token):
        player = self.player()
        if request.POST.get("confirm") != "yes":
            messages.error(request, "Tick “Yes, cancel my place” to cancel.")
            return redirect(self.page_path(player))
        try:
            player_self.cancel_own_place(player)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, "Your registration is cancelled. Thank you for telling us.")
        return redirect(self.page_path(player))


LAPSED = (
    "Sorry, the offer has lapsed: the place went to the next on the waitlist. You are back "
    "on the list."
)


class AcceptOfferView(PlayerLinkMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug, code, token):
        player = self.player()
        try:
            accepted = waitlist.accept_offer(player)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            if accepted is None:
                messages.error(request, LAPSED)
            else:
                messages.success(request, "Your place is confirmed. See you on the night!")
        return redirect(self.page_path(player))


class CardProblemView(PlayerPageView):
    http_method_names = ["post"]

    def post(self, request, slug, code, token):
        player = self.player()
        form = CardProblemForm(request.POST)
        if form.is_valid():
            try:
                player_self.report_card_problem(player, form.cleaned_data["message"])
            except UserFacingError as exc:
                form.add_error("message" if exc.field else None, exc.message)
            else:
                messages.success(request, "Sent to your pod's staff: they will check your card.")
                return redirect(self.page_path(player))
        return self.render(player, problem_form=form, status=400)


P = "t/<slug:slug>/me/<str:code>/<str:token>/"
urlpatterns = [
    path(P, PlayerPageView.as_view(), name="player-page"),
    path(f"{P}cancel/", CancelOwnPlaceView.as_view(), name="player-cancel"),
    path(f"{P}accept/", AcceptOfferView.as_view(), name="player-accept"),
    path(f"{P}card-problem/", CardProblemView.as_view(), name="player-card-problem"),
]
