"""Hostile posts to every form of the organiser's and admin's pages (tournament side).

Each case names a URL and the fields its form reads; `tests.bad_input` mixes plausible values
with hostile ones (huge, empty, unicode, NUL, negative, huge numbers, lists, missing and extra
fields, the other tournament's ids, ids that don't exist) and checks the answer: never a 500,
a refusal the person can read, and a refusal changes nothing. Genuinely valid input may
succeed. The scoring forms, the query strings and malformed requests are in
`test_bad_input_scoring.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from scoring.forms import STALE_PAGE
from tests.bad_input import (
    FUZZ,
    PAGES,
    World,
    baseline_fixture,  # noqa: F401 - the fixtures `baseline` and `world`
    client_for,
    form_data,
    hostile,
    ids,
    players_of,
    rolled_back,
    send,
    world_fixture,  # noqa: F401
)
from tests.support.factories import PASSWORD
from tournaments.forms.search import SearchForm
from tournaments.models import (
    LedgerEntry,
    Payout,
    Pod,
    Printout,
    PrizeAward,
    PrizeCategory,
    Round,
    RulePreset,
    Stage,
    TournamentRole,
)
from tournaments.urls import urlpatterns

pytestmark = pytest.mark.django_db

faces = st.integers(1, 6)
small = st.integers(0, 30)
booleans = st.sampled_from(["on", "true", "1", ""])
on_off = st.sampled_from(["on", "off"])
emails = st.emails()
names = st.text(min_size=1, max_size=60)


@dataclass(frozen=True)
class Case:
    """One form: where it lives, the URL (a strategy, for ids in the path) and its fields."""

    name: str
    where: str  # done, live or door: the tournament whose page is posted to
    url: Callable[[World, object], st.SearchStrategy[str]]
    data: Callable[[World, object], st.SearchStrategy[dict]]
    anonymous: bool = False
    quiet: bool = False  # success redirects to a page that is the answer, without a message
    may_change: frozenset[str] = frozenset()  # what a refusal still writes, on purpose

    def __str__(self) -> str:
        return self.name


def at(name: str, *path: st.SearchStrategy | Callable) -> Callable:
    """A URL of the tournament with each path argument drawn from its strategy (or from the
    strategy a function of the world and the tournament gives)."""

    def make(world, t):
        parts = [p(world, t) if callable(p) else p for p in path]
        return st.tuples(*parts).map(lambda args: reverse(name, args=[t.slug, *args]))

    return make


def fixed(fields: dict) -> Callable:
    """The form's fields; a value may be a function of the world and the tournament."""

    def make(world, t):
        return form_data({k: v(world, t) if callable(v) else v for k, v in fields.items()})

    return make


def entry_ids(world, t):
    def of(tournament):
        return list(
            LedgerEntry.objects.filter(tournament=tournament).values_list("pk", flat=True)[:5]
        )

    return ids(of(t), of(world.other(t)))


AMOUNTS = st.one_of(
    st.sampled_from(["5", "12.50", "-5", "1.234", "abc", "99999999999", "", "٣", "1e3", "$7"]),
    st.text(max_size=30),
)
KEYS = st.one_of(st.uuids().map(str), st.sampled_from(["", "x", "0" * 40]))
METHODS = st.sampled_from(["cash", "card", "cheque", "online", "comped", "bitcoin", ""])
BOX_KEYS = st.sampled_from(["desk", "prize", "", "vault"])


def player_ids(world, t):
    return ids(players_of(t), players_of(world.other(t)))


def every(model, field: str = "pk") -> Callable:
    """Ids of a model's rows: the world holds only this tournament's and the other one's."""
    return lambda world, t: ids(list(model.objects.values_list(field, flat=True)))


role_ids = every(TournamentRole)
award_ids = every(PrizeAward)
payout_ids = every(Payout)
category_ids = every(PrizeCategory)
printout_ids = every(Printout)
round_ids = every(Round)
pod_ids = every(Pod)
staff_ids = every(TournamentRole, "user_id")


def pod_numbers() -> st.SearchStrategy[int]:
    return st.sampled_from([1, 2, 3, 0, 99, 2**31, 2**63 + 1])


PLAYER_FIELDS = {
    "name": names,
    "email": emails,
    "phone": st.text(max_size=40),
    "group_name": names,
    "costume_contest": booleans,
}
TOURNAMENT_FIELDS = {
    "name": names,
    "charity": names,
    "date": st.dates().map(str),
    "venue": names,
    "entry_fee": st.integers(-5, 10**6),
    "capacity": st.integers(-5, 10**5),
    "qualifying_sets": st.integers(-1, 12),
    "preset": st.sampled_from(["classic", "mesquite"]).map(
        lambda slug: RulePreset.objects.get(slug=slug).pk
    ),
    "wins_places": st.integers(-1, 5),
    "buncos_places": st.integers(-1, 5),
    "top_both": st.sampled_from(["next_in_line", "empty", "x"]),
    "semi_final_sets": st.integers(-1, 5),
}
PRESET_FIELDS = {
    "label": names,
    "description": st.text(max_size=200),
    "targets": st.sampled_from(["1,2,3,4,5,6", "2,3,4,5,6", "1,1", "7", "", "1,,2"]),
    "bunco_points": st.integers(-1, 40000),
    "mini_bunco_points": st.integers(-1, 40000),
    "snake_eyes": booleans,
    "bell_points": st.integers(-1, 40000),
    "bell_on_bunco": booleans,
    "finish_turn_after_bell": booleans,
    "everyone_rolls_once": booleans,
    "movement": st.sampled_from(["progressive", "losers_walk", "sideways"]),
    "table_tie_break": st.sampled_from(["one_die", "roll_target", "turn", "coin"]),
}
CATEGORY_FIELDS = {
    "label": names,
    "measure": st.sampled_from(["most_buncos", "most_wins", "judged", "traveling_holder"]),
    "scope": st.sampled_from(["pod", "overall", "pod_group"]),
    "stage_kind": st.sampled_from(["qualifying", "semi_final", "final"]),
    "amounts": st.sampled_from(["100", "100, 50", "12.50", "$5", "1,2,3", "-5", "0.001"]),
    "tie_policy": st.sampled_from(["split", "roll_off", "x"]),
    "priority": st.integers(-1, 40000),
}
DICE_FIELDS = {
    "first": faces,
    "rethrows": st.lists(faces.map(str)).map(" ".join),
    "roll": booleans,
}


stage_kinds = st.sampled_from(["qualifying", "semi_final"])
roll_off_data = fixed(
    {
        **DICE_FIELDS,
        "stage": st.sampled_from(["qualifying", "semi_final", "final"]),
        "group": st.sampled_from(["1", "2", "semi", "overall"]),
        "category": st.sampled_from(["wins", "buncos", "x"]),
    }
)
nominate_data = fixed(
    {
        "category": category_ids,
        "group": st.sampled_from(["1", "2", "overall", "3"]),
        "winner": player_ids,
    }
)
traveling_data = fixed({"player": player_ids, "round": round_ids})
prize_sheets = st.sampled_from(["mesquite", "classic", "rolling-for-pink", "x"])


def import_data(world, t):
    contents = st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(lambda s: ("name,email\n" + s).encode()),
        st.sampled_from(
            [
                b"",
                b"name\n",
                b"name,email\nAnn\x00,ann@example.org\n",
                "name,email\nZoë,zoe@example.org\n".encode("utf-16"),
                "name,email\nZoë,zoe@example.org\n".encode("latin-1"),
                b"PK\x03\x04rest",
                b'name,email\n=HYPERLINK("x"),a@example.org\n',
                b"name\n" + b"A\n" * 6000,
                b"name\n" + b"x" * (2 * 1024 * 1024 + 10),
                b'name,email\n"unterminated,a@example.org\n',
                b"name,email,,\nAnn,a@b.org,,x\n",
                b"name;email\nAnn;a@example.org\n",
                b"name,email\n" + b"x" * 200 + b",a@example.org\n",
            ]
        ),
    )
    files = st.tuples(contents, st.sampled_from(["p.csv", "", "x" * 300, "../x.csv", "p\x00.csv"]))
    return st.one_of(
        files.map(lambda f: {"file": SimpleUploadedFile(f[1] or "upload", f[0])}),
        form_data({"file": st.text()}),
    )


def preset_slugs(world, t):
    slugs = list(RulePreset.objects.order_by("pk").values_list("slug", flat=True))
    return st.sampled_from([*slugs, "no-such-preset"])


def page(name: str) -> Callable:
    """A URL outside any tournament."""
    return lambda world, t: st.just(reverse(name))


def table_url(world, t):
    """A table of a pod in a round: real ones, the semi-final's, and ones that don't exist."""
    path = st.tuples(
        pod_numbers(),
        st.sampled_from([1, 2, 3, 4, 18, 99, 2**40]),
        st.sampled_from([1, 2, 3, 0, 4, 2**40]),
    )
    stage = st.sampled_from(["", "?stage=qualifying", "?stage=semi_final", "?stage=%00x"])
    return st.tuples(path, stage).map(
        lambda a: reverse("table-result", args=[t.slug, *a[0]]) + a[1]
    )


COUNTS = st.integers(-1, 25)
RESULT_FIELDS = {
    "winner": st.sampled_from([0, 1, 2]),
    "base_version": st.integers(-1, 3),
    "points_13": st.integers(-5, 300),
    "points_24": st.integers(-5, 300),
    "tie": booleans,
    "tie_note": names,
    "reason": names,
    **{
        f"{kind}_{seat}": COUNTS
        for kind in ("buncos", "minis", "snake_eyes")
        for seat in range(1, 5)
    },
}


def card_url(world, t):
    stage = st.sampled_from(["", "?stage=qualifying", "?stage=semi_final"])
    path = st.tuples(pod_numbers(), player_ids(world, t))
    return st.tuples(path, stage).map(lambda a: reverse("card-detail", args=[t.slug, *a[0]]) + a[1])


CARD_FIELDS = {
    "action": st.sampled_from(["enter", "confirm", "resolve", "x"]),
    "base_version": st.integers(-1, 4),
    "version": st.integers(-1, 4),
    "layout": st.sampled_from(["rounds", "totals", "x"]),
    **{f"r{n}": st.sampled_from(["W", "L", "", "w"]) for n in range(1, 19)},
    **{name: COUNTS for name in ("wins", "losses", "buncos", "minis", "snake_eyes")},
    "choice": st.sampled_from(["tables", "card", "x"]),
    "reason": names,
}


CASES = [
    Case(
        "login",
        "door",
        page("login"),
        fixed(
            {
                "username": st.sampled_from(["organiser", "pod-staff", "nobody"]),
                "password": st.sampled_from([PASSWORD, "wrong"]),
                "next": st.sampled_from(["/", "//evil.example.org/", "javascript:alert(1)"]),
            }
        ),
        anonymous=True,
        quiet=True,
        # A refused sign-in is counted: that is the sign-in limit at work.
        may_change=frozenset({"tournaments.SignInFailure"}),
    ),
    Case(
        "password_change",
        "door",
        page("password_change"),
        fixed(
            {
                "old_password": st.sampled_from([PASSWORD, "wrong"]),
                "new_password1": st.sampled_from(["Bunco-Night-2027!", "short", PASSWORD]),
                "new_password2": st.sampled_from(["Bunco-Night-2027!", "short"]),
            }
        ),
    ),
    Case("tournament-create", "door", page("tournament-create"), fixed(TOURNAMENT_FIELDS)),
    Case(
        "preset-copy",
        "door",
        lambda w, t: preset_slugs(w, t).map(lambda s: reverse("preset-copy", args=[s])),
        fixed({"label": names}),
    ),
    Case(
        "preset-edit",
        "door",
        lambda w, t: preset_slugs(w, t).map(lambda s: reverse("preset-edit", args=[s])),
        fixed(PRESET_FIELDS),
    ),
    Case("table-result", "live", table_url, fixed(RESULT_FIELDS)),
    Case("table-result-correction", "done", table_url, fixed(RESULT_FIELDS)),
    Case("card-detail", "done", card_url, fixed(CARD_FIELDS)),
    Case("card-detail-live", "live", card_url, fixed(CARD_FIELDS)),
    Case("register", "door", at("register"), fixed(PLAYER_FIELDS), anonymous=True, quiet=True),
    Case("player-add", "door", at("player-add"), fixed({**PLAYER_FIELDS, "another": booleans})),
    Case("player-edit", "door", at("player-edit", player_ids), fixed(PLAYER_FIELDS)),
    Case("player-withdraw", "door", at("player-withdraw", player_ids), fixed({"reason": names})),
    Case("player-reinstate", "done", at("player-reinstate", player_ids), fixed({"reason": names})),
    Case("player-import", "door", at("player-import"), import_data),
    # The desk shows the new player from the session, without a message.
    Case("checkin-walk-in", "door", at("checkin-walk-in"), fixed(PLAYER_FIELDS), quiet=True),
    Case("checkin-player", "door", at("checkin-player", player_ids), fixed({"q": names})),
    Case("checkin-undo", "door", at("checkin-undo", player_ids), fixed({"q": names})),
    Case(
        "checkin-pay",
        "live",
        at("checkin-pay", player_ids),
        fixed({"method": METHODS, "reason": names, "key": KEYS, "q": names}),
    ),
    Case(
        "cashbook-donation",
        "live",
        at("cashbook-donation"),
        fixed({"amount": AMOUNTS, "method": METHODS, "box": BOX_KEYS, "donor": names, "key": KEYS}),
    ),
    Case(
        "cashbook-expense",
        "live",
        at("cashbook-expense"),
        fixed({"amount": AMOUNTS, "method": METHODS, "box": BOX_KEYS, "note": names, "key": KEYS}),
    ),
    Case("cashbook-reverse", "live", at("cashbook-reverse", entry_ids), fixed({"reason": names})),
    Case(
        "cashbook-planner",
        "live",
        at("cashbook-planner"),
        fixed(
            {
                "floor_kind": st.sampled_from(["percent", "amount", "x"]),
                "value": AMOUNTS,
                "board_shows_raised": booleans,
            }
        ),
    ),
    Case(
        "cash-box",
        "live",
        at("cash-box", BOX_KEYS.filter(bool)),
        fixed({"d2000": AMOUNTS, "d25": AMOUNTS, "reason": names}),
    ),
    Case(
        "cash-box-float",
        "live",
        at("cash-box-float", BOX_KEYS.filter(bool)),
        fixed({"amount": AMOUNTS}),
    ),
    Case("tournament-edit", "done", at("tournament-edit"), fixed(TOURNAMENT_FIELDS)),
    Case("tournament-edit-live", "live", at("tournament-edit"), fixed(TOURNAMENT_FIELDS)),
    Case(
        "tournament-switch",
        "door",
        at(
            "tournament-switch",
            st.sampled_from(["registration", "check_in", "standings", "x", "%00"]),
        ),
        fixed({"value": on_off}),
    ),
    Case(
        "people",
        "door",
        at("people"),
        fixed(
            {
                "action": st.sampled_from(["create", "existing", "delete"]),
                "username": st.sampled_from(["new.staff", "pod-staff", "organiser", "a b"]),
                "full_name": names,
                "role": st.sampled_from(["staff", "admin", "organiser", "superuser"]),
            }
        ),
    ),
    Case("role-revoke", "done", at("role-revoke", role_ids), fixed({})),
    # The new one-time password is shown on the people page, from the session.
    Case("role-password", "done", at("role-password", role_ids), fixed({}), quiet=True),
    Case(
        "stage-draw",
        "door",
        at("stage-draw"),
        fixed({"seed": st.integers(-5, 2**64), "spread_groups": booleans, "confirm": booleans}),
    ),
    Case(
        "stage-hostess",
        "live",
        at("stage-hostess", pod_numbers()),
        fixed({"player": player_ids}),
    ),
    Case("stage-staff", "live", at("stage-staff", pod_numbers()), fixed({"staff": staff_ids})),
    Case("stage-join", "live", at("stage-join"), fixed({"player": player_ids, "pod": pod_ids})),
    Case("stage-leave", "live", at("stage-leave"), fixed({"player": player_ids})),
    Case("stage-start", "live", at("stage-start"), fixed({})),
    Case("stage-close", "live", at("stage-close"), fixed({"round": st.integers(-1, 12)})),
    Case("roll-off-cut", "done", at("roll-off", st.just("cut")), roll_off_data),
    Case("roll-off-cut-live", "live", at("roll-off", st.just("cut")), roll_off_data),
    Case("advancement-save", "done", at("advancement-save"), fixed({"stage": stage_kinds})),
    Case(
        "advancement-semi-final",
        "live",
        at("advancement-semi-final"),
        fixed({"seed": st.integers()}),
    ),
    Case(
        "advancement-seat-final",
        "done",
        at("advancement-seat-final"),
        fixed({"seed": st.integers()}),
    ),
    Case(
        "final-order",
        "done",
        at("final-order"),
        fixed({"dice": faces, "roll": booleans}),
    ),
    Case(
        "final-throw",
        "done",
        at("final-throw"),
        fixed(
            {
                "number": st.integers(-1, 50),
                "die1": faces,
                "die2": faces,
                "die3": faces,
                "roll": booleans,
            }
        ),
    ),
    Case("prize-category-add", "door", at("prize-category-add"), fixed(CATEGORY_FIELDS)),
    Case(
        "prize-category-edit",
        "done",
        at("prize-category-edit", category_ids),
        fixed(CATEGORY_FIELDS),
    ),
    Case("prize-category-delete", "door", at("prize-category-delete", category_ids), fixed({})),
    Case("prize-template", "door", at("prize-template"), fixed({"name": prize_sheets})),
    Case("prize-one-per-player", "door", at("prize-one-per-player"), fixed({"value": on_off})),
    Case("prize-nominate", "done", at("prize-nominate"), nominate_data),
    Case("prize-traveling", "done", at("prize-traveling"), traveling_data),
    Case(
        "roll-off-prize",
        "done",
        at("roll-off", st.just("prize")),
        fixed(
            {
                "key": st.sampled_from(["most_buncos:1:1", "x"]),
                "first": faces,
                "rethrows": faces,
                "roll": booleans,
            }
        ),
    ),
    Case("prize-award", "done", at("prize-award"), fixed({})),
    Case(
        "payout-pay",
        "done",
        at("payout-pay", award_ids),
        fixed({"present": booleans, "id_checked": booleans, "q": names}),
    ),
    Case(
        "payout-void",
        "done",
        at("payout-void", payout_ids),
        fixed({"reason": names, "q": names}),
    ),
    Case(
        "printouts",
        "done",
        at("printouts"),
        fixed(
            {
                "kind": st.sampled_from([k for k, _ in Printout.Kind.choices] + ["x"]),
                "stage": st.sampled_from([k for k, _ in Stage.Kind.choices] + ["x"]),
                "pod": pod_numbers(),
                "pagesize": st.sampled_from(["letter", "a4", "x"]),
            }
        ),
    ),
    Case("printout-retry", "done", at("printout-retry", printout_ids), fixed({})),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@FUZZ
@given(data=st.data())
def test_hostile_posts_are_answered_and_refusals_change_nothing(world, baseline, case, data):
    tournament = getattr(world, case.where)
    url = data.draw(case.url(world, tournament), label="url")
    payload = data.draw(case.data(world, tournament), label="data")
    with rolled_back():
        client = client_for(None if case.anonymous else world.actor(tournament))
        send(
            client,
            "post",
            url,
            payload,
            baseline=baseline,
            other=world.other(tournament),
            quiet_redirect=case.quiet,
            may_change=case.may_change,
        )


# --- every page read with hostile query strings, paths and headers -------------------------

QUERY_NAMES = [
    "q",
    "code",
    "status",
    "page",
    "stage",
    "sort",
    "pod",
    "pods",
    "round",
    "kind",
    "pagesize",
    "person",
    "action",
    "next",
]
SLUG_ARGS = {"slug"}


def path_value(world, t, name: str, converter: str) -> st.SearchStrategy:
    if name == "slug":
        return st.sampled_from([t.slug, world.other(t).slug, "no-such-event"])
    if converter == "int":
        return st.one_of(player_ids(world, t), pod_numbers(), printout_ids(world, t))
    return st.one_of(
        st.sampled_from(["registration", "standings", "not-a-token", "a" * 5000, "\x00", "é"]),
        st.text(min_size=1, max_size=30).filter(lambda s: "/" not in s),
    )


def site_patterns():
    """Every page of the site (Django's own admin is for superusers and not ours to test)."""
    return [p for p in urlpatterns if p.name != "logout"]


def url_for(world, t, pattern) -> st.SearchStrategy[str]:
    converters = pattern.pattern.converters
    names = list(converters)
    args = st.tuples(
        *(
            path_value(world, t, n, type(converters[n]).__name__.removesuffix("Converter").lower())
            for n in names
        )
    )
    return args.map(
        lambda values: reverse(pattern.name, kwargs=dict(zip(names, values, strict=True)))
    )


@pytest.mark.parametrize("pattern", site_patterns(), ids=lambda p: p.name)
@PAGES
@given(data=st.data())
def test_every_page_answers_hostile_query_strings_without_changing_anything(
    world, baseline, pattern, data
):
    tournament = data.draw(st.sampled_from([world.done, world.live, world.door]), label="event")
    url = data.draw(url_for(world, tournament, pattern), label="url")
    query = data.draw(st.dictionaries(st.sampled_from(QUERY_NAMES), hostile(), max_size=4))
    headers = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "HTTP_HX_REQUEST": st.just("true"),
                "HTTP_HX_CURRENT_URL": st.sampled_from(["\x00", "javascript:x", "/" * 3000]),
                "HTTP_REFERER": st.sampled_from(["\x00", "http://evil.example.org/"]),
                "HTTP_ACCEPT_LANGUAGE": st.sampled_from(["\x00", "zz;q=x", "x" * 5000]),
            },
        ),
        label="headers",
    )
    user = data.draw(st.sampled_from([None, world.actor(tournament), world.staff]), label="user")
    # Exports are audited: reading a CSV writes who took the personal data away.
    may_change = frozenset({"tournaments.AuditEntry"}) if url.endswith(".csv") else frozenset()
    with rolled_back():
        send(
            client_for(user),
            "get",
            url,
            query,
            baseline=baseline,
            may_change=may_change,
            **headers,
        )


# --- regressions: what the fuzzing found, pinned -------------------------------------------

SUPERSCRIPT_TWO = "²"  # str.isdigit() says yes, int() raises ValueError: was a 500
TOO_MANY_DIGITS = "9" * 5000  # int() refuses more than 4300 digits: was a 500

PINNED_POSTS = [
    (
        "done",
        "roll-off/cut",
        {"stage": "qualifying", "group": "1", "category": "wins", "first": SUPERSCRIPT_TWO},
    ),
    (
        "done",
        "roll-off/cut",
        {
            "stage": "qualifying",
            "group": "1",
            "category": "wins",
            "first": "1",
            "rethrows": TOO_MANY_DIGITS,
        },
    ),
    ("done", "final-order", {"dice": ["1", SUPERSCRIPT_TWO]}),
    ("done", "roll-off/prize", {"key": "x", "first": SUPERSCRIPT_TWO}),
    ("done", "prize-nominate", {"category": SUPERSCRIPT_TWO, "group": "overall"}),
    ("done", "prize-nominate", {"category": TOO_MANY_DIGITS, "group": "overall"}),
]


@pytest.mark.parametrize(("where", "name", "payload"), PINNED_POSTS)
def test_pinned_posts_are_refused_with_a_message(world, baseline, where, name, payload):
    tournament = getattr(world, where)
    with rolled_back():
        outcome = send(
            client_for(world.actor(tournament)),
            "post",
            reverse(name.split("/")[0], args=[tournament.slug, *name.split("/")[1:]]),
            payload,
            baseline=baseline,
        )
    assert outcome.refused


def test_a_judged_prize_pick_in_other_digits_is_refused(world, baseline):
    """The winner list of a judged prize: "²" and a 5000-digit id are not players."""
    category = PrizeCategory.objects.filter(tournament=world.done, measure="judged").first()
    group = "overall" if category.scope != "pod" else "1"
    for pick in (SUPERSCRIPT_TWO, TOO_MANY_DIGITS, "١"):
        with rolled_back():
            outcome = send(
                client_for(world.organiser),
                "post",
                reverse("prize-nominate", args=[world.done.slug]),
                {"category": category.pk, "group": group, "winner": pick},
                baseline=baseline,
            )
        assert outcome.refused
        assert "Choose a winner from the list." in [m.message for m in outcome.messages]


PINNED_PAGES = [
    ("standings", {"pod": SUPERSCRIPT_TWO}),
    ("standings", {"pod": TOO_MANY_DIGITS}),
    ("audit-log", {"pod": SUPERSCRIPT_TWO}),
    ("audit-log", {"pod": TOO_MANY_DIGITS}),
    ("audit-log", {"person": "\x00", "action": "\x00"}),
    ("board", {"pods": f"1-{SUPERSCRIPT_TWO}"}),
    ("board", {"pods": TOO_MANY_DIGITS}),
    ("my-card", {"code": "AB\x00CD"}),
    ("seat-finder", {"q": "ann\x00"}),
    ("player-list", {"q": "\x00", "status": "\x00"}),
    ("checkin-desk", {"q": "\x00"}),
    ("payouts", {"q": "\x00"}),
]


@pytest.mark.parametrize(("name", "query"), PINNED_PAGES)
def test_pinned_query_strings_are_answered(world, baseline, name, query):
    with rolled_back():
        send(
            client_for(world.organiser),
            "get",
            reverse(name, args=[world.done.slug]),
            query,
            baseline=baseline,
        )


def test_a_round_in_other_digits_is_not_a_round(world, baseline):
    url = reverse("pod-detail", args=[world.done.slug, 1])
    for value in (SUPERSCRIPT_TWO, TOO_MANY_DIGITS):
        with rolled_back():
            outcome = send(
                client_for(world.organiser), "get", url, {"round": value}, baseline=baseline
            )
        assert outcome.response.status_code == 200  # the current round, as with no ?round=


def test_a_username_longer_than_any_account_is_refused_before_it_is_tried(world, baseline):
    """No account has such a name; counting it as a failed try once made PostgreSQL refuse the
    row (in the sign-in failures' username column) and the sign-in page answer with an error."""
    with rolled_back():
        outcome = send(
            client_for(None),
            "post",
            reverse("login"),
            {"username": "x" * 300, "password": "wrong"},
            baseline=baseline,
        )
    assert outcome.response.status_code == 200
    assert outcome.response.context["form"].errors["username"]


@pytest.mark.parametrize("version", [None, "", "-1", "x"])
def test_a_result_without_its_page_version_says_the_page_is_out_of_date(world, baseline, version):
    """The version is a hidden field: its own error was on nothing the person could see."""
    payload = {"winner": "0"} if version is None else {"winner": "0", "base_version": version}
    with rolled_back():
        outcome = send(
            client_for(world.organiser),
            "post",
            reverse("table-result", args=[world.done.slug, 1, 1, 1]),
            payload,
            baseline=baseline,
        )
    assert outcome.response.status_code == 200
    assert STALE_PAGE in outcome.response.content.decode()


def test_a_search_pasted_too_long_or_with_a_nul_is_cut_not_read_as_nothing():
    """A walk pasted 101 characters into the seat finder (a blank answer) and the prize
    table's search (every prize listed): the box is cut to its 100 characters instead."""
    assert SearchForm({"q": "ann  " + "x" * 200}).query == "ann " + "x" * 95
    assert SearchForm({"q": "an\x00n"}).query == "ann"
    assert SearchForm({}).query == ""
