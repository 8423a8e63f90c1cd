"""Every URL pattern of the site, asked GET and POST by every role, answers as its view declares.

The expectation comes from each view's declared `permission` and the codes each role holds
(`ROLE_PERMISSIONS`), narrowed by the mixins that check more (a pod's own staff, the ledger,
unpublished standings), plus a short table of exceptions. A new pattern is walked as soon as
it exists; the walk fails when it cannot tell what a pattern expects (a view outside the
permission mixin, a PUBLIC page nobody listed, an object id it does not know how to fill in).
Every request runs in a savepoint that is rolled back, and a refused request must not have
sent a single INSERT, UPDATE or DELETE.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Permission
from django.contrib.auth.views import LoginView as DjangoLoginView
from django.contrib.auth.views import LogoutView as DjangoLogoutView
from django.contrib.auth.views import PasswordChangeView as DjangoPasswordChangeView
from django.core import signing
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import URLResolver, get_resolver, path, resolve, reverse
from django.views.generic import TemplateView
from PIL import Image

from scoring.mixins import PodAccessMixin, StandingsAccessMixin
from scoring.presenters.stages import stages_newest_first
from tests.support.factories import (
    OrganiserFactory,
    PlayerFactory,
    TournamentFactory,
    UserFactory,
    grant,
)
from tournaments.models import Payout, Printout, PrizeAward, Role, RulePreset, Seat
from tournaments.permissions import (
    AUTHENTICATED,
    PERMISSIONS,
    PUBLIC,
    ROLE_PERMISSIONS,
    OrganiserRequiredMixin,
    PermissionMixin,
    TournamentPermissionMixin,
)
from tournaments.services import cashbook
from tournaments.services.invitations import invite
from tournaments.services.player_links import player_token
from tournaments.services.presets import copy_preset
from tournaments.services.printouts import card_token
from tournaments.services.receipts import Receipt
from tournaments.services.rehearsal import rehearse
from tournaments.views.home import HomeView
from tournaments.views.prizes.ledger import LedgerAccessMixin
from tournaments.views.registration import CONFIRMATION_SALT

pytestmark = pytest.mark.django_db

ROLES = (
    "anonymous",
    "player",  # no account: a registration code, a confirmation link, a QR card link
    "staff_other",  # staff of the tournament, assigned to another pod
    "staff_pod",  # staff assigned to the pod in the URL
    "admin",
    "organiser_other",  # organiser of another tournament
    "organiser",
)
# The tournament role each walking role holds at the walked tournament.
ROLE_AT_TOURNAMENT = {
    "staff_other": Role.STAFF,
    "staff_pod": Role.STAFF,
    "admin": Role.ADMIN,
    "organiser": Role.ORGANISER,
}
ACCOUNTS = ("staff_other", "staff_pod", "admin", "organiser_other", "organiser")
MAY_CREATE_TOURNAMENTS = {"organiser", "organiser_other"}

# Views outside TournamentPermissionMixin/OrganiserRequiredMixin, each with the reason.
OUTSIDE_THE_MIXIN = {
    HomeView: "the landing page: open registrations, and each account's own tournaments",
    DjangoLoginView: "signing in must work signed out",
    DjangoLogoutView: "signing out is open to everyone (POST only)",
    DjangoPasswordChangeView: "Django's login_required guards it; it needs no tournament",
}
# Pages anyone may see. A new view declaring PUBLIC must be added here on purpose.
PUBLIC_PAGES = {
    "home",
    "login",
    "logout",
    "tournament-public",
    "register",
    "register-done",
    "card-check",
    "seat-finder",
    "board",
    "board-live",
    "live-changes",
    "my-card",
    "player-page",
    "player-cancel",
    "player-card-problem",
    "player-email-again",
    "player-accept",
    "code-again",
    "service-worker",
}
# Views that declare PUBLIC but check codes themselves: any one of these codes opens them.
GATES = {
    LedgerAccessMixin: {"payouts.pay", "prizes.award"},
    StandingsAccessMixin: {"tournament.view"},  # until the organiser publishes the standings
}
# (url name, role, method) -> outcome, where the declared code is not the whole story.
EXCEPTIONS = {
    # Copied rule presets belong to their owner: another organiser cannot even see them. (A
    # POST to the detail page is refused as a method first, and an empty copy request is sent
    # back for a name before the preset is looked up: both change nothing.)
    ("preset-detail", "organiser_other", "get"): "not_found",
    ("preset-edit", "organiser_other", "get"): "not_found",
    ("preset-edit", "organiser_other", "post"): "not_found",
}
# Views that look up the object an empty POST does not name: those allowed get a 404.
EMPTY_POST_NAMES_NOTHING = {"prize-nominate"}
# Written by hand, not derived: the derivation must agree on who reaches money and people.
SPOT_CHECKS = {
    "payout-pay": {"admin", "organiser"},
    "payout-void": {"admin", "organiser"},
    "prize-award": {"admin", "organiser"},
    "ledger": {"admin", "organiser"},
    "cashbook": {"admin", "organiser"},
    "cashbook-receipt": {"admin", "organiser"},
    "cashbook-donation": {"admin", "organiser"},
    "checkin-pay": {"admin", "organiser"},
    "cash-box": {"admin", "organiser"},
    "people": {"organiser"},
    "role-password": {"organiser"},
    "role-unlock": {"organiser"},
    "invitation-withdraw": {"organiser"},
    "invitation": set(ACCOUNTS),
    "tournament-switch": {"organiser"},
    "player-export": {"admin", "organiser"},
    "table-result": {"staff_pod", "organiser"},
    "card-detail": {"staff_pod", "organiser"},
    "final-throw": {"staff_pod", "staff_other", "organiser"},
    "printout-download": {"admin", "organiser"},
    "stage-draw": {"organiser"},
    "preset-edit": {"organiser"},
    "card-check": set(ROLES),
}
# Which object each `pk` in a URL names, by url name.
PK_OF = {
    "role-revoke": "role",
    "role-password": "role",
    "role-unlock": "role",
    "invitation-withdraw": "invitation",
    "player-edit": "player",
    "player-withdraw": "player",
    "player-reinstate": "player",
    "checkin-player": "player",
    "checkin-undo": "player",
    "checkin-pay": "player",
    "checkin-party": "player",
    "waitlist-move": "waiting",
    "waitlist-seat": "waiting",
    "prize-category-edit": "category",
    "prize-category-delete": "category",
    "printout-status": "printout",
    "printout-retry": "printout",
    "printout-download": "printout",
}
# Values for the Django admin's own converters: any will do, every one of them is refused.
ADMIN_KWARGS = {
    "object_id": "1",
    "content_type_id": "1",
    "id": "1",
    "app_label": "tournaments",
    "url": "nowhere/",
}
WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|TRUNCATE|ALTER|DROP|CREATE)\b", re.I)
ALLOWED_STATUSES = {200, 204, 302, 400, 405, 409}


@dataclass(frozen=True)
class Walked:
    route: str
    name: str | None
    namespace: str | None
    callback: object
    kind: str | None = None  # for a view whose code depends on the kind in its URL

    @property
    def permission(self):
        """The declared code: a view serving several kinds declares one per kind."""
        by_kind = getattr(self.view, "permission_by_kind", None)
        if by_kind is not None:
            return by_kind[self.kind]
        return getattr(self.view, "permission", None)

    @property
    def view(self):
        return getattr(self.callback, "view_class", None)

    @property
    def is_admin_site(self) -> bool:
        return self.namespace == "admin"


def patterns(resolver: URLResolver | None = None) -> list[Walked]:
    def walk(res, prefix, namespace):
        for p in res.url_patterns:
            if isinstance(p, URLResolver):
                yield from walk(p, prefix + str(p.pattern), p.namespace or namespace)
            else:
                by_kind = getattr(getattr(p.callback, "view_class", None), "permission_by_kind", {})
                for kind in sorted(by_kind) or [None]:
                    yield Walked(prefix + str(p.pattern), p.name, namespace, p.callback, kind)

    return list(walk(resolver or get_resolver(), "", None))


REGEX_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")


def kwarg_names(route: str) -> list[str]:
    return REGEX_GROUP.findall(route) + CONVERTER.findall(REGEX_GROUP.sub("", route))


def uncovered(walked: list[Walked]) -> list[str]:
    """What the walk could not derive an expectation for, one line per pattern."""
    problems = []
    for w in walked:
        if w.is_admin_site:
            continue  # Django's admin_view: superusers only (see the ADMIN rule below)
        view = w.view
        where = f"{w.route} ({w.name})"
        if view is None:
            problems.append(f"{where}: a function view, outside the permission mixin")
            continue
        if not issubclass(view, PermissionMixin) and not any(
            issubclass(view, allowed) for allowed in OUTSIDE_THE_MIXIN
        ):
            problems.append(f"{where}: {view.__name__} bypasses the permission mixin")
            continue
        code = w.permission
        if code is None:
            problems.append(f"{where}: {view.__name__} declares no permission")
        elif code == PUBLIC and w.name not in PUBLIC_PAGES and not gate_of(view):
            problems.append(f"{where}: PUBLIC but not in PUBLIC_PAGES")
        elif code not in (PUBLIC, AUTHENTICATED, "create_tournament") and code not in PERMISSIONS:
            problems.append(f"{where}: unknown permission {code!r}")
        for name in kwarg_names(w.route):
            if name == "pk" and w.name not in PK_OF:
                problems.append(f"{where}: which object is <pk>? add it to PK_OF")
            elif name == "kind" and w.kind is None:
                problems.append(f"{where}: <kind> in a view with no permission_by_kind")
            elif name not in KWARGS and name not in ("pk", "kind"):
                problems.append(f"{where}: no value for <{name}>; add it to KWARGS")
    return problems


def gate_of(view, standings_public: bool = False) -> set[str] | None:
    """The codes a gating mixin asks for, any one of which opens the view."""
    if standings_public and issubclass(view, StandingsAccessMixin):
        return None
    for mixin, codes in GATES.items():
        if issubclass(view, mixin):
            return codes
    return None


def expected(w: Walked, role: str, method: str = "get", standings_public: bool = False) -> str:
    """`allow`, `login` (sent to sign in), `forbidden`, `not_found` or `admin_login`."""
    if w.is_admin_site:
        return "allow" if w.name in ("login", "logout") else "admin_login"
    if (w.name, role, method) in EXCEPTIONS:
        return EXCEPTIONS[(w.name, role, method)]
    answer = declared(w, role, standings_public)
    if answer == "allow" and method == "post" and w.name in EMPTY_POST_NAMES_NOTHING:
        return "not_found"
    return answer


def declared(w: Walked, role: str, standings_public: bool) -> str:
    """What the view's permission code, its gates and the pod assignment say."""
    view = w.view
    signed_in = role in ACCOUNTS
    refused = "forbidden" if signed_in else "login"
    code = w.permission
    if code == AUTHENTICATED:
        return "allow" if signed_in else "login"
    if issubclass(view, OrganiserRequiredMixin):
        return "allow" if role in MAY_CREATE_TOURNAMENTS else refused
    held = ROLE_PERMISSIONS.get(ROLE_AT_TOURNAMENT.get(role), frozenset())
    needed = gate_of(view, standings_public)
    if needed is None:
        if code == PUBLIC:
            return "allow"
        needed = {code}
    if not needed & held:
        # Unpublished standings and results tell anyone, signed in or not, that they are not
        # published yet (a player's shared link), instead of sending them to sign in.
        if issubclass(view, StandingsAccessMixin):
            return "forbidden"
        return refused
    if issubclass(view, PodAccessMixin) and "stages.run" not in held and role != "staff_pod":
        return "forbidden"
    return "allow"


def outcome(response: HttpResponse) -> str:
    status = response.status_code
    where = response.get("Location", "")
    if status == 302 and where.startswith(reverse("login")):
        return "login"
    if status == 302 and where.startswith(reverse("admin:login")):
        return "admin_login"
    if status == 403:
        return "forbidden"
    if status == 404:
        return "not_found"
    if status in ALLOWED_STATUSES:
        return "allow"
    return f"status {status}"


def expense_with_receipt(tournament, actor):
    """An expense whose receipt the walk downloads (the rehearsal's boxes are closed)."""
    out = io.BytesIO()
    Image.new("RGB", (4, 4)).save(out, "PNG")
    return cashbook.expense(
        tournament,
        amount_cents=1_00,
        method="card",
        note="Pencils",
        receipt=Receipt(out.getvalue(), "png", "image/png"),
        actor=actor,
    ).entry


# --- the world --------------------------------------------------------------------------------


@pytest.fixture
def world():
    """A finished event (pods, results, cards, semi-final, final, prizes paid, printouts), a
    second tournament with its own organiser, and one account per role."""
    t = rehearse(players=24, preset="mesquite", seed=3, slug="walk").tournament
    may_create = Permission.objects.get(codename="create_tournament")
    users = {"organiser": t.roles.get(role=Role.ORGANISER).user}
    users["organiser"].user_permissions.add(may_create)
    users["organiser_other"] = OrganiserFactory(username="walk-other-organiser")
    TournamentFactory(organiser=users["organiser_other"])
    latest = stages_newest_first(t)[0]
    qualifying = t.stages.get(kind="qualifying")
    for role in ("staff_pod", "staff_other", "admin"):
        users[role] = UserFactory(username=f"walk-{role}")
        grant(t, users[role], ROLE_AT_TOURNAMENT[role])
    latest.pods.get(number=1).staff.add(users["staff_pod"])
    qualifying.pods.get(number=2).staff.add(users["staff_other"])
    seat = Seat.objects.filter(pod__stage=latest, pod__number=1, player__isnull=False).first()
    player = seat.player
    waiting = PlayerFactory(tournament=t, status="waitlisted", waitlist_position=1)
    objects = SimpleNamespace(
        role=t.roles.get(user=users["staff_other"]).pk,
        player=player.pk,
        waiting=waiting.pk,
        category=t.prize_categories.order_by("pk").first().pk,
        printout=Printout.objects.filter(tournament=t, status=Printout.Status.DONE).first().pk,
    )
    # Another organiser asked to help: the walk opens its link as every account.
    invitation = invite(t, users["organiser_other"], Role.STAFF, actor=users["organiser"])
    objects.invitation = invitation.pk
    preset = copy_preset(RulePreset.objects.get(slug="classic"), "Walk rules", users["organiser"])
    values = {
        "slug": t.slug,
        "preset_slug": preset.slug,
        "switch": "registration",
        "number": 1,
        "round_number": 1,
        "table": 1,
        "player_pk": player.pk,
        "award_pk": PrizeAward.objects.filter(tournament=t).first().pk,
        "payout_pk": Payout.objects.filter(award__tournament=t).first().pk,
        "entry_pk": expense_with_receipt(t, users["organiser"]).pk,
        "box": "desk",
        "register-done": signing.dumps(player.pk, salt=CONFIRMATION_SALT),
        "card-check": card_token(player.pk, latest.kind),
        "invitation": invitation.token,
        "code": player.code,
        "player-page": player_token(player),
        "player-cancel": player_token(player),
        "player-card-problem": player_token(player),
        "player-email-again": player_token(player),
        "player-accept": player_token(player),
    }
    return SimpleNamespace(tournament=t, users=users, player=player, objects=objects, values=values)


# The URL arguments the walk knows how to fill in (beside `pk`, see PK_OF).
KWARGS = {"slug", "token", "code", "switch", "number", "round_number", "table", "box"} | {
    "player_pk",
    "award_pk",
    "payout_pk",
    "entry_pk",
}


def url_of(w: Walked, world) -> str:
    def value(name):
        if w.is_admin_site:
            return ADMIN_KWARGS[name]
        if name == "pk":
            return getattr(world.objects, PK_OF[w.name])
        if name == "kind":
            return w.kind
        if name == "slug" and (w.name or "").startswith("preset-"):
            return world.values["preset_slug"]
        return world.values[w.name if name == "token" else name]

    route = REGEX_GROUP.sub(lambda m: str(value(m[1])), w.route)
    route = CONVERTER.sub(lambda m: str(value(m[1])), route)
    url = "/" + route.replace("^", "").replace("$", "")
    assert resolve(url).func == w.callback, f"{url} does not lead back to {w.route}"
    return url


def query_for(w: Walked, role: str, world) -> dict:
    """What a player types: their code on the card and seat finder pages."""
    if role != "player":
        return {}
    return {"my-card": {"code": world.player.code}, "seat-finder": {"q": world.player.code}}.get(
        w.name, {}
    )


# --- the tests --------------------------------------------------------------------------------


def test_the_walk_covers_every_pattern():
    walked = patterns()
    assert len(walked) > 100
    assert uncovered(walked) == []


def test_no_public_url_takes_a_raw_id():
    """Players reach their pages by code or by signed token, never by a guessable number."""
    public = [
        w.route
        for w in patterns()
        if not w.is_admin_site and getattr(w.view, "permission", None) == PUBLIC
    ]
    assert "t/<slug:slug>/card/<str:token>/" in public
    assert [route for route in public if "<int:" in route or "<path:" in route] == []


def test_the_spot_checks_agree_with_the_derivation():
    by_name = {w.name: w for w in patterns() if not w.is_admin_site}
    for name, allowed in SPOT_CHECKS.items():
        derived = {role for role in ROLES if expected(by_name[name], role) == "allow"}
        assert derived == allowed, name


def rogue_function(request, slug):
    return HttpResponse("no check at all")


class RogueTemplateView(TemplateView):
    template_name = "home.html"


class ForgetfulView(TournamentPermissionMixin, TemplateView):
    template_name = "home.html"


class SneakyPublicView(TournamentPermissionMixin, TemplateView):
    permission = PUBLIC
    template_name = "home.html"


def test_a_view_without_a_permission_check_is_caught(rf, tournament):
    urlconf = SimpleNamespace(
        urlpatterns=[
            path("t/<slug:slug>/rogue/", rogue_function, name="rogue"),
            path("t/<slug:slug>/plain/", RogueTemplateView.as_view(), name="plain"),
            path("t/<slug:slug>/forgot/", ForgetfulView.as_view(), name="forgot"),
            path("t/<slug:slug>/sneaky/", SneakyPublicView.as_view(), name="sneaky"),
            path("t/<slug:slug>/x/<int:pk>/", SneakyPublicView.as_view(), name="tournament-public"),
            path("t/<slug:slug>/y/<int:secret>/", SneakyPublicView.as_view(), name="board"),
        ]
    )
    problems = uncovered(patterns(URLResolver(get_resolver().pattern, urlconf)))
    assert problems == [
        "t/<slug:slug>/rogue/ (rogue): a function view, outside the permission mixin",
        "t/<slug:slug>/plain/ (plain): RogueTemplateView bypasses the permission mixin",
        "t/<slug:slug>/forgot/ (forgot): ForgetfulView declares no permission",
        "t/<slug:slug>/sneaky/ (sneaky): PUBLIC but not in PUBLIC_PAGES",
        "t/<slug:slug>/x/<int:pk>/ (tournament-public): which object is <pk>? add it to PK_OF",
        "t/<slug:slug>/y/<int:secret>/ (board): no value for <secret>; add it to KWARGS",
    ]
    # And the mixin itself refuses to serve a view that declares nothing.
    with pytest.raises(ImproperlyConfigured, match="declares no permission"):
        ForgetfulView.as_view()(rf.get("/"), slug=tournament.slug)


def test_every_pattern_answers_every_role_as_declared(world):
    walked = patterns()
    assert uncovered(walked) == []
    clients = {}
    for role in ROLES:
        clients[role] = Client()
        if role in ACCOUNTS:
            clients[role].force_login(world.users[role])
    wrong, requests, allowed_writes = [], 0, 0
    for w in walked:
        url = url_of(w, world)
        for role in ROLES:
            client = clients[role]
            for method in ("get", "post"):
                want = expected(w, role, method, world.tournament.standings_public)
                requests += 1
                data = query_for(w, role, world) if method == "get" else {}
                connection.queries_log.clear()  # the log keeps 9000: each request starts at 0
                with CaptureQueriesContext(connection) as queries:
                    try:
                        with transaction.atomic():
                            response = getattr(client, method)(url, data)
                            transaction.set_rollback(True)
                        got = outcome(response)
                    except Exception as exc:  # noqa: BLE001 - every failure is listed below
                        got = f"error {type(exc).__name__}: {exc}"
                writes = [q["sql"][:80] for q in queries if WRITE.match(q["sql"])]
                if got != want:
                    wrong.append(f"{method.upper()} {url} as {role}: expected {want}, got {got}")
                elif want != "allow" and writes:
                    wrong.append(f"{method.upper()} {url} as {role}: refused but wrote {writes}")
                elif want == "allow" and method == "post":
                    allowed_writes += bool(writes)
                if w.name == "logout" and role in ACCOUNTS:
                    client.force_login(world.users[role])
    assert requests >= len(walked) * len(ROLES) * 2
    # The capture sees writes: allowed POSTs (a switch flipped, a round started...) made some.
    assert allowed_writes >= 5
    assert not wrong, f"{len(wrong)} of {requests} answers wrong:\n" + "\n".join(wrong)
