from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.validators import MaxLengthValidator
from django.urls import path, reverse_lazy

from ..lockout import lockout_response
from ..models import UserProfile
from ..permissions import AUTHENTICATED, PUBLIC


class LoginForm(AuthenticationForm):
    """Refuses a username longer than any account's before trying it.

    Django's form only sets the field's `max_length` for the browser, so any length reached
    `authenticate()` and was counted as a failed sign-in (the rate limit's table once refused
    it on PostgreSQL, and the sign-in page answered with a server error).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.validators.append(MaxLengthValidator(username.max_length))


class LoginView(auth_views.LoginView):
    permission = PUBLIC
    template_name = "registration/login.html"
    redirect_authenticated_user = True
    authentication_form = LoginForm

    def form_invalid(self, form):
        # Set by the sign-in limits' backend when this try was refused or reached a limit.
        if lock := getattr(self.request, "sign_in_lock", None):
            return lockout_response(self.request, lock)
        return super().form_invalid(form)


class LogoutView(auth_views.LogoutView):
    permission = PUBLIC


class PasswordChangeView(auth_views.PasswordChangeView):
    """Also ends the one-time password: the account now has a password only its owner knows."""

    permission = AUTHENTICATED
    template_name = "registration/password_change.html"
    success_url = reverse_lazy("landing")

    def form_valid(self, form):
        response = super().form_valid(form)
        UserProfile.objects.filter(user=self.request.user).update(must_change_password=False)
        messages.success(self.request, "Your password is changed.")
        return response


urlpatterns = [
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path("accounts/password/", PasswordChangeView.as_view(), name="password_change"),
]
