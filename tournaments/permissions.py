"""Named permission codes per tournament role, checked by every view on every method.

Templates only hide links; the check that counts is `TournamentPermissionMixin.dispatch`,
which runs before GET and POST alike. Every view declares `permission` (a code, or
`PUBLIC` for pages anyone may see), so a view that forgets is caught by the URL walk test.
"""

from __future__ import annotations

from django.contrib.auth.mixins import AccessMixin
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.db.models import Exists, OuterRef
from django.shortcuts import get_object_or_404

from .models import Role, Tournament, TournamentRole

PUBLIC = "public"
# Any signed-in account, whatever its roles (changing one's own password).
AUTHENTICATED = "authenticated"

PERMISSIONS: dict[str, str] = {
    "tournament.view": "See the tournament's dashboard",
    "tournament.edit": "Change the tournament's details, rules and registration",
    "people.manage": "Add staff and admin accounts and change roles",
    "registrations.view": "See and export the list of registered players",
    "registrations.manage": "Add, edit, withdraw and import registrations",
    "checkin.manage": "Check players in at the door and register walk-ins",
    "stages.run": "Draw pods, start and close rounds, run the stages",
    "results.enter": "Record and correct table results of assigned pods",
    "cards.verify": "Enter and confirm score cards of assigned pods",
    "printouts.make": "Print score cards, tally sheets and results",
    "prizes.award": "Award prizes",
    "payouts.pay": "Pay and void prizes",
    "audit.view": "Read the audit log",
    "money.view": "See the cash book, its summary and its CSV",
    "money.record": "Record fees, donations and expenses, reverse entries and count cash boxes",
}

ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    Role.ORGANISER: frozenset(PERMISSIONS),
    Role.STAFF: frozenset({"tournament.view", "results.enter", "cards.verify"}),
    Role.ADMIN: frozenset(
        {
            "tournament.view",
            "registrations.view",
            "printouts.make",
            "prizes.award",
            "payouts.pay",
            "money.view",
            "money.record",
        }
    ),
}


def roles_of(user, tournament: Tournament) -> frozenset[str]:
    if not user.is_authenticated:
        return frozenset()
    known = getattr(user, "_bunco_roles_at", {})
    if tournament.pk in known:
        return known[tournament.pk]
    cache = getattr(user, "_bunco_roles", None)
    if cache is None:
        cache = {}
        for tid, role in TournamentRole.objects.filter(user=user).values_list(
            "tournament_id", "role"
        ):
            cache.setdefault(tid, set()).add(role)
        user._bunco_roles = cache
    return frozenset(cache.get(tournament.pk, ()))


def role_flags(user, tournament_ref: str = "pk") -> dict[str, Exists]:
    """Annotations saying which roles `user` holds at the tournament `tournament_ref` points
    at, so the row a page loads anyway (the tournament, a pod) brings its permissions along
    instead of a query of its own; `remember_roles` reads them back."""
    if not user.is_authenticated:
        return {}
    return {
        f"holds_{role}": Exists(
            TournamentRole.objects.filter(
                user_id=user.pk, tournament_id=OuterRef(tournament_ref), role=role
            )
        )
        for role in Role.values
    }


def remember_roles(user, tournament: Tournament, row) -> None:
    """Keeps the roles `role_flags` annotated on `row` for this request's later checks."""
    if user.is_authenticated:
        held = frozenset(role for role in Role.values if getattr(row, f"holds_{role}"))
        user._bunco_roles_at = {**getattr(user, "_bunco_roles_at", {}), tournament.pk: held}


def permissions_of(user, tournament: Tournament) -> frozenset[str]:
    """The codes a user holds at a tournament; superusers hold every code."""
    if not user.is_authenticated:
        return frozenset()
    if user.is_superuser:
        return frozenset(PERMISSIONS)
    codes: set[str] = set()
    for role in roles_of(user, tournament):
        codes |= ROLE_PERMISSIONS[role]
    return frozenset(codes)


def has_permission(user, tournament: Tournament, code: str) -> bool:
    if code not in PERMISSIONS:
        raise ImproperlyConfigured(f"Unknown permission code {code!r}")
    return code in permissions_of(user, tournament)


def may_act_on_pod(user, pod, code: str) -> bool:
    """Organisers act on every pod; staff only on the pods they are assigned to (read with
    the pod by `pod_for_request` when the pod came from a page's URL)."""
    tournament = pod.stage.tournament
    if not has_permission(user, tournament, code):
        return False
    if has_permission(user, tournament, "stages.run"):
        return True
    assigned_to = getattr(pod, "assigned_to", None)
    if assigned_to is not None and assigned_to[0] == user.pk:
        return assigned_to[1]
    return pod.staff.filter(pk=user.pk).exists()


def may_create_tournaments(user) -> bool:
    if not user.is_authenticated:
        return False
    # Read with the user by the sign-in backend (SignInLimitBackend.get_user).
    known = getattr(user, "can_create_tournaments", None)
    if known is not None:
        return user.is_active and (user.is_superuser or known)
    return user.has_perm("tournaments.create_tournament")


def forget_cached_roles(user) -> None:
    for name in ("_bunco_roles", "_bunco_roles_at"):
        if hasattr(user, name):
            delattr(user, name)


def view_reads_account(view_func) -> bool:
    """Whether a view asks who is signed in: False only for a `TournamentPermissionMixin` view
    declaring `reads_account = False`, in its class or its `as_view()` arguments (the
    password-change middleware then leaves the account unloaded)."""
    view_class = getattr(view_func, "view_class", None)
    if view_class is None:
        return True
    default = getattr(view_class, "reads_account", True)
    return view_func.view_initkwargs.get("reads_account", default)


class PermissionMixin(AccessMixin):
    """Declares the code a view needs; anonymous users are sent to log in, others get 403."""

    permission: str | None = None

    def deny(self):
        if not self.request.user.is_authenticated:
            return self.handle_no_permission()
        raise PermissionDenied


class TournamentPermissionMixin(PermissionMixin):
    """Loads the tournament from the URL's slug and checks `permission` on every method."""

    tournament: Tournament
    # False for the room's public polls (the change feed, the board's live part, the seat
    # finder), which never ask who is signed in: they load no session and no account at all.
    # A class attribute, or `as_view(reads_account=False)`; see `view_reads_account`.
    reads_account: bool = True

    def get_tournament_queryset(self):
        # The change counter comes along: pages and polls read it without a query of their own.
        return Tournament.objects.select_related("preset", "change_counter")

    def load_tournament(self, request, **kwargs) -> Tournament:
        """The tournament from the URL with the user's roles there, in one query (a public
        poll that does not read the account: the tournament alone)."""
        if self.permission == PUBLIC and not self.reads_account:
            return get_object_or_404(self.get_tournament_queryset(), slug=kwargs["slug"])
        tournament = get_object_or_404(
            self.get_tournament_queryset().annotate(**role_flags(request.user)),
            slug=kwargs["slug"],
        )
        remember_roles(request.user, tournament, tournament)
        return tournament

    def dispatch(self, request, *args, **kwargs):
        if self.permission is None:
            raise ImproperlyConfigured(f"{type(self).__name__} declares no permission")
        self.tournament = self.load_tournament(request, **kwargs)
        if self.permission != PUBLIC and not has_permission(
            request.user, self.tournament, self.permission
        ):
            return self.deny()
        self.check_target(request, **kwargs)
        return super().dispatch(request, *args, **kwargs)

    def check_target(self, request, **kwargs) -> None:
        """After the tournament's permission, a view checks here what its URL names within
        the tournament (a pod: scoring/views/pod_access.py), raising 404 or PermissionDenied."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["tournament"] = self.tournament
        context["perms_here"] = permissions_of(self.request.user, self.tournament)
        return context


class OrganiserRequiredMixin(PermissionMixin):
    """For pages outside one tournament that only organisers use (creating one, presets)."""

    permission = "create_tournament"

    def dispatch(self, request, *args, **kwargs):
        if not may_create_tournaments(request.user):
            return self.deny()
        return super().dispatch(request, *args, **kwargs)
