"""The event-night bench's clients: a session on `http.client` that reads forms like a phone
does, and the counters every client fills (timings, saves for the database check).

Split from `event_night` because `dropout` and `floor` drive the same client and read the
same ledger; what the room does with it is `night_room`.
"""

from __future__ import annotations

import html
import http.client
import math
import random
import re
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from urllib.parse import urlencode

SLUG = "event-night"
TIMEOUT = 30  # seconds a client waits for an answer before it counts a connection error
SAVE_PAGE = "result save"
# What the table page says when a save lost the race: the two-staff conflict, or the unique
# constraint when both reached the database together.
STALE = re.compile(r'id="conflict"|at the same moment|changed meanwhile')
CONFLICT = 409  # a stale save may also be answered so: still the site working


# --- measuring ----------------------------------------------------------------------------------


@dataclass
class Stats:
    """Latencies per page and problems by kind, shared by every client thread."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    not_modified: Counter = field(default_factory=Counter)  # 304s by page
    stale: int = 0

    def record(self, page: str, seconds: float) -> None:
        with self.lock:
            self.latencies[page].append(seconds)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors[what] += 1

    def count_not_modified(self, page: str) -> None:
        with self.lock:
            self.not_modified[page] += 1

    def count_stale(self) -> None:
        with self.lock:
            self.stale += 1

    @property
    def requests(self) -> int:
        return sum(map(len, self.latencies.values()))


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile: a value some request really took."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


@dataclass
class Save:
    """One post of a table's result, as the client saw it."""

    pod: int
    table: int
    base: int
    winner: int
    note: str  # unique per post: how the database check finds the row


@dataclass
class Ledger:
    lock: threading.Lock = field(default_factory=threading.Lock)
    accepted: list[Save] = field(default_factory=list)
    refused: list[Save] = field(default_factory=list)

    def add(self, save: Save, accepted: bool) -> None:
        with self.lock:
            (self.accepted if accepted else self.refused).append(save)


# --- a client -------------------------------------------------------------------------------


class FormInputs(HTMLParser):
    """Every named input (and its value) inside the form with `form_id`, or the whole page."""

    def __init__(self, form_id: str | None) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = form_id is None
        self.values: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and self.form_id is not None:
            self.inside = attributes.get("id") == self.form_id
        elif tag == "input" and self.inside and attributes.get("name"):
            self.values[attributes["name"]] = attributes.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form" and self.form_id is not None:
            self.inside = False


def form_inputs(page: str, form_id: str | None = None) -> dict[str, str]:
    parser = FormInputs(form_id)
    parser.feed(page)
    return parser.values


@dataclass
class Response:
    status: int
    body: str
    location: str
    etag: str = ""


class Client:
    """One phone or browser: its own cookies, each request to the next instance in turn."""

    def __init__(self, ports: list[int], stats: Stats, first: int = 0) -> None:
        self.ports = ports
        self.turn = first
        self.stats = stats
        self.cookies: dict[str, str] = {}

    def request(
        self,
        page: str,
        method: str,
        path: str,
        form: dict | None = None,
        htmx: bool = False,
        headers: dict[str, str] | None = None,
    ) -> Response | None:
        """The response, or None after counting a connection error or an unexpected status.

        A new connection per request, as a phone on the venue's Wi-Fi often makes; no
        keep-alive race decides whether a request counts as an error.
        """
        port = self.ports[self.turn % len(self.ports)]
        self.turn += 1
        headers = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        body = None
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        start = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            raw = conn.getresponse()
            content = raw.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as exc:
            self.stats.error(f"{page}: {type(exc).__name__}")
            return None
        finally:
            conn.close()
        self.stats.record(page, time.perf_counter() - start)
        if raw.status == 304:
            self.stats.count_not_modified(page)
        for header in raw.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        if raw.status >= 400 and raw.status != CONFLICT:
            self.stats.error(f"{page}: HTTP {raw.status}")
            return None
        return Response(
            raw.status, content, raw.headers.get("Location", ""), raw.headers.get("ETag", "")
        )

    def get(self, page: str, path: str, htmx: bool = False, etag: str = "") -> Response | None:
        """A GET; with `etag`, conditional, as a browser revalidates what it holds."""
        headers = {"If-None-Match": etag} if etag else None
        return self.request(page, "GET", path, htmx=htmx, headers=headers)

    def log_in(self, username: str, password: str) -> bool:
        page = self.get("login", "/accounts/login/")
        if page is None:
            return False
        form = form_inputs(page.body)
        form.update(username=username, password=password)
        answer = self.request("login", "POST", "/accounts/login/", form)
        if answer is None or answer.status != 302:
            self.stats.error("login: refused")
            return False
        return True


def first_error(page: str) -> str:
    """The first message a refused form shows, for the error count."""
    found = re.search(r'id="form-errors"><div>([^<]+)<|class="text-danger[^"]*">([^<]+)<', page)
    return html.unescape(found.group(1) or found.group(2)) if found else "no message shown"


def pause(low: float, high: float, until: float, rng: random.Random) -> bool:
    """Thinks for a while; False once the load's time is up."""
    time.sleep(max(0.0, min(rng.uniform(low, high), until - time.monotonic())))
    return time.monotonic() < until
