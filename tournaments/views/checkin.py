"""The check-in desk: a phone or a laptop at the door.

With htmx the search box fills the results as one types, and Check in / Undo / walk-in
swap only their own part of the page plus the counts (out of band). Without JavaScript the
same forms are plain GETs and POSTs that redirect back to the desk.
"""

import uuid
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import View
from django_htmx.http import HttpResponseClientRedirect, replace_url

from tournaments.foundation.errors import UserFacingError
from tournaments.rules import cashbook as book

from ..forms.cashbook import FeeForm
from ..forms.checkin import WalkInForm
from ..forms.search import SearchForm
from ..foundation.text import money
from ..permissions import TournamentPermissionMixin, permissions_of
from ..services import cashbook, mail
from ..services import checkin as service
from ..services.parties import promoted_to_tell
from ..services.tournaments import counts

WALK_IN_SESSION_KEY = "checkin_walk_in"
DESK_TEMPLATE = "tournaments/checkin/desk.html"
MESSAGE_LEVELS = {
    "success": messages.SUCCESS,
    "warning": messages.WARNING,
    "danger": messages.ERROR,
}


class CheckInPermissionMixin(TournamentPermissionMixin):
    permission = "checkin.manage"

    def handle_no_permission(self):
        # An htmx request from a page whose session has expired would otherwise swap the
        # login page into a result row; send the whole page to the login form instead.
        if getattr(self.request, "htmx", False) and not self.request.user.is_authenticated:
            desk = reverse("checkin-desk", args=[self.kwargs["slug"]])
            return HttpResponseClientRedirect(redirect_to_login(desk).url)
        return super().handle_no_permission()

    def desk_url(self, query: str = "") -> str:
        url = reverse("checkin-desk", args=[self.tournament.slug])
        return f"{url}?{urlencode({'q': query})}" if query else url

    def query(self, data) -> str:
        return SearchForm(data).query

    def results_context(self, query: str) -> dict:
        if query:
            found = service.search(self.tournament, query)
            return {
                "q": query,
                "players": keyed(found.players),
                "more": found.more,
                "recent": False,
            }
        return {
            "q": "",
            "players": keyed(service.recent_check_ins(self.tournament)),
            "more": False,
            "recent": True,
        }

    def money_context(self) -> dict:
        """What the rows need to take a fee: the amount, and whether this person may."""
        cents = cashbook.fee_cents(self.tournament)
        codes = permissions_of(self.request.user, self.tournament)
        return {
            "fee": money(cents),
            "takes_fees": cents > 0 and "money.record" in codes,
            "paid_methods": PAID_METHODS,
        }

    def desk_context(self, query: str = "", **kwargs) -> dict:
        kwargs.setdefault("walk_in_form", WalkInForm())
        kwargs.setdefault("walk_in_player", None)
        return {
            "tournament": self.tournament,
            "perms_here": permissions_of(self.request.user, self.tournament),
            "counts": counts(self.tournament),
            **self.money_context(),
            **self.results_context(query),
            **kwargs,
        }

    def partial(self, template: str, **context) -> TemplateResponse:
        """A fragment plus the counts, swapped out of band so they stay current."""
        context.setdefault("tournament", self.tournament)
        context.setdefault("counts", counts(self.tournament))
        for name, value in self.money_context().items():
            context.setdefault(name, value)
        context.setdefault("oob", True)
        return TemplateResponse(self.request, template, context)


PAID_METHODS = [(m, book.METHOD_LABELS[m]) for m in book.METHODS if m != book.COMPED]


def keyed(players):
    """Gives each row its own idempotency key for the fee buttons, made as the row is shown."""
    for player in players:
        player.pay_key = uuid.uuid4()
    return players


class CheckInDeskView(CheckInPermissionMixin, View):
    http_method_names = ["get"]

    def get(self, request, slug):
        walk_in_pk = request.session.pop(WALK_IN_SESSION_KEY, None)
        walk_in_player = (
            self.tournament.players.filter(pk=walk_in_pk).first() if walk_in_pk else None
        )
        context = self.desk_context(self.query(request.GET), walk_in_player=walk_in_player)
        # With e-mail on, promoted players were told by e-mail; without it, the desk tells them.
        context["promoted"] = [] if mail.enabled() else promoted_to_tell(self.tournament)
        return TemplateResponse(request, DESK_TEMPLATE, context)


class SearchView(CheckInPermissionMixin, View):
    """The results partial for htmx; a plain visit goes to the desk with the same query."""

    http_method_names = ["get"]

    def get(self, request, slug):
        query = self.query(request.GET)
        if not request.htmx:
            return redirect(self.desk_url(query))
        response = self.partial("tournaments/checkin/_results.html", **self.results_context(query))
        # A reload keeps what was searched for.
        return replace_url(response, self.desk_url(query))


class PlayerActionView(CheckInPermissionMixin, View):
    """Check in or Undo: swaps the player's row (htmx) or redirects back to the desk."""

    http_method_names = ["post"]
    action = None  # a service function: (player, actor) -> Outcome

    def post(self, request, slug, pk):
        player = service.find_player(self.tournament, pk)
        query = self.query(request.POST)
        try:
            outcome = self.act(player)
        except UserFacingError as exc:
            level, message = "danger", exc.message
        else:
            level = "success" if outcome.changed else "warning"
            message = outcome.message
        return self.answer(player, query, level, message)

    def act(self, player):
        return self.action(player, self.request.user)

    def answer(self, player, query: str, level: str, message: str):
        if not self.request.htmx:
            messages.add_message(self.request, MESSAGE_LEVELS[level], message)
            return redirect(self.desk_url(query))
        return self.partial(
            "tournaments/checkin/_row_swap.html",
            player=keyed([service.one_with_fee(player)])[0],
            q=query,
            row_message=message,
            row_level=level,
        )


class CheckInView(PlayerActionView):
    def act(self, player):
        key = self.request.POST.get("idempotency_key")
        return service.check_in(player, self.request.user, idempotency_key=key)


class UndoCheckInView(PlayerActionView):
    action = staticmethod(service.undo_check_in)


class FeeView(PlayerActionView):
    """One tap on the row: the fee taken by the method pressed (and checked in, if not yet)."""

    permission = "money.record"

    def post(self, request, slug, pk):
        player = service.find_player(self.tournament, pk)
        form = FeeForm(request.POST)
        query = self.query(request.POST)
        if not form.is_valid():
            error = next(iter(form.errors.values()))[0]
            return self.answer(player, query, "danger", f"Not recorded: {error}")
        d = form.cleaned_data
        try:
            outcome = cashbook.pay_fee(
                player, method=d["method"], reason=d["reason"], actor=request.user, key=d["key"]
            )
        except UserFacingError as exc:
            return self.answer(player, query, "danger", f"Not recorded: {exc.message}")
        return self.answer(
            player, query, "success" if outcome.changed else "warning", outcome.message
        )


class WalkInView(CheckInPermissionMixin, View):
    """Registers and checks in a player in one step; errors keep what was typed."""

    http_method_names = ["post"]

    def post(self, request, slug):
        form = WalkInForm(request.POST)
        player = None
        if form.is_valid():
            try:
                player = cashbook.walk_in(
                    self.tournament,
                    form.registrant(),
                    method=form.cleaned_data["payment"]
                    if self.money_context()["takes_fees"]
                    else "",
                    actor=request.user,
                    key=form.cleaned_data["key"],
                )
            except UserFacingError as exc:
                form.add_error(exc.field, exc.message)
        if request.htmx:
            return self.partial(
                "tournaments/checkin/_walk_in.html",
                walk_in_form=WalkInForm() if player else form,
                walk_in_player=player,
            )
        if player is not None:
            request.session[WALK_IN_SESSION_KEY] = player.pk
            return redirect(self.desk_url())
        return TemplateResponse(request, DESK_TEMPLATE, self.desk_context(walk_in_form=form))


urlpatterns = [
    path("t/<slug:slug>/manage/checkin/", CheckInDeskView.as_view(), name="checkin-desk"),
    path("t/<slug:slug>/manage/checkin/search/", SearchView.as_view(), name="checkin-search"),
    path("t/<slug:slug>/manage/checkin/walk-in/", WalkInView.as_view(), name="checkin-walk-in"),
    path("t/<slug:slug>/manage/checkin/<int:pk>/in/", CheckInView.as_view(), name="checkin-player"),
    path("t/<slug:slug>/manage/checkin/<int:pk>/pay/", FeeView.as_view(), name="checkin-pay"),
    path(
        "t/<slug:slug>/manage/checkin/<int:pk>/undo/",
        UndoCheckInView.as_view(),
        name="checkin-undo",
    ),
]
