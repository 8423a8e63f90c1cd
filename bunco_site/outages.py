"""A database that is briefly gone (PostgreSQL restarted mid-event) answers with a clean 503
page instead of a server error, and the site carries on once it is back.

Django turns an exception into a 500 response at the layer where it was raised. A view's
error reaches `process_exception`; but most requests first meet the database in a middleware
(the session behind `request.user`), and that error is already a 500 response by the time it
gets back here. So Django's `got_request_exception` signal, sent while any such error is being
handled, marks the request, and the middleware swaps that 500 for the 503 page.

Nothing is retried: the failed request's transaction was never committed, Django closes the
broken connection when the request ends, and CONN_HEALTH_CHECKS replaces a persistent
connection that died while idle. So the page tells the person to try again, and the next
request works without restarting the site.

Unless the request had already stored something: a result saved, then the page after it
failing to load. The middleware watches the audit entries committed during the request
(`audit.watch_commits`: every service write has one), and the page then says what was stored
and not to save it again, instead of "nothing was stored".
"""

from __future__ import annotations

import logging
import sys

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme

from tournaments.foundation import audit

log = logging.getLogger(__name__)

MESSAGE = (
    "The database was briefly unavailable; nothing you were saving was stored, please try again."
)
STORED_MESSAGE = (
    "What you saved was stored ({what}), but the database was briefly unavailable just after, "
    "so the page could not be shown. Do not save it again: reload the page in a few seconds."
)
TEMPLATE = "503.html"
RETRY_AFTER = 5  # seconds: what a restart of PostgreSQL takes
HTMX_EVENT = "databaseUnavailable"  # triggered on the page through the HX-Trigger header
_MARK = "_bunco_database_outage"
_STORED = "_bunco_stored"


def is_outage(exc: BaseException | None) -> bool:
    """Connection refused or dropped, a server shutting down: Django wraps them all as these."""
    return isinstance(exc, OperationalError | InterfaceError)


def _page_to_reload(request: HttpRequest) -> str:
    """Where the form was (the page that sent this request), else this address."""
    referer = request.headers.get("Referer", "")
    same_site = url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.META.get("HTTP_HOST", "")}
    )
    return referer if same_site else request.path


def outage_response(request: HttpRequest) -> HttpResponse:
    """The 503 page, or for htmx a small fragment and an event the page can show. Rendered
    without the request, so no context processor can touch the database again."""
    fragment = request.headers.get("HX-Request") == "true"
    stored = getattr(request, _STORED, None) or []
    context = {"message": MESSAGE, "fragment": fragment, "stored": bool(stored)}
    if stored:
        context["message"] = STORED_MESSAGE.format(what="; ".join(stored))
        context["reload"] = _page_to_reload(request)
    body = render_to_string(TEMPLATE, context)
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    if fragment:
        response["HX-Trigger"] = HTMX_EVENT
    return response


@receiver(got_request_exception)
def _mark_outage(sender, request: HttpRequest | None = None, **kwargs) -> None:
    # Sent from inside Django's `except` block, so the error is the one being handled.
    if request is not None and is_outage(sys.exc_info()[1]):
        setattr(request, _MARK, True)


class DatabaseOutageMiddleware:
    """Place it before any middleware that may query the database (sessions, auth)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with audit.watch_commits() as stored:
            setattr(request, _STORED, stored)
            response = self.get_response(request)
        if getattr(request, _MARK, False):
            return outage_response(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not is_outage(exception):
            return None
        log.warning("Database unavailable for %s %s: %s", request.method, request.path, exception)
        return outage_response(request)
