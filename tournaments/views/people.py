from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404, redirect
from django.urls import path
from django.views.generic import TemplateView, View

from ..forms.people import ExistingAccountForm, NewAccountForm
from ..models import TournamentRole
from ..permissions import TournamentPermissionMixin
from ..services import accounts
from ..services.errors import UserFacingError


class PeopleView(TournamentPermissionMixin, TemplateView):
    """Staff and admins of one tournament; new accounts get a one-time password shown once."""

    permission = "people.manage"
    template_name = "tournaments/people.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.setdefault("new_form", NewAccountForm())
        context.setdefault("existing_form", ExistingAccountForm())
        context["roles"] = self.tournament.roles.select_related("user").order_by(
            "role", "user__username"
        )
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
                        accounts.grant_role(
                            self.tournament, user, form.cleaned_data["role"], actor=request.user
                        )
                    except UserFacingError as exc:
                        form.add_error(None, exc.message)
                    else:
                        messages.success(request, f"{user.username} added.")
                        return redirect("people", slug)
            return self.render_to_response(self.get_context_data(existing_form=form))
        messages.error(request, "Unknown action.")
        return redirect("people", slug)

    def _show_password(self, username: str, password: str):
        self.request.session["issued_password"] = {"username": username, "password": password}
        return redirect("people", self.tournament.slug)


class RoleRevokeView(TournamentPermissionMixin, View):
    permission = "people.manage"
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        tr = get_object_or_404(TournamentRole, pk=pk, tournament=self.tournament)
        try:
            accounts.revoke_role(tr, actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"{tr.user.username} removed as {tr.get_role_display()}.")
        return redirect("people", slug)


class PasswordResetView(TournamentPermissionMixin, View):
    """Issues a new one-time password to a staff or admin account of this tournament."""

    permission = "people.manage"
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        tr = get_object_or_404(TournamentRole, pk=pk, tournament=self.tournament)
        try:
            password = accounts.reset_password(self.tournament, tr.user, actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect("people", slug)
        request.session["issued_password"] = {"username": tr.user.username, "password": password}
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
]
