"""The answer a phone's queue gets: JSON instead of a page when the request says it is one.

The pod page's forms save through a small script that queues them on the phone while the
network is down and sends them later (docs/offline.md). The script cannot read a page, so a
save it sends with `X-Bunco-Queue: 1` is answered with a status, a sentence for its banner,
the form's errors and the version stored, and an HTTP code that says what to do with the
queued save: keep it (network or server down), drop it (saved, duplicate), or show it
(conflict, invalid, forbidden). `X-Bunco-Queued: n` says how many saves still wait on the
phone; the organiser's stage page shows it per pod.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import resolve_url

from scoring.services import phones
from tournaments.foundation.errors import UserFacingError, VersionConflict
from tournaments.foundation.text import first_error, whole_number

QUEUE_HEADER = "X-Bunco-Queue"
QUEUED_HEADER = "X-Bunco-Queued"
MAX_QUEUED = 10_000

SAVED, DUPLICATE, CONFLICT, INVALID, FORBIDDEN = (
    "saved",
    "duplicate",
    "conflict",
    "invalid",
    "forbidden",
)
HTTP_STATUS = {SAVED: 200, DUPLICATE: 200, CONFLICT: 409, INVALID: 422, FORBIDDEN: 403}
SIGNED_OUT = (
    "You are signed out, so nothing was saved. Sign in again: the saves waiting on this "
    "phone are kept and sent afterwards."
)
NOT_ALLOWED = "This account may not save here, so nothing was saved. Ask the organiser."
STALE_TOKEN = (
    "This page is out of date (you signed in again since it opened), so nothing was saved. "
    "Reload the page: the saves waiting on this phone are kept and sent with it."
)
PASSWORD_FIRST = "Choose your own password first (open any page), then the saves are sent."


def from_queue(request) -> bool:
    return request.headers.get(QUEUE_HEADER) == "1"


def queued_count(request) -> int | None:
    """How many saves the phone says are still waiting; None when it did not say (or said
    something that is not a count)."""
    value = whole_number(request.headers.get(QUEUED_HEADER, "").strip())
    return None if value is None else min(value, MAX_QUEUED)


def invalid(request, pod, form, *, version: int | None = None) -> JsonResponse:
    """A form that did not validate: its first error as the banner, all of them by field
    (the phone says "not saved" itself, for every refusal)."""
    return reply(
        request,
        pod,
        INVALID,
        first_error(form),
        errors=form_errors(form),
        version=version,
    )


def already(replayed: bool, text: str) -> str:
    """What a save says; a save sent again says that it changed nothing."""
    return f"Already saved, nothing changed: {text}" if replayed else text


def refused(request, pod, exc: UserFacingError) -> JsonResponse:
    """A save the service refused: a conflict (with the version now stored) or invalid."""
    if isinstance(exc, VersionConflict):
        return reply(request, pod, CONFLICT, exc.message, version=exc.version)
    errors = {exc.field or "__all__": [exc.message]}
    return reply(request, pod, INVALID, exc.message, errors=errors)


def form_errors(form) -> dict[str, list[str]]:
    """The form's errors by field name; errors of the whole form under "__all__"."""
    return {name: [str(message) for message in errors] for name, errors in form.errors.items()}


def answer(
    status: str,
    message: str,
    *,
    errors: dict[str, list[str]] | None = None,
    version: int | None = None,
    next_url: str | None = None,
) -> JsonResponse:
    """`next`, when given, is the page the form itself would have gone to (the next card to
    type in): the phone opens it if the staff member is still waiting on this save."""
    body = {"status": status, "message": message, "errors": errors or {}, "version": version}
    if next_url:
        body["next"] = next_url
    return JsonResponse(body, status=HTTP_STATUS[status])


def reply(
    request,
    pod,
    status: str,
    message: str,
    *,
    errors: dict[str, list[str]] | None = None,
    version: int | None = None,
    next_url: str | None = None,
) -> JsonResponse:
    """The answer to a queued save about `pod`, noting that the phone reached the server."""
    phones.report(request.user, pod, queued_count(request))
    return answer(status, message, errors=errors, version=version, next_url=next_url)


class QueueAnswerMiddleware:
    """A queued save that never reaches its view (signed out, no permission, a password to
    change first) is still answered in JSON, so the phone keeps the save and says why."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not from_queue(request) or isinstance(response, JsonResponse):
            return response
        signed_in = getattr(request, "user", None) is not None and request.user.is_authenticated
        if response.status_code in (301, 302, 303):
            target = response.get("Location", "")
            if target.startswith(resolve_url(settings.LOGIN_URL)):
                return answer(FORBIDDEN, SIGNED_OUT)
            if target.startswith(resolve_url("password_change")):
                return answer(FORBIDDEN, PASSWORD_FIRST)
        if response.status_code == 403:
            return answer(FORBIDDEN, NOT_ALLOWED if signed_in else SIGNED_OUT)
        return response

    def process_exception(self, request, exception):
        if from_queue(request) and isinstance(exception, PermissionDenied):
            return answer(FORBIDDEN, str(exception) or NOT_ALLOWED)
        return None
