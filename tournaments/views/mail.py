"""The organiser's e-mail log, and the two public ways to get a code by e-mail again."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import path
from django.views.generic import TemplateView, View

from tournaments.foundation.errors import UserFacingError

from ..mixins.players import PlayerLinkMixin
from ..models import EmailLog
from ..permissions import PUBLIC, TournamentPermissionMixin
from ..services import mail, player_self
from ..services.registration import send_code_again

LOG_LIMIT = 200


class EmailLogView(TournamentPermissionMixin, TemplateView):
    """Every e-mail sent or tried, with its address: for the organiser only."""

    permission = "registrations.manage"
    template_name = "tournaments/email_log.html"

    def get_context_data(self, **kwargs):
        entries = EmailLog.objects.filter(tournament=self.tournament).select_related("player")
        return super().get_context_data(
            entries=list(entries[:LOG_LIMIT]), email_on=mail.enabled(), **kwargs
        )


class CodeAgainForm(forms.Form):
    email = forms.EmailField(
        error_messages={"required": "Give the e-mail address.", "invalid": "Enter a valid email."}
    )


class CodeAgainView(TournamentPermissionMixin, View):
    """The registration form's "e-mail my code to this address": the answer is the same
    whether or not the address is registered, and only its owner's inbox gets the code."""

    permission = PUBLIC
    http_method_names = ["post"]

    def post(self, request, slug):
        form = CodeAgainForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Give the e-mail address to send the code to.")
            return redirect("register", slug)
        if not mail.enabled():
            messages.warning(request, "This site sends no e-mail: ask the organiser for your code.")
            return redirect("register", slug)
        send_code_again(self.tournament, form.cleaned_data["email"])
        messages.success(
            request, "If that address is registered, its code is on its way to that inbox."
        )
        return redirect("tournament-public", slug)


class EmailAgainView(PlayerLinkMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug, code, token):
        player = self.player()
        try:
            sent = player_self.email_again(player)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            if sent:
                messages.success(request, "Your confirmation is on its way.")
            else:
                messages.warning(request, "This site sends no e-mail: keep this page's address.")
        return redirect(self.page_path(player))


urlpatterns = [
    path("t/<slug:slug>/manage/emails/", EmailLogView.as_view(), name="email-log"),
    path("t/<slug:slug>/register/code-again/", CodeAgainView.as_view(), name="code-again"),
    path(
        "t/<slug:slug>/me/<str:code>/<str:token>/email-again/",
        EmailAgainView.as_view(),
        name="player-email-again",
    ),
]
