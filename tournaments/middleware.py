from django.shortcuts import redirect
from django.urls import reverse

from .permissions import view_reads_account


class ForcePasswordChangeMiddleware:
    """Sends an account still on its one-time password to choose its own first."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not view_reads_account(view_func):
            return None  # a public poll: its account is never loaded
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            profile = getattr(user, "profile", None)
            if profile is not None and profile.must_change_password:
                allowed = {reverse("password_change"), reverse("logout")}
                if request.path not in allowed and not request.path.startswith("/static/"):
                    return redirect("password_change")
        return None
