"""The evening's results: who advanced from each pod and why, the semi-final's cut, the final
table with every throw, the grand prize winner, and how every draw is checked.

Public once the organiser publishes the standings (`standings_public`, the one switch for
"results are out"); before that, anyone who may see the tournament's dashboard. Names only,
never an e-mail or a phone number. A fixed number of queries whatever the number of players:
the qualifying stage is read from its saved qualifiers, only the (small) semi-final is cut
again from its cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.template.response import TemplateResponse
from django.urls import path
from django.views.generic import View

from scoring.mixins import StandingsAccessMixin
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import money, ordinal, whole_number
from tournaments.models import PrizeAward, Qualifier, RollOff, Stage
from tournaments.permissions import PUBLIC, TournamentPermissionMixin, permissions_of
from tournaments.presenters.advancement import (
    RollOffShown,
    count_label,
    player_names,
    roll_off_player_ids,
    roll_off_shown,
)
from tournaments.presenters.final_table import final_of, final_shown
from tournaments.services import advancement as service
from tournaments.services.draws import draw_report
from tournaments.services.roll_offs import cut_roll_offs

CATEGORY_ORDER = ("wins", "buncos")  # as the rule sheet lists them


@dataclass(frozen=True)
class Advanced:
    name: str
    category: str
    value: str
    roll_off: RollOffShown | None = None


@dataclass
class GroupResult:
    label: str
    advanced: list[Advanced] = field(default_factory=list)
    roll_offs: list[RollOffShown] = field(default_factory=list)


def pod_order(label: str) -> tuple[int, str]:
    return (whole_number(label.rsplit(" ", 1)[-1]) or 0, label)


def qualifying_results(
    qualifiers: list[Qualifier], records: dict[tuple[str, str], RollOff], names: dict[int, str]
) -> list[GroupResult]:
    by_cut = {cut: roll_off_shown(r, names) for cut, r in records.items()}
    groups: dict[str, GroupResult] = {}
    order = {key: n for n, key in enumerate(CATEGORY_ORDER)}
    qualifiers = sorted(qualifiers, key=lambda q: (order.get(q.category_key, 9), q.place))
    for q in qualifiers:
        group = groups.setdefault(q.group, GroupResult(q.group))
        number = q.group.rsplit(" ", 1)[-1]
        roll = by_cut.get((number, q.category_key)) if q.via_roll_off else None
        group.advanced.append(
            Advanced(q.player.name, q.category_label, count_label(q.category_key, q.value), roll)
        )
    for cut in sorted(records, key=lambda cut: records[cut].pk):
        label = f"Pod {cut[0]}"
        group = groups.setdefault(label, GroupResult(label))
        group.roll_offs.append(by_cut[cut])
    return sorted(groups.values(), key=lambda g: pod_order(g.label))


def semi_results(semi: Stage, names_of) -> tuple[GroupResult | None, str]:
    """The semi-final's cut as the final table was seated from it."""
    try:
        (plan,) = service.plan_stage(semi)
    except UserFacingError as exc:
        return None, exc.message
    if plan.result is None:
        return None, plan.blocked or "A roll-off is still to be thrown."
    ids = {int(q.player) for q in plan.result.qualifiers} | roll_off_player_ids(
        plan.by_category.values()
    )
    names = names_of(ids)
    rolls = {
        key: roll_off_shown(r, names)
        for key, r in sorted(plan.by_category.items(), key=lambda item: item[1].pk)
    }
    group = GroupResult("Semi-final")
    for q in plan.result.qualifiers:
        group.advanced.append(
            Advanced(
                names.get(int(q.player), ""),
                q.category_label,
                count_label(q.category_key, q.value),
                rolls.get(q.category_key) if q.via_roll_off else None,
            )
        )
    group.roll_offs = list(rolls.values())
    return group, ""


@dataclass(frozen=True)
class PrizeWinner:
    prize: str
    where: str
    place: str
    names: list[str]  # the winner, or every player of the winning team
    amount: str  # the place's money: for a team, what its players share
    team: bool = False


def prize_winners(tournament) -> list[PrizeWinner]:
    """Every prize in force, not only the grand prize: one query.

    A team prize is stored as one award per player of the winning pod (each is paid their
    share), so listed award by award it read as a dozen "Overall" winners of a few dollars
    each, the team never named. Here each team's place is one line, named as the winners
    page names it (`where` with the pod) with its players and the money they share.
    Superseded awards (the prizes awarded again) are left out, as on every prize page.
    """
    awards = (
        tournament.awards.current()
        .select_related("player", "category")
        .order_by(*PrizeAward._meta.ordering)
    )
    lines: dict[tuple, list[PrizeAward]] = {}
    for a in awards:
        key = (a.category_id, a.scope_group, a.place, a.team_pod) if a.is_team else (a.pk,)
        lines.setdefault(key, []).append(a)
    winners = []
    for shares in lines.values():
        first = shares[0]
        winners.append(
            PrizeWinner(
                first.category.label,
                first.where_won,
                ordinal(first.place),
                [a.player.name for a in shares],
                money(sum(a.amount_cents for a in shares)),
                first.is_team,
            )
        )
    return winners


class ResultsView(TournamentPermissionMixin, StandingsAccessMixin, View):
    permission = PUBLIC  # checked in StandingsAccessMixin: the flag, else `tournament.view`
    http_method_names = ["get"]

    def get_tournament_queryset(self):
        # The final table comes with the tournament, for the draws check.
        return super().get_tournament_queryset().select_related("final")

    def get(self, request, slug):
        tournament = self.tournament
        stages = {s.kind: s for s in tournament.stages.all()}
        qualifying = stages.get(Stage.Kind.QUALIFYING)
        semi = stages.get(Stage.Kind.SEMI_FINAL)
        qualifiers, records = [], {}
        if qualifying is not None:
            qualifiers = list(qualifying.qualifiers.select_related("player"))
            if qualifiers:
                records = cut_roll_offs(qualifying, qualifiers)
        names = player_names(roll_off_player_ids(records.values()))
        final = final_of(tournament)
        semi_group, semi_note = None, ""
        if semi is not None and final is not None:
            semi.tournament = tournament
            semi_group, semi_note = semi_results(semi, player_names)
        context = {
            "tournament": tournament,
            "perms_here": permissions_of(request.user, tournament),
            "qualifying": qualifying,
            "pods": qualifying_results(qualifiers, records, names),
            "semifinalists": len(qualifiers),
            "semi": semi,
            "semi_group": semi_group,
            "semi_note": semi_note,
            "final": final,
            "shown": final_shown(final) if final is not None else None,
            "draws": draw_report(tournament),
            "prize_winners": prize_winners(tournament),
        }
        return TemplateResponse(request, "scoring/results/results.html", context)


urlpatterns = [
    path("t/<slug:slug>/results/", ResultsView.as_view(), name="results"),
]
