"""The site's own address as phones reach it: what QR codes, the board and e-mails link to.

In the foundation because pages, printouts and e-mails all need it, and none of them should
import another for it."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings


def site_url(request=None) -> str:
    """The address players' phones open (QR codes, the board's seat finder): SITE_URL if
    set, else the address the organiser's browser used (see `is_loopback` for the case
    where that only works on the laptop itself)."""
    configured = getattr(settings, "SITE_URL", "")
    if configured:
        return configured.rstrip("/")
    if request is not None:
        return request.build_absolute_uri("/").rstrip("/")
    return "http://localhost:8000"


def is_loopback(url: str) -> bool:
    """True for an address only the computer serving it can open (127.0.0.1, localhost,
    ::1, 0.0.0.0): printed on a card or shown on the board, no phone could reach it."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified
