from django.core import signing
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.views.generic import TemplateView, View

from tournaments.foundation import idempotency
from tournaments.foundation.errors import UserFacingError

from ..forms.registration import RegistrationForm, member_formset
from ..models import Player
from ..permissions import PUBLIC, TournamentPermissionMixin
from ..services import mail
from ..services import registration as service
from ..services.player_links import player_page_path

CONFIRMATION_SALT = "bunco.registration.done"


def registration_state(tournament) -> dict:
    """What the public page and the form say before anyone types: fee, places, closing."""
    taken = service.active_players(tournament).count()
    waiting = tournament.players.filter(status=Player.Status.WAITLISTED).exists()
    left = 0 if waiting else max(tournament.capacity - taken, 0)
    return {
        "places_left": left,
        "closed_reason": service.online_closed_reason(tournament),
        "full": left == 0,
    }


class PublicTournamentView(TournamentPermissionMixin, TemplateView):
    permission = PUBLIC
    template_name = "tournaments/public.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), **registration_state(self.tournament)}


class RegisterView(TournamentPermissionMixin, View):
    """One person registers themselves and, optionally, their party (one form, no script)."""

    permission = PUBLIC
    http_method_names = ["get", "post"]

    def forms(self, data=None):
        """The booker's form and the friends' rows; a post without rows (a form from before
        parties, a script) registers one player."""
        size = self.tournament.party_size_max
        rows = data if data is not None and "member-TOTAL_FORMS" in data else None
        return RegistrationForm(data, party_size_max=size), member_formset(size, rows)

    def render(self, form, members, status=200):
        context = {
            "tournament": self.tournament,
            "form": form,
            "members": members,
            "email_on": mail.enabled(),
            **registration_state(self.tournament),
        }
        return TemplateResponse(self.request, "tournaments/register.html", context, status=status)

    def get(self, request, slug):
        return self.render(*self.forms())

    def post(self, request, slug):
        form, members = self.forms(request.POST)
        friends_ok = not members.is_bound or members.is_valid()
        if not (form.is_valid() and friends_ok):
            return self.render(form, members)
        booker = form.registrant()
        friends = members.registrants(booker.group_name) if members.is_bound else []
        try:
            players = service.register_party(
                self.tournament,
                [booker, *friends],
                email_each=form.cleaned_data.get("email_each", False),
                waitlist_ok=form.cleaned_data["join_waitlist"],
                form_key=idempotency.parse_key(request.POST.get("idempotency_key")),
            )
        except UserFacingError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            response = self.render(form, members)
            if exc.field == "email" and "already registered" in exc.message:
                response.context_data["duplicate_email"] = booker.email
            return response
        token = signing.dumps(players[0].pk, salt=CONFIRMATION_SALT)
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
            player = self.tournament.players.get(pk=pk)
        except Player.DoesNotExist as exc:
            raise Http404("No such registration.") from exc
        # The one who booked sees every member of the party they registered.
        members = list(player.party.members.order_by("pk")) if player.party_id else [player]
        slug = self.tournament.slug
        context["player"] = player
        context["members"] = [(m, player_page_path(m, slug)) for m in members]
        context["email_on"] = mail.enabled()
        return context


urlpatterns = [
    path("t/<slug:slug>/", PublicTournamentView.as_view(), name="tournament-public"),
    path("t/<slug:slug>/register/", RegisterView.as_view(), name="register"),
    path(
        "t/<slug:slug>/register/done/<str:token>/", RegisteredView.as_view(), name="register-done"
    ),
]
