from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.views.generic import TemplateView, View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.site import site_url

from ..forms.people import ExistingAccountForm, NewAccountForm
from ..lockout import locks_of, username_key
from ..models import Invitation, TournamentRole
from ..permissions import TournamentPermissionMixin
from ..services import accounts, invitations


class PeopleView(TournamentPermissionMixin, TemplateView):
    """Staff and admins of one tournament; new accounts get a one-time password shown once,
    existing accounts an invitation their owner accepts."""

    permission = "people.manage"
    template_name = "tournaments/people.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.setdefault("new_form", NewAccountForm())
        context.setdefault("existing_form", ExistingAccountForm())
        roles = list(
            self.tournament.roles.select_related("user").order_by("role", "user__username")
        )
        locks = locks_of(r.user.username for r in roles)
        context["roles"] = [(r, locks.get(username_key(r.user.username))) for r in roles]
        context["invitations"] = [
            (
                invitation,
                site_url(self.request) + invitation_url(invitation),
                invitations.is_open(invitation),
            )
            for invitation in self.tournament.invitations.filter(
                status=Invitation.Status.PENDING
            ).select_related("user")
        ]
        # Shown once: popped from the session so a reload does not show it again.
        context["issued"] = self.request.session.pop("issued_password", None)
        return context

    def post(self, request, slug):
        action = request.POST.get("action")
        if action == "create":
            form = NewAccountForm(request.POST)
            if form.is_valid():
                try:
                    user, password = accounts.create_account(
                        self.tournament, actor=request.user, **form.cleaned_data
                    )
                except UserFacingError as exc:
                    form.add_error(exc.field, exc.message)
                else:
                    return self._show_password(user.username, password)
            return self.render_to_response(self.get_context_data(new_form=form))
        if action == "existing":
            form = ExistingAccountForm(request.POST)
            if form.is_valid():
                User = get_user_model()
                user = User.objects.filter(
                    username__iexact=form.cleaned_data["username"].strip()
                ).first()
                if user is None:
                    form.add_error("username", "No account has that username.")
                else:
                    try:
                        invitations.invite(
                            self.tournament, user, form.cleaned_data["role"], actor=request.user
                        )
                    except UserFacingError as exc:
                        form.add_error(None, exc.message)
                    else:
                        messages.success(
                            request,
                            f"{user.username} is invited. Pass on the link below: they accept "
                            "it signed in to their own account (or on their home page).",
                        )
                        return redirect("people", slug)
            return self.render_to_response(self.get_context_data(existing_form=form))
        messages.error(request, "Unknown action.")
        return redirect("people", slug)

    def _show_password(self, username: str, password: str):
        self.request.session["issued_password"] = {"username": username, "password": password}
        return redirect("people", self.tournament.slug)


def invitation_url(invitation: Invitation) -> str:
    return reverse("invitation", args=[invitation.token])


class RoleActionView(TournamentPermissionMixin, View):
    """A button on one row of the people page: runs `act` and says how it went."""

    permission = "people.manage"
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        tr = get_object_or_404(TournamentRole, pk=pk, tournament=self.tournament)
        try:
            self.act(tr)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        return redirect("people", slug)


class RoleRevokeView(RoleActionView):
    def act(self, tr):
        accounts.revoke_role(tr, actor=self.request.user)
        messages.success(self.request, f"{tr.user.username} removed as {tr.get_role_display()}.")


class PasswordResetView(RoleActionView):
    """Issues a new one-time password to an account this organiser alone looks after."""

    def act(self, tr):
        password = accounts.reset_password(self.tournament, tr.user, actor=self.request.user)
        self.request.session["issued_password"] = {
            "username": tr.user.username,
            "password": password,
        }


class UnlockView(RoleActionView):
    """Lifts a sign-in pause: a staff member who mistyped at the door need not wait."""

    def act(self, tr):
        accounts.unlock_sign_in(self.tournament, tr.user, actor=self.request.user)
        messages.success(self.request, f"{tr.user.username} can sign in again.")


class InvitationWithdrawView(TournamentPermissionMixin, View):
    permission = "people.manage"
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        invitation = get_object_or_404(Invitation, pk=pk, tournament=self.tournament)
        try:
            invitations.withdraw(invitation, actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"The invitation of {invitation.user.username} is withdrawn.")
        return redirect("people", slug)


urlpatterns = [
    path("t/<slug:slug>/manage/people/", PeopleView.as_view(), name="people"),
    path(
        "t/<slug:slug>/manage/people/<int:pk>/remove/",
        RoleRevokeView.as_view(),
        name="role-revoke",
    ),
    path(
        "t/<slug:slug>/manage/people/<int:pk>/password/",
        PasswordResetView.as_view(),
        name="role-password",
    ),
    path(
        "t/<slug:slug>/manage/people/<int:pk>/unlock/",
        UnlockView.as_view(),
        name="role-unlock",
    ),
    path(
        "t/<slug:slug>/manage/people/invitations/<int:pk>/withdraw/",
        InvitationWithdrawView.as_view(),
        name="invitation-withdraw",
    ),
]
