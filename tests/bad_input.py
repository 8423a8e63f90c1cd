"""Hostile input for the bad-input tests: values, a snapshot of the database, and the check
every request must pass.

The promise to the organiser is simple: whatever a browser, a script or a confused phone
sends, the site answers with a message (a form error, a 400, a redirect with an error) or
does what was asked, and a refusal leaves the database exactly as it was. The check here
holds a response to that: no 500, a refusal visible to the person, and for a refusal an
unchanged content hash of every table of the project's apps. Whatever the answer, the other
tournament's rows never change: ids of its players, pods or prizes posted to this
tournament's pages must not reach them.

The world (two rehearsed events with different organisers and a tournament at the door) is
built once per test module inside a transaction that is rolled back at the end; each example
runs in a savepoint that is rolled back too, so examples never see each other's changes.
"""

from __future__ import annotations

import hashlib
import html
import os
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.messages import constants as levels
from django.contrib.messages import get_messages
from django.db import connection, models, transaction
from django.forms import BaseForm
from django.test import Client, override_settings
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from scoring.forms import STALE_PAGE
from scoring.services import rounds as round_service
from tests.support.factories import (
    OrganiserFactory,
    TournamentFactory,
    UserFactory,
    checked_in,
    grant,
)
from tournaments.models import Player, Stage, Tournament, TournamentRole
from tournaments.services.presets import copy_preset
from tournaments.services.rehearsal import rehearse

# Every form is posted to this many times per run (the suite has some sixty forms and pages);
# BUNCO_FUZZ_EXAMPLES=200 digs deeper before a release. No shrinking: a failing post is
# printed as drawn, and shrinking posts through the whole stack can take minutes.
FUZZ = settings(
    max_examples=int(os.environ.get("BUNCO_FUZZ_EXAMPLES", "10")),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

# Reading a page is cheaper to get right than a form; fewer examples per page.
PAGES = settings(FUZZ, max_examples=max(FUZZ.max_examples // 2, 1))

HOSTILE_STRINGS = [
    "",
    " ",
    " \t\r\n ",
    "\x00",
    "ann\x00bob",
    "\u202eevil\u202c",  # right-to-left override
    "مرحبا",
    "😀🎲" * 20,
    "e\u0301",
    "\ufeff",
    "²",  # a digit to str.isdigit(), not to int()
    "١٢",  # Arabic-Indic digits
    "-1",
    "-99999999999",
    "0",
    str(2**31),
    str(2**63),
    str(2**64 + 1),
    "1e309",
    "1.5",
    "NaN",
    "inf",
    "0x1F",
    "None",
    "null",
    "true",
    "[]",
    "{'a': 1}",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    '=HYPERLINK("http://x")',
    "../../etc/passwd",
    "%00",
    "on",
    "overall",
]


def hostile_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(HOSTILE_STRINGS),
        # Built when drawn, so a 100k-character value is not repeated in every repr.
        st.sampled_from(["x", "9", "é", "\x00"]).map(lambda c: c * 100_000),
        st.just(4301).map(lambda n: "9" * n),  # more digits than int() converts
        st.text(max_size=40),
        st.integers().map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(str),
    )


def hostile(plausible: st.SearchStrategy | None = None) -> st.SearchStrategy:
    """A value for one field: plausible about half the time, else hostile, sometimes a list."""
    bad = st.one_of(hostile_text(), st.lists(hostile_text(), max_size=3))
    if plausible is None:
        return bad
    return st.one_of(plausible.map(str), plausible.map(str), bad)


def form_data(fields: dict[str, st.SearchStrategy | None]) -> st.SearchStrategy:
    """Posted data: each field present or missing, plus the odd field nobody asked for."""
    base = st.fixed_dictionaries(
        {}, optional={name: hostile(strategy) for name, strategy in fields.items()}
    )
    extra = st.dictionaries(st.sampled_from(["extra", "id", "tournament", "pk", "csrf"]), hostile())
    return st.tuples(base, extra).map(lambda pair: {**pair[1], **pair[0]})


def ids(*pools: list[int]) -> st.SearchStrategy[int]:
    """Ids of this tournament's objects, the other tournament's, and ids that don't exist."""
    known = sorted({i for pool in pools for i in pool})
    return st.one_of(
        st.sampled_from(known) if known else st.nothing(),
        st.sampled_from([0, 10**6, 2**31, 2**63 + 5]),
    )


# --- the database's state -------------------------------------------------------------------


def project_models() -> list[type[models.Model]]:
    found = [get_user_model()]
    for label in ("tournaments", "scoring"):
        found += apps.get_app_config(label).get_models(include_auto_created=True)
    return found


def _path_to_tournament(model, depth: int = 4) -> str | None:
    """The shortest foreign-key path from a model to its tournament ("pod__stage__tournament")."""
    if model is Tournament:
        return "pk"
    frontier: list[tuple[type[models.Model], str]] = [(model, "")]
    for _ in range(depth):
        nxt = []
        for current, prefix in frontier:
            for f in current._meta.concrete_fields:
                if not isinstance(f, models.ForeignKey):
                    continue
                path = f"{prefix}{f.name}"
                if f.related_model is Tournament:
                    return path
                nxt.append((f.related_model, f"{path}__"))
        frontier = nxt
    return None


# Bookkeeping that changes without anyone asking for a change: logging the test client in.
NOT_HASHED = {"last_login"}


def _columns(model) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if f.name not in NOT_HASHED]


def _digests(querysets: dict[str, models.QuerySet]) -> dict[str, tuple[int, str]]:
    """Row count and content hash per queryset; on PostgreSQL hashed by the server, in one
    query, so a snapshot costs one round trip instead of thousands of rows."""
    if connection.vendor != "postgresql":
        found = {}
        for label, qs in querysets.items():
            rows = list(qs.order_by("pk").values_list(*(f.attname for f in _columns(qs.model))))
            digest = hashlib.sha256(repr(rows).encode("utf-8", "backslashreplace")).hexdigest()
            found[label] = (len(rows), digest)
        return found
    qn = connection.ops.quote_name
    parts, params = [], []
    for label, qs in querysets.items():
        model = qs.model
        pk = f"t.{qn(model._meta.pk.column)}"
        row = ", ".join(f"t.{qn(f.column)}" for f in _columns(model))
        sql, where_params = qs.values("pk").query.sql_with_params()
        parts.append(
            f"SELECT %s, COUNT(*), COALESCE(md5(string_agg(md5(ROW({row}, NULL)::text), '' "
            f"ORDER BY {pk})), '') FROM {qn(model._meta.db_table)} t WHERE {pk} IN ({sql})"
        )
        params += [label, *where_params]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        return {label: (count, digest) for label, count, digest in cursor.fetchall()}


def snapshot() -> dict[str, tuple[int, str]]:
    """Row count and content hash of every table of the project's apps (and the accounts)."""
    return _digests({m._meta.label: m.objects.all() for m in project_models()})


def tournament_snapshot(tournament: Tournament) -> dict[str, tuple[int, str]]:
    """The same, limited to the rows that belong to one tournament."""
    querysets = {}
    for model in project_models():
        path = _path_to_tournament(model)
        if path is not None:
            querysets[model._meta.label] = model.objects.filter(**{path: tournament.pk})
    return _digests(querysets)


def changed(before: dict, after: dict) -> list[str]:
    return sorted(label for label in before if before[label] != after[label])


def text_faults() -> list[str]:
    """Stored text a form should never have let through: NUL bytes, or longer than the column
    (SQLite does not enforce max_length; PostgreSQL would have raised)."""
    faults = []
    for model in project_models():
        for f in model._meta.concrete_fields:
            if not isinstance(f, models.CharField | models.TextField):
                continue
            for pk, value in model.objects.values_list("pk", f.name):
                if value is None:
                    continue
                if "\x00" in value:
                    faults.append(f"{model._meta.label}.{f.name} #{pk} holds a NUL byte")
                if f.max_length and len(value) > f.max_length:
                    faults.append(f"{model._meta.label}.{f.name} #{pk} is {len(value)} long")
    return faults


# --- the world --------------------------------------------------------------------------------


@dataclass
class World:
    done: Tournament  # played to the grand prize, prizes paid (organiser: `organiser`)
    live: Tournament  # qualifying round 3 open (organiser: `rival`)
    door: Tournament  # registration and check-in open, nobody drawn (organiser: `organiser`)
    organiser: object
    rival: object
    staff: object  # staff of `done`, assigned to its pods

    def other(self, tournament: Tournament) -> Tournament:
        """The tournament whose ids are posted to `tournament`'s pages: not the user's."""
        return self.done if tournament.pk == self.live.pk else self.live

    def actor(self, tournament: Tournament):
        """The organiser of `tournament`, who has no role at `other(tournament)`."""
        return self.rival if tournament.pk == self.live.pk else self.organiser


def build_world() -> World:
    done = rehearse(players=24, preset="mesquite", seed=3, slug="bad-done").tournament
    live = rehearse(
        players=24, preset="classic", seed=5, slug="bad-live", stop_after_round=2
    ).tournament
    organiser = get_user_model().objects.get(username="organiser")
    rival = OrganiserFactory(username="rival-organiser")
    TournamentRole.objects.filter(tournament=live, role="organiser").update(user=rival)
    stage = live.stages.get(kind=Stage.Kind.QUALIFYING)
    round_service.start_next_round(stage, actor=rival)
    door = TournamentFactory(organiser=organiser, slug="bad-door", capacity=40)
    checked_in(door, 12)
    Player.objects.create(tournament=door, name="Late Lou", email="lou@example.org")
    copy_preset(live.preset, "Rival rules", rival)
    copy_preset(done.preset, "My rules", organiser)
    staff = UserFactory(username="pod-staff")
    grant(done, staff, "staff")
    for pod in done.stages.get(kind=Stage.Kind.QUALIFYING).pods.all():
        pod.staff.add(staff)
    return World(done, live, door, organiser, rival, staff)


@pytest.fixture(scope="module", name="world")
def world_fixture(django_db_setup, django_db_blocker, tmp_path_factory):
    """Built once per module and rolled back after it, like TestCase.setUpTestData."""
    hashers = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    media = tmp_path_factory.mktemp("media")
    with (
        django_db_blocker.unblock(),
        override_settings(PASSWORD_HASHERS=hashers, MEDIA_ROOT=media),
        transaction.atomic(),
    ):
        yield build_world()
        transaction.set_rollback(True)


# --- one request, checked ------------------------------------------------------------------


@contextmanager
def rolled_back() -> Iterator[None]:
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def client_for(user=None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def form_errors(response) -> list[str]:
    """Every error of every bound form the page rendered, and the pages' own error slots."""
    found: list[str] = []
    for context in response.context or []:
        for value in context.flatten().values() if hasattr(context, "flatten") else []:
            if isinstance(value, BaseForm) and value.is_bound:
                found += [str(e) for errors in value.errors.values() for e in errors]
    # The pages' own slots: a file's problems, an error, why a table's form is not shown.
    for key in ("problem", "error", "confirm_error", "resolve_error", "blocked"):
        value = response.context.get(key) if response.context else None
        if value:
            found.append(str(value))
    return list(dict.fromkeys(found))  # each template's context repeats the page's forms


@dataclass
class Baseline:
    """The world's state before any example: every example starts from it (all rolled back)."""

    everything: dict[str, tuple[int, str]]
    tournaments: dict[int, dict[str, tuple[int, str]]]


@pytest.fixture(name="baseline")
def baseline_fixture(world, db) -> Baseline:
    return Baseline(
        snapshot(), {t.pk: tournament_snapshot(t) for t in (world.done, world.live, world.door)}
    )


@dataclass
class Outcome:
    response: object
    refused: bool
    messages: list


SUCCESS_LEVELS = {levels.SUCCESS, levels.INFO}
# A hidden version field's error is shown in the page's own words.
ERROR_MARKS = (STALE_PAGE,)


def send(
    client: Client,
    method: str,
    url: str,
    data=None,
    *,
    baseline: Baseline,
    other: Tournament | None = None,
    quiet_redirect: bool = False,
    may_change: frozenset[str] = frozenset(),
    content_type: str | None = None,
    **extra,
) -> Outcome:
    """Sends one request and holds the answer to the promise; returns how it was answered.

    A refusal is a 4xx, a page shown again with its errors, or a redirect with an error or
    warning message; a success is a redirect with a success message (or, with
    `quiet_redirect`, a redirect to a page that is itself the answer). With `content_type`,
    `data` is the raw body.
    """
    if content_type is not None:  # a raw body, sent as is (Client.post would re-encode it)
        response = client.generic(method.upper(), url, data, content_type, **extra)
    else:
        call = client.post if method == "post" else client.get
        response = call(url, data if data is not None else {}, **extra)
    said = f"{method.upper()} {url:.200} {data!r:.300}"
    if response.status_code >= 500:
        exc = getattr(response, "exc_info", None)
        detail = "".join(traceback.format_exception(*exc)) if exc else ""
        pytest.fail(f"{said}: {response.status_code}\n{detail}")
    sent = list(get_messages(response.wsgi_request))
    if response.status_code in (301, 302, 303):
        if method == "post" and not sent and not quiet_redirect:
            pytest.fail(f"{said} redirected without a message")
        refused = method == "get" or any(m.level not in SUCCESS_LEVELS for m in sent)
    elif response.status_code == 200:
        refused = True  # a page shown again: its errors, or a step asking to confirm
        errors = form_errors(response) if method == "post" else []
        page = "" if response.streaming else response.content.decode("utf-8", "replace")
        if errors:
            # The page shows one of the errors, or its own words for them.
            shown = any(html.escape(e) in page or e in page for e in errors)
            assert shown or any(mark in page for mark in ERROR_MARKS), (
                f"{said}: none of the errors {errors[:3]} is on the page"
            )
    else:
        refused = True
    now = snapshot()
    if refused:
        unexpected = [c for c in changed(baseline.everything, now) if c not in may_change]
        assert unexpected == [], (
            f"{said} was refused ({response.status_code}, {[m.message for m in sent]}) but "
            f"changed {unexpected}"
        )
    else:
        assert text_faults() == [], said
        if other is not None:
            assert changed(baseline.tournaments[other.pk], tournament_snapshot(other)) == [], (
                f"{said} changed the other tournament"
            )
    return Outcome(response, refused, sent)


def players_of(tournament: Tournament) -> list[int]:
    return list(tournament.players.values_list("pk", flat=True))
