"""Sign-in limits that stop a guesser without locking a whole venue out.

A venue's phones share one address (the hall's router), so failures are counted per account
and per account-and-address pair, never for an address on its own:

- 5 wrong passwords for one account from one address pause that account from that address;
- 20 for one account from anywhere pause it everywhere (guessing spread over many addresses);
- past 100 failures from one address in the window, an account with a failure of its own from
  there is paused at once, but an account with none still signs in with its password.

Failures older than the window no longer count, and tries during a pause are not counted, so
the minutes the page promises hold. A successful sign-in clears only that account's failures:
signing in to one's own account never wipes out the failures against someone else's. The
state is rows in the database, so every process counts the same tries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from .foundation.signed_in import signed_in_user
from .models import SignInFailure

# 429 Too Many Requests: a person reads the page, a script sees why it was refused.
LOCKED_OUT_STATUS = 429


@dataclass(frozen=True)
class Lock:
    """A pause on an account: everywhere (`everywhere`) or only from one address."""

    until: datetime
    everywhere: bool

    @property
    def minutes_left(self) -> int:
        return max(1, math.ceil((self.until - timezone.now()).total_seconds() / 60))


def username_key(username: str) -> str:
    return username.strip().lower()[: SignInFailure._meta.get_field("username").max_length]


def client_address(request: HttpRequest | None) -> str:
    if request is None:
        return ""
    if settings.BUNCO_BEHIND_PROXY:
        address = forwarded_client_ip(request)
    else:
        address = request.META.get("REMOTE_ADDR")
    return (address or "")[: SignInFailure._meta.get_field("address").max_length]


def forwarded_client_ip(request: HttpRequest) -> str | None:
    """The address our reverse proxy saw: the last X-Forwarded-For entry, the one it added.

    Earlier entries come from the client and could be forged to dodge the per-address limit.
    """
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return hops[-1] if hops else request.META.get("REMOTE_ADDR")


def _since() -> datetime:
    return timezone.now() - settings.SIGN_IN_WINDOW


def _nth_newest(times: list[datetime], n: int) -> datetime | None:
    """While `n` failures are in the window the pause holds; it ends when the n-th newest
    one grows older than the window."""
    return times[n - 1] + settings.SIGN_IN_WINDOW if len(times) >= n else None


def _busy_address_until(address: str) -> datetime | None:
    limit = settings.SIGN_IN_ADDRESS_LIMIT
    times = list(
        SignInFailure.objects.filter(address=address, at__gte=_since())
        .order_by("-at")
        .values_list("at", flat=True)[limit - 1 : limit]
    )
    return times[0] + settings.SIGN_IN_WINDOW if times else None


def _lock_from(rows: list[tuple[str, datetime]], addresses) -> Lock | None:
    """`rows` are one account's failures in the window, newest first."""
    locks = []
    if until := _nth_newest([at for _, at in rows], settings.SIGN_IN_ACCOUNT_LIMIT):
        locks.append(Lock(until, everywhere=True))
    for address in addresses:
        here = [at for where, at in rows if where == address]
        until = _nth_newest(here, settings.SIGN_IN_PAIR_LIMIT)
        if until is None and here and (busy := _busy_address_until(address)):
            until = min(here[0] + settings.SIGN_IN_WINDOW, busy)
        if until:
            locks.append(Lock(until, everywhere=False))
    return max(locks, key=lambda lock: lock.until) if locks else None


def _recent(username: str) -> list[tuple[str, datetime]]:
    return list(
        SignInFailure.objects.filter(username=username_key(username), at__gte=_since())
        .order_by("-at")
        .values_list("address", "at")
    )


def lock_for(username: str, address: str) -> Lock | None:
    """Whether a sign-in to `username` from `address` is paused, and until when."""
    return _lock_from(_recent(username), [address])


def locks_of(usernames) -> dict[str, Lock]:
    """The accounts paused from some address, by lower-cased username: what the organiser
    may lift on *Staff & admins*. One query for all, then only the few with failures."""
    rows: dict[str, list[tuple[str, datetime]]] = {}
    keys = {username_key(name) for name in usernames}
    for username, address, at in (
        SignInFailure.objects.filter(username__in=keys, at__gte=_since())
        .order_by("-at")
        .values_list("username", "address", "at")
    ):
        rows.setdefault(username, []).append((address, at))
    locks = {name: _lock_from(found, {where for where, _ in found}) for name, found in rows.items()}
    return {name: lock for name, lock in locks.items() if lock}


def lock_anywhere(username: str) -> Lock | None:
    return locks_of([username]).get(username_key(username))


def record_failure(username: str, address: str) -> None:
    now = timezone.now()
    # The window is all the limits look at: older rows only make the table grow.
    SignInFailure.objects.filter(at__lt=now - settings.SIGN_IN_WINDOW).delete()
    SignInFailure.objects.create(username=username_key(username), address=address, at=now)


def clear_failures(*, username: str | None = None, address: str | None = None) -> int:
    """Lifts the pauses of one account, of one address, or (neither given) of everyone."""
    failures = SignInFailure.objects.all()
    if username is not None:
        failures = failures.filter(username=username_key(username))
    if address is not None:
        failures = failures.filter(address=address)
    return failures.delete()[0]


class SignInLimitBackend(ModelBackend):
    """Django's password check behind the limits: a paused account's password is not even
    tried, so a guess during a pause learns nothing. Admin-site sign-ins go through it too."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if not username or password is None:
            return None
        address = client_address(request)
        if lock := lock_for(username, address):
            self._remember(request, lock)
            raise PermissionDenied
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            record_failure(username, address)
            # The failure that reaches a limit is answered with the page that says why.
            if lock := lock_for(username, address):
                self._remember(request, lock)
        else:
            clear_failures(username=username)
        return user

    def get_user(self, user_id):
        """The signed-in user of a request, with in the same statement their profile (the
        password-change middleware reads it on every request) and whether they may create
        tournaments (the menu asks on every page): one query instead of four."""
        user = signed_in_user(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

    @staticmethod
    def _remember(request, lock: Lock) -> None:
        if request is not None:
            request.sign_in_lock = lock


def lockout_response(request: HttpRequest, lock: Lock) -> HttpResponse:
    """The sign-in page's own "too many tries" page: how long, and who can lift it sooner."""
    response = TemplateResponse(
        request,
        "registration/locked_out.html",
        {"minutes": lock.minutes_left, "everywhere": lock.everywhere},
        status=LOCKED_OUT_STATUS,
    )
    return response.render()
