"""How django-axes' sign-in rate limit looks to a person, and whom it counts behind a proxy.

Settings point at these by name (`AXES_LOCKOUT_CALLABLE`, `AXES_CLIENT_IP_CALLABLE`).
"""

from __future__ import annotations

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

# 429 Too Many Requests: a person reads the page, a script sees why it was refused.
LOCKED_OUT_STATUS = 429


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The sign-in page's own "too many tries" page, instead of axes' bare text."""
    cool_off = get_cool_off(request)
    minutes = round(cool_off.total_seconds() / 60) if cool_off else None
    response = TemplateResponse(
        request, "registration/locked_out.html", {"minutes": minutes}, status=LOCKED_OUT_STATUS
    )
    return response.render()


def forwarded_client_ip(request: HttpRequest) -> str | None:
    """The address our reverse proxy saw: the last X-Forwarded-For entry, the one it added.

    Earlier entries come from the client and could be forged to dodge the per-address limit.
    """
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return hops[-1] if hops else request.META.get("REMOTE_ADDR")
