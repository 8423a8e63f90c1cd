from django.shortcuts import redirect
from django.urls import reverse


def no_account_needed(view):
    """Marks a public view that never looks at who is signed in (the room's polls: the change
    feed, the board's live part, the seat finder's results). The password check below then
    leaves the account unloaded, so a signed-in phone's poll costs no session or account
    query."""
    view.no_account_needed = True
    return view


class ForcePasswordChangeMiddleware:
    """Sends an account still on its one-time password to choose its own first."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if getattr(view_func, "no_account_needed", False):
            return None
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            profile = getattr(user, "profile", None)
            if profile is not None and profile.must_change_password:
                allowed = {reverse("password_change"), reverse("logout")}
                if request.path not in allowed and not request.path.startswith("/static/"):
                    return redirect("password_change")
        return None
