from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import path
from django.views.generic import TemplateView

from tournaments.foundation.errors import UserFacingError

from ..models import Invitation
from ..permissions import AUTHENTICATED, PermissionMixin
from ..services import invitations


class InvitationView(PermissionMixin, TemplateView):
    """The link an organiser passes on: only the invited account, signed in, may answer it.

    Anyone else signed in sees only that it is not theirs, so a link sent to the wrong phone
    hands out nothing.
    """

    permission = AUTHENTICATED
    template_name = "tournaments/invitation.html"

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.deny()
        self.invitation = Invitation.from_token(kwargs["token"])
        if self.invitation is None:
            raise Http404
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["invitation"] = self.invitation
        context["mine"] = self.invitation.user_id == self.request.user.pk
        context["open"] = invitations.is_open(self.invitation)
        return context

    def post(self, request, token):
        answer = {"accept": invitations.accept, "decline": invitations.decline}.get(
            request.POST.get("answer")
        )
        if answer is None or self.invitation.user_id != request.user.pk:
            return redirect("invitation", token)
        try:
            answer(self.invitation, request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect("invitation", token)
        tournament = self.invitation.tournament
        if answer is invitations.decline:
            messages.success(request, f"You declined the invitation to {tournament.name}.")
            return redirect("home")
        messages.success(
            request,
            f"You are now {self.invitation.get_role_display().lower()} of {tournament.name}.",
        )
        return redirect("tournament-dashboard", tournament.slug)


urlpatterns = [
    path("invitations/<str:token>/", InvitationView.as_view(), name="invitation"),
]
