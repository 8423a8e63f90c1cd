"""Error pages in the site's layout, in plain words, each with the way back.

Django's own handlers render bare pages, and its CSRF failure page speaks of cookies and
tokens to a staff member who only signed in again in another tab. Here the CSRF failure
shows what was typed (never a password) in a form carrying a fresh token, so one press of
Save sends it again; nothing is re-sent without that press.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from scoring import queue
from tournaments.models import Role, Tournament, TournamentRole

log = logging.getLogger(__name__)

# Never shown again: the old token, and anything secret.
HIDDEN_FIELDS = ("csrfmiddlewaretoken",)
SECRET_WORDS = ("password", "secret", "token")


def _tournament_of(request: HttpRequest) -> Tournament | None:
    match = getattr(request, "resolver_match", None)
    slug = match.kwargs.get("slug") if match else None
    if not slug:
        return None
    return Tournament.objects.filter(slug=slug).first()


def _own_message(exception) -> str:
    """The sentence a view gave its 404 or 403 ("This printout is not ready."), not Django's
    technical ones ("No Tournament matches the given query", the resolver's tried patterns)."""
    if exception is None or not exception.args or not isinstance(exception.args[0], str):
        return ""
    message = exception.args[0]
    if "matches the given query" in message or not message.endswith("."):
        return ""
    return message


def bad_request(request: HttpRequest, exception=None) -> HttpResponse:
    return render(request, "errors/400.html", status=400)


def permission_denied(request: HttpRequest, exception=None) -> HttpResponse:
    """Says who can open the page for this account: the tournament's organisers by name."""
    tournament = _tournament_of(request)
    organisers: list[str] = []
    if tournament is not None:
        rows = TournamentRole.objects.filter(tournament=tournament, role=Role.ORGANISER)
        organisers = sorted(
            row.user.get_full_name() or row.user.get_username()
            for row in rows.select_related("user")
        )
    roles: list[str] = []
    if tournament is not None and request.user.is_authenticated:
        # A staff member not assigned to this pod has a role here: "no role" would be wrong.
        held = TournamentRole.objects.filter(tournament=tournament, user=request.user)
        roles = sorted(Role(role).label.lower() for role in held.values_list("role", flat=True))
    context = {
        "tournament": tournament,
        "organisers": organisers,
        "roles": roles,
        "reason": _own_message(exception),
    }
    return render(request, "errors/403.html", context, status=403)


def page_not_found(request: HttpRequest, exception=None) -> HttpResponse:
    context = {"reason": _own_message(exception), "tournament": _tournament_of(request)}
    return render(request, "errors/404.html", context, status=404)


class FormAddressMiddleware:
    """Django answers a GET to a form-only address with an empty 405, which a browser shows
    as a blank page: after a page drawn by a form's answer, the back button, a reload from
    history or a bookmark lands there. The site's layout says what happened and leads back,
    still as a 405 with its Allow header. Innermost, so the page knows the account."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or request.method != "GET" or response.content:
            return response
        context = {"tournament": _tournament_of(request)}
        page = render(request, "errors/405.html", context, status=405)
        page["Allow"] = response["Allow"]
        return page


def server_error(request: HttpRequest) -> HttpResponse:
    """Rendered without the request: whatever failed (the database, a context processor) may
    fail again, so the page asks for nothing but static files."""
    try:
        body = render_to_string("errors/500.html", {"home": reverse("home")})
    except Exception:  # noqa: BLE001 - the last resort must answer
        log.exception("The error page itself failed")
        body = "<!doctype html><title>Something went wrong</title><p>Something went wrong."
    return HttpResponse(body, status=500)


def _is_secret(name: str) -> bool:
    return name in HIDDEN_FIELDS or any(word in name.lower() for word in SECRET_WORDS)


def _label(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").strip().capitalize() or name


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Shows the posted entry again in a form with a fresh token, to be saved with one press.

    The usual cause on event night: the person signed in again in another tab (which renews
    the token), then saved a form opened before. Files cannot be carried over; the page says so.
    """
    log.warning("CSRF failure on %s: %s", request.path, reason)
    if queue.from_queue(request):
        return queue.answer(queue.FORBIDDEN, queue.STALE_TOKEN)
    fields = [
        (name, _label(name), values)
        for name, values in request.POST.lists()
        if not _is_secret(name)
    ]
    secrets_dropped = any(_is_secret(name) for name in request.POST if name not in HIDDEN_FIELDS)
    referer = request.headers.get("Referer", "")
    same_site = url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()})
    context = {
        "action": request.get_full_path(),
        "back": referer if same_site else reverse("home"),
        "fields": fields,
        "secrets_dropped": secrets_dropped,
        "files_dropped": bool(request.FILES),
        "signed_in": request.user.is_authenticated,
    }
    return render(request, "errors/csrf.html", context, status=403)
