"""Answers for the parts of pages a room keeps asking for, from the tournament's change counter.

The board's live part, the seat finder's results, round progress and a pod's tables are asked
for again every time the counter moves (static/js/live.js), by every projector and phone in
the hall. What they show changes only with a write that bumps the counter
(foundation/changes.py), so:

- the ETag is the counter (with what else the answer depends on): a browser asking again with
  it gets 304 Not Modified, having cost the tournament's row (which carries the counter) and
  nothing else; a pod's tables use the pod's version instead (`changes.pod_version`), so a
  save at one pod does not make every other pod's phone fetch its tables again;
- a changed answer is rendered once per count and shared through Django's cache (Redis when
  configured, so every gunicorn process shares it; memory on a laptop).

No Last-Modified: two saves in the same second would share one, so a client asking with
If-Modified-Since could be told nothing changed when something had; the ETag has no such gap.
Only fragments come through here, never whole pages: a page carries its flash messages and
a CSRF token, which must not be replayed to anyone else (a fragment that does use the token,
round progress' buttons, is cached per browser: `private`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.cache import get_conditional_response, patch_vary_headers

from tournaments.foundation import changes

from .models import Tournament

# Long enough for every poller to fetch a count's answer, short enough that answers for old
# counts (never asked for again) leave the cache soon.
SECONDS = 60


def _digest(request: HttpRequest, private: bool) -> str:
    """What the answer depends on besides the count: the address asked (path and query), the
    host (the board shows the seat finder's address), and for a private answer the account
    and its browser's CSRF secret."""
    parts = [request.get_full_path(), request.get_host(), settings.SITE_URL]
    if private:
        parts += [str(request.user.pk), request.META.get("CSRF_COOKIE", "")]
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=9).hexdigest()


def _headers(response: HttpResponse, etag: str, private: bool) -> HttpResponse:
    response["ETag"] = etag
    # Always ask again (no-cache), and tell shared caches to keep out of private answers.
    response["Cache-Control"] = "private, no-cache" if private else "no-cache"
    patch_vary_headers(response, ["HX-Request"])
    return response


def answer(
    request: HttpRequest,
    tournament: Tournament,
    render: Callable[[], HttpResponse],
    *,
    private: bool = False,
    version: str | None = None,
) -> HttpResponse:
    """`render()`'s answer, or 304 when the client holds it already, or the copy cached for
    the tournament's current count. `tournament` should come with `change_counter`
    (select_related) so the count costs no query of its own. Call it after the permission
    check, and mark `private` an answer that depends on who asks. `version`, for an answer
    that changes less often than the whole tournament (a pod's tables), stands for the
    count."""
    count = changes.seen(tournament) if version is None else version
    digest = _digest(request, private)
    etag = f'W/"{tournament.pk}.{count}.{digest}"'
    not_modified = get_conditional_response(request, etag=etag)
    if not_modified is not None:
        return _headers(not_modified, etag, private)
    # created_at: a tournament made again with a reused id (a test database) never reads
    # the answers of the one before.
    key = f"answer:{tournament.pk}:{tournament.created_at.timestamp()}:{count}:{digest}"
    stored = cache.get(key)
    if stored is not None:
        content, content_type = stored
        return _headers(HttpResponse(content, content_type=content_type), etag, private)
    had_secret = bool(request.META.get("CSRF_COOKIE"))
    response = render()
    if hasattr(response, "render"):
        response.render()
    # A render that put a CSRF token in is only kept for the browser whose secret it used.
    used_token = request.META.get("CSRF_COOKIE_NEEDS_UPDATE", False)
    if response.status_code == 200 and (not used_token or (private and had_secret)):
        cache.set(key, (response.content, response["Content-Type"]), SECONDS)
    return _headers(response, etag, private)


class LivePart:
    """For a page (a TemplateView after the permission check) with a live part that htmx
    fetches again whenever the room changes: that request gets `live_template` alone,
    rendered from the page's own context and answered through `answer`, private."""

    live_template: str

    def live_version(self) -> str | None:
        """What the live part changes with, when that is less than every change of the
        tournament (see `answer`); None: the tournament's count."""
        return None

    def get(self, request, *args, **kwargs):
        if request.htmx and not request.htmx.history_restore_request:
            return answer(
                request,
                self.tournament,
                lambda: TemplateResponse(request, self.live_template, self.get_context_data()),
                private=True,
                version=self.live_version(),
            )
        return super().get(request, *args, **kwargs)
