"""The winners page: judges' picks, the traveling item, roll-offs (physical dice in throw
order, or rolled on screen), the plan with every award and unawarded place, and awarding.
"""

import re
from dataclasses import dataclass, field

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from ...forms.prizes import NominationForm, TravelingForm
from ...foundation.text import money, ordinal, where, whole_number
from ...mixins.prizes import AWARD, PrizePageMixin
from ...models import (
    Player,
    PrizeAward,
    PrizeCategory,
    PrizeNomination,
    RollOff,
    Round,
    TravelingPass,
)
from ...presenters import typed_dice
from ...presenters.last_bunco import night_line
from ...presenters.prize_budget import budget_context
from ...presenters.prizes import (
    note_text,
    passed_text,
    stored_note_text,
    unawarded_text,
    value_text,
    who,
)
from ...rules import cashbook as book
from ...rules.phases import prize_step
from ...rules.prizes import OVERALL, Award, PrizeTie, Unawarded
from ...services import cash_boxes, cash_planner, prize_list
from ...services import prizes as service
from ...services.costume import offered_rows
from ...services.phase import paid_award_ids
from ...services.prize_categories import paid_started


@dataclass
class Pick:
    """One judged category in one group: the choices and who is picked now."""

    category: PrizeCategory
    group: str
    title: str
    choices: list[tuple[int, str]]
    current: list[int]
    unknown: list[str] = field(default_factory=list)  # picked, but not in the list any more

    @property
    def places(self) -> list[tuple[str, int | None]]:
        return [
            (ordinal(n), self.current[n - 1] if n <= len(self.current) else None)
            for n in range(1, len(self.category.amounts_cents) + 1)
        ]

    @property
    def form_id(self) -> str:
        return f"pick-{self.category.key}-{self.group}"


@dataclass(frozen=True)
class TieShown:
    tie: PrizeTie
    names: list[str]  # in throw order
    value: str

    @property
    def where(self) -> str:
        return where(self.tie.scope_group)

    @property
    def places(self) -> str:
        first = self.tie.first_place
        if self.tie.places == 1:
            return f"{ordinal(first)} place"
        return f"{ordinal(first)} to {ordinal(first + self.tie.places - 1)} places"

    @property
    def form_id(self) -> str:
        return "tie-" + re.sub(r"[^a-z0-9]+", "-", self.tie.key.lower())


@dataclass(frozen=True)
class AwardShown:
    award: Award
    where: str
    place: str
    winners: list[tuple[str, str]]  # (name, amount each)
    total: str
    value: str
    throws: list[list[tuple[str, int]]]
    note: str
    moved_up: str

    @property
    def each(self) -> str:
        """A shared place's amount each: "$8.33–$8.34" when the cents do not divide evenly."""
        cents = self.award.amount_cents_each
        low, high = money(min(cents)), money(max(cents))
        return low if low == high else f"{low}–{high}"


@dataclass(frozen=True)
class UnawardedShown:
    unawarded: Unawarded
    where: str
    place: str
    reason: str


class PrizeWinnersView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["get"]
    tab = "winners"

    def get(self, request, slug):
        t = self.tournament
        categories = list(t.prize_categories.all())
        measures = {c.key: c.measure for c in categories}
        players = {
            pk: (name, code) for pk, name, code in t.players.values_list("pk", "name", "code")
        }
        names = {pk: name for pk, (name, _) in players.items()}
        every_stage = service.stage_totals(t, categories)
        plan = service.plan_prizes(t, every_stage)
        picked = {c.stage_kind for c in categories if c.measure in ("judged", "traveling_holder")}
        totals = {kind: rows for kind, rows in every_stage.items() if kind in picked}
        stored = list(
            t.awards.current()
            .select_related("player", "category")
            .order_by(*PrizeAward._meta.ordering)
        )
        paying = paid_started(t)
        paid = paid_award_ids(t)
        unpaid = [a for a in stored if a.pk not in paid]
        planned = sum(a.total_cents for a in plan.result.awards) if plan.result else None
        # One figure for the budget and the planner's card: the plan's awards, else those
        # stored, else every place of the list (counted from the same players as the budget).
        counted = prize_list.counted_players(t)
        prizes_cents = planned
        if prizes_cents is None:
            prizes_cents = sum(a.amount_cents for a in stored) or prize_list.list_total_cents(
                t, categories, pods=prize_list.pods_by_stage(t, counted[0])
            )
        budget = budget_context(t, prizes_cents, counted)
        return self.render(
            "winners.html",
            **cash_planner.page_context(t, prizes_cents),
            categories=categories,
            picks=self.picks(categories, totals, names),
            traveling=self.traveling(t, categories, totals, players),
            plan=plan,
            ties=[self.tie_shown(tie, categories, names) for tie in plan.pending],
            typed=typed_dice.take(request),
            awards=self.awards_shown(plan, measures, names),
            unawarded=self.unawarded_shown(plan, names),
            total=money(planned) if planned is not None else "",
            **budget,
            roll_offs=self.roll_offs(t, plan, categories, names),
            stored=[
                {
                    "award": a,
                    "where": a.where_won,
                    "amount": money(a.amount_cents),
                    "note": stored_note_text(a.why, a.category.measure, names),
                }
                for a in stored
            ],
            stored_total=money(sum(a.amount_cents for a in stored)),
            stale=bool(stored) and self.differs(plan, stored),
            paying=paying,
            # What the page tells the admin to do next: award, pay the rest, or nothing.
            prize_state=prize_step(len(stored), len(stored) - len(unpaid)),
            unpaid_count=len(unpaid),
            # With both boxes counted nothing more is paid tonight: say so where it sends
            # the admin to the prize table.
            no_box=book.NO_BOX_TO_PAY_FROM if unpaid and cash_boxes.paid_later(t) else "",
            unpaid_total=money(sum(a.amount_cents for a in unpaid)),
            one_prize=t.one_prize_per_player,
            last_bunco=[
                night_line(s, names)
                for s in t.stages.filter(
                    kind__in={c.stage_kind for c in categories if c.measure == "last_bunco"}
                ).order_by("pk")
            ],
        )

    # -- judged picks

    def picks(self, categories, totals, names) -> list[Pick]:
        judged = [c for c in categories if c.measure == "judged"]
        if not judged:
            return []
        chosen = {
            (n.category_id, n.scope_group): [int(w) for w in n.winners]
            for n in PrizeNomination.objects.filter(category__in=judged)
        }
        picks = []
        for category in judged:
            rows = [r for r in totals.get(category.stage_kind, []) if r.eligible]
            rows = offered_rows(category, rows)
            pods = sorted({r.pod for r in rows})
            if category.scope == "pod_group":
                groups = [(OVERALL, "Best pod", [(p, f"Pod {p}") for p in pods])]
            elif category.scope == "pod":
                groups = [
                    (str(p), f"Pod {p}", self.named([r.player for r in rows if r.pod == p], names))
                    for p in pods
                ]
            else:
                groups = [(OVERALL, "Overall", self.named([r.player for r in rows], names))]
            for group, title, choices in groups:
                current = chosen.get((category.pk, group), [])
                listed = {pk for pk, _ in choices}
                unknown = [
                    (f"Pod {c}" if category.scope == "pod_group" else names.get(c, str(c)))
                    for c in current
                    if c not in listed
                ]
                picks.append(Pick(category, group, title, choices, current, unknown))
        return picks

    @staticmethod
    def named(ids, names) -> list[tuple[int, str]]:
        return sorted(((pk, names.get(pk, str(pk))) for pk in ids), key=lambda x: x[1].lower())

    # -- the traveling item

    def traveling(self, t, categories, totals, players):
        category = next((c for c in categories if c.measure == "traveling_holder"), None)
        if category is None:
            return None
        passes = list(
            TravelingPass.objects.filter(tournament=t)
            .select_related("player", "by", "round")
            .order_by("at", "id")
        )
        in_stage = totals.get(category.stage_kind) or []
        if in_stage:
            ids = [r.player for r in in_stage]
        else:
            ids = list(t.players.playing().values_list("pk", flat=True))
        choices = sorted(
            ((pk, f"{players[pk][0]} ({players[pk][1]})") for pk in ids if pk in players),
            key=lambda x: x[1].lower(),
        )
        rounds = [
            (r.pk, f"Round {r.number} (set {r.set_number}, {r.target}s)")
            for r in Round.objects.filter(stage__tournament=t, stage__kind=category.stage_kind)
            .exclude(status=Round.Status.PENDING)
            .order_by("number")
        ]
        return {
            "category": category,
            "holder": passes[-1] if passes else None,
            "passes": passes[::-1],
            "form": TravelingForm(players=choices, rounds=rounds),
        }

    # -- the plan

    @staticmethod
    def tie_shown(tie: PrizeTie, categories, names) -> TieShown:
        category = next(c for c in categories if c.key == tie.category_key)
        shown = [who(category.scope, p, names) for p in tie.players]
        return TieShown(tie, shown, value_text(category.measure, tie.value))

    def awards_shown(self, plan, measures, names) -> list[AwardShown]:
        if plan.result is None:
            return []
        shown = []
        for a in plan.result.awards:
            measure = measures.get(a.category_key, "")
            throws = []
            if a.roll_off is not None:
                scope = "pod_group" if a.pod is not None else ""
                throws = [
                    [(who(scope, p, names), face) for p, face in throw.items()]
                    for throw in a.roll_off.rounds
                ]
            shown.append(
                AwardShown(
                    a,
                    where(a.scope_group, a.pod),
                    ordinal(a.place),
                    [
                        (names.get(p, str(p)), money(c))
                        for p, c in zip(a.players, a.amount_cents_each, strict=True)
                    ],
                    money(a.total_cents),
                    value_text(measure, a.value),
                    throws,
                    note_text(a.note, measure, names),
                    passed_text(a.moved_up_because, names),
                )
            )
        return shown

    def unawarded_shown(self, plan, names) -> list[UnawardedShown]:
        if plan.result is None:
            return []
        return [
            UnawardedShown(u, where(u.scope_group), ordinal(u.place), unawarded_text(u, names))
            for u in plan.result.unawarded
        ]

    @staticmethod
    def roll_offs(t, plan, categories, names) -> list[dict]:
        """Every throw of every prize tie, earlier versions too (a tie thrown again after a
        corrected card), and the ties the cut's roll-off of the same tie settled."""
        records = RollOff.objects.filter(tournament=t, kind=RollOff.Kind.PRIZE)
        labels = {c.key: (c.label, c.scope) for c in categories}
        newest: dict[str, int] = {}
        rows = list(records.select_related("recorded_by").order_by("pk"))
        for r in rows:
            newest[r.subject] = max(newest.get(r.subject, 0), r.version)
        shown = []
        for key, r in [(r.key, r) for r in rows] + list(plan.shared):
            category, group, place = key.split(":")
            label, scope = labels.get(category, (category, ""))
            shown.append(
                {
                    "record": r,
                    "title": f"{label} · {where(group)} · {ordinal(int(place))} place",
                    "players": [who(scope, p, names) for p in r.players],
                    "by": r.recorded_by.get_username() if r.recorded_by else "",
                    "shared": r.kind == RollOff.Kind.CUT,
                    "replaced": r.kind == RollOff.Kind.PRIZE and r.version < newest[r.subject],
                }
            )
        return shown

    @staticmethod
    def differs(plan, stored) -> bool:
        if plan.result is None:
            return True
        planned = {
            (a.category_key, str(a.scope_group), a.place, p, c)
            for a in plan.result.awards
            for p, c in zip(a.players, a.amount_cents_each, strict=True)
        }
        have = {
            (s.category.key, s.scope_group, s.place, s.player_id, s.amount_cents) for s in stored
        }
        return planned != have


class NominateView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["post"]

    def post(self, request, slug):
        back = redirect(reverse("prize-winners", args=[slug]))
        pk = request.POST.get("category", "")
        category = get_object_or_404(
            self.tournament.prize_categories, pk=whole_number(pk) or 0, measure="judged"
        )
        group = request.POST.get("group", "")
        rows = [
            r for r in service.player_totals(self.tournament, category.stage_kind) if r.eligible
        ]
        rows = offered_rows(category, rows)
        pods = sorted({r.pod for r in rows})
        if category.scope == "pod_group":
            groups, allowed = {OVERALL}, set(pods)
        elif category.scope == "pod":
            groups = {str(p) for p in pods}
            allowed = {r.player for r in rows if str(r.pod) == group}
        else:
            groups, allowed = {OVERALL}, {r.player for r in rows}
        if group not in groups:
            messages.error(request, f"{category.label} has no group {group!r}.")
            return back
        form = NominationForm(request.POST, allowed=allowed, places=len(category.amounts_cents))
        if not form.is_valid():
            messages.error(request, first_error(form))
            return back
        winners = form.cleaned_data["winners"]
        try:
            service.nominate(category, group, winners, actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return back
        if winners:
            names = dict(Player.objects.filter(pk__in=winners).values_list("pk", "name"))
            chosen = ", ".join(
                f"Pod {w}" if category.scope == "pod_group" else names.get(w, str(w))
                for w in winners
            )
            messages.success(request, f"{category.label} ({where(group)}): {chosen}.")
        else:
            messages.success(request, f"{category.label} ({where(group)}): nobody chosen.")
        standing = category.awards.current().filter(scope_group=group).select_related("player")
        if standing:
            # The choice is saved for the next award; the award already made (and maybe
            # paid) is not changed by it, and the message above must not read as if it were.
            names = ", ".join(a.player.name for a in standing)
            messages.warning(
                request,
                f"{category.label} ({where(group)}) is already awarded to {names}: that award "
                "stands until the prizes are awarded again.",
            )
        return back


class TravelingView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["post"]

    def post(self, request, slug):
        back = redirect("prize-winners", slug)
        t = self.tournament
        players = [
            (pk, name)
            for pk, name in t.players.filter(status=Player.Status.REGISTERED).values_list(
                "pk", "name"
            )
        ]
        rounds = [(r.pk, str(r.number)) for r in Round.objects.filter(stage__tournament=t)]
        form = TravelingForm(request.POST, players=players, rounds=rounds)
        if not form.is_valid():
            messages.error(request, first_error(form))
            return back
        player = t.players.get(pk=form.cleaned_data["player"])
        round_ = (
            Round.objects.get(pk=form.cleaned_data["round"]) if form.cleaned_data["round"] else None
        )
        try:
            service.pass_traveling_item(t, player, actor=request.user, round_=round_)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"{player.name} now holds the traveling item.")
        return back


class AwardView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["post"]

    def post(self, request, slug):
        try:
            rows = service.award(self.tournament, actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect("prize-winners", slug)
        total = money(sum(r.amount_cents for r in rows))
        messages.success(
            request,
            f"{len(rows)} prize share{'s' if len(rows) != 1 else ''} awarded, {total} in all. "
            "They can be paid at the prize table.",
        )
        return redirect("prize-winners", slug)
