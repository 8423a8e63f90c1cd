from django.core import signing
from django.http import Http404
from django.shortcuts import redirect
from django.urls import path
from django.views.generic import FormView, TemplateView

from ..forms.registration import RegistrationForm
from ..models import Player
from ..permissions import PUBLIC, TournamentPermissionMixin
from ..services import registration as service
from ..services.errors import UserFacingError

CONFIRMATION_SALT = "bunco.registration.done"


class PublicTournamentView(TournamentPermissionMixin, TemplateView):
    permission = PUBLIC
    template_name = "tournaments/public.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        taken = service.active_players(self.tournament).count()
        context["places_left"] = max(self.tournament.capacity - taken, 0)
        return context


class RegisterView(TournamentPermissionMixin, FormView):
    permission = PUBLIC
    form_class = RegistrationForm
    template_name = "tournaments/register.html"

    def form_valid(self, form):
        try:
            player = service.register(
                self.tournament,
                service.Registrant(**form.cleaned_data),
                source=Player.Source.WEB,
            )
        except UserFacingError as exc:
            form.add_error(exc.field, exc.message)
            return self.form_invalid(form)
        token = signing.dumps(player.pk, salt=CONFIRMATION_SALT)
        return redirect("register-done", self.tournament.slug, token)


class RegisteredView(TournamentPermissionMixin, TemplateView):
    """The confirmation page; a signed token, so codes can't be read by guessing ids."""

    permission = PUBLIC
    template_name = "tournaments/registered.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        try:
            pk = signing.loads(self.kwargs["token"], salt=CONFIRMATION_SALT, max_age=86400 * 7)
        except signing.BadSignature as exc:
            raise Http404("This confirmation link is not valid.") from exc
        try:
            context["player"] = self.tournament.players.get(pk=pk)
        except Player.DoesNotExist as exc:
            raise Http404("No such registration.") from exc
        return context


urlpatterns = [
    path("t/<slug:slug>/", PublicTournamentView.as_view(), name="tournament-public"),
    path("t/<slug:slug>/register/", RegisterView.as_view(), name="register"),
    path(
        "t/<slug:slug>/register/done/<str:token>/", RegisteredView.as_view(), name="register-done"
    ),
]
