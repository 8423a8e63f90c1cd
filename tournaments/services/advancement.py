"""From verified cards to the semi-final, in the engine's named steps.

The cut itself is `tournaments.rules.advancement` (standings, eligibility, cut with ties,
roll-offs); this module feeds it the verified cards of each pod, stores every roll-off's dice
(entered from the table or rolled here from a stored seed), saves the qualifiers and draws the
semi-final like any stage. The final table is `final_table`. Every seed is a draw code from
the tournament's secret (`draws.next_seed`): no caller chooses one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.db import transaction

from scoring.rules import RuleError
from scoring.services.cards import StageCards, load_stage, verify_pods
from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError
from tournaments.rules.advancement import (
    AdvancementRules,
    GroupAdvancement,
    Placed,
    Standing,
    Tie,
    advance_group,
    cut_group,
    final_table_rules,
    pod_cut,
    settle,
)
from tournaments.rules.draws import roll_off_subject
from tournaments.rules.roll_offs import CUT_MEASURES, SEMI_GROUP

from ..foundation.text import count
from ..models import (
    Player,
    Qualifier,
    RollOff,
    Stage,
    Tournament,
)
from . import draws, roll_offs
from .roll_offs import ForCut
from .stages import draw_stage


def advancement_rules(tournament: Tournament, *, semi: bool = False) -> AdvancementRules:
    """The organiser's cut: places per pod from the tournament; one of each at the semi."""
    wins, buncos = (1, 1) if semi else (tournament.wins_places, tournament.buncos_places)
    categories = pod_cut(wins, buncos)
    if not categories:
        raise UserFacingError("Nobody advances: set at least one place for wins or buncos.")
    rules = AdvancementRules(categories=categories, top_both=tournament.top_both)
    # The semi-final seats the final table, which always has four players.
    return final_table_rules(rules) if semi else rules


def standings_of(cards: StageCards, players: list[int]) -> list[Standing]:
    """Verified cards make a player eligible; anything else is the reason they are not."""
    rows = []
    for player in players:
        state = cards.states[player]
        card = state.official
        eligible = state.verified and cards.players[player].status == Player.Status.REGISTERED
        reason = "" if eligible else ("Withdrawn" if state.verified else "Card not verified")
        rows.append(
            Standing(
                player,
                wins=card.wins if card else 0,
                losses=card.losses if card else 0,
                buncos=card.buncos if card else 0,
                minis=card.minis if card else 0,
                eligible=eligible,
                reason=reason,
            )
        )
    return rows


@dataclass(frozen=True)
class GroupPlan:
    """Where one group's cut stands: blocked, waiting for a roll-off, or decided.

    `roll_offs` are the group's own; `shared` are prize roll-offs of the same tie (same
    stage, pod, count and players) that settled a category of this cut, by category key.
    While a roll-off is pending, `placed` is the engine's cut so far: per category key, who
    is already in (up to the first tie still to throw under "next_in_line").
    """

    group: str
    label: str
    blocked: str = ""
    pending: tuple[Tie, ...] = ()
    result: GroupAdvancement | None = None
    roll_offs: tuple[RollOff, ...] = ()
    shared: tuple[tuple[str, RollOff], ...] = ()
    placed: tuple[tuple[str, tuple[Placed, ...]], ...] = ()

    @property
    def so_far(self) -> dict[str, tuple[Placed, ...]]:
        """Who is placed in each category so far; empty once decided or when blocked."""
        return dict(self.placed) if self.pending else {}

    @property
    def by_category(self) -> dict[str, RollOff]:
        return {**dict(self.shared), **{r.category_key: r for r in self.roll_offs}}

    @property
    def dice(self) -> dict[str, list[int]]:
        return {key: list(r.faces) for key, r in self.by_category.items()}


def _decide(stage_kind: str, group: str, label: str, standings, rules, stored: ForCut):
    records = stored.cuts.get(group, {})
    dice = {key: list(r.faces) for key, r in records.items()}
    shared: dict[str, RollOff] = {}
    try:
        while True:
            walk = cut_group(group, standings, rules, dice)
            pending = walk.pending
            found = {t.category_key: stored.shared(stage_kind, t) for t in pending}
            found = {key: r for key, r in found.items() if r is not None}
            if not found:
                break
            shared.update(found)
            dice.update({key: list(r.faces) for key, r in found.items()})
        result = None if pending else advance_group(group, standings, rules, dice)
    except RuleError as exc:
        return GroupPlan(group, label, blocked=str(exc), roll_offs=tuple(records.values()))
    return GroupPlan(
        group,
        label,
        pending=pending,
        result=result,
        roll_offs=tuple(records.values()),
        shared=tuple(shared.items()),
        placed=walk.placed,
    )


def plan_stage(stage: Stage) -> list[GroupPlan]:
    """Each pod's cut, from the verified cards; an unverified pod is blocked with the reason."""
    cards = load_stage(stage)
    pods = list(stage.pods.order_by("number"))
    entered = roll_offs.for_cut(stage)
    rules = advancement_rules(stage.tournament, semi=stage.kind == Stage.Kind.SEMI_FINAL)
    if stage.kind == Stage.Kind.SEMI_FINAL:
        return [_plan_semi(stage, cards, pods, rules, entered)]
    plans = []
    for check in verify_pods(cards, pods):
        group, label = str(check.pod.number), f"Pod {check.pod.number}"
        if not check.verified_pod:
            why = f"{check.verified} of {count(check.cards, 'card')} verified"
            if check.problems:
                why += f"; {len(check.problems)} check{'s' if len(check.problems) > 1 else ''} fail"
            plans.append(GroupPlan(group, label, blocked=f"Not verified: {why}."))
            continue
        standings = standings_of(cards, cards.in_pod(check.pod.number))
        plans.append(_decide(stage.kind, group, label, standings, rules, entered))
    return plans


def changed_since_saved(plans: list[GroupPlan], saved: list[Qualifier]) -> bool:
    """The cards were corrected after the qualifiers were saved and now cut differently."""
    if not saved or any(p.result is None for p in plans):
        return False
    now = {(q.player, q.category_key) for p in plans for q in p.result.qualifiers}
    return now != {(q.player_id, q.category_key) for q in saved}


def _plan_semi(stage, cards, pods, rules, entered) -> GroupPlan:
    """The semi-final is cut as one group: its leaders take the first final seats."""
    unverified = [c.pod.number for c in verify_pods(cards, pods) if not c.verified_pod]
    if unverified:
        listed = ", ".join(map(str, unverified))
        return GroupPlan(SEMI_GROUP, "Semi-final", blocked=f"Pods {listed} are not verified.")
    standings = standings_of(cards, sorted(cards.pod_of))
    return _decide(stage.kind, SEMI_GROUP, "Semi-final", standings, rules, entered)


def _flatten(roll) -> tuple[list[int], list[dict[str, int]]]:
    faces, rounds = [], []
    for throw in roll.rounds:
        faces += list(throw.values())
        rounds.append({str(player): face for player, face in throw.items()})
    return faces, rounds


def drawn_stage(tournament: Tournament, kind: str) -> Stage:
    """The tournament's stage of that kind, or the message that it is not drawn yet."""
    stage = tournament.stages.filter(kind=kind).first()
    if stage is None:
        raise UserFacingError(f"The {Stage.Kind(kind).label.lower()} has not been drawn.")
    stage.tournament = tournament
    return stage


@transaction.atomic
def record_roll_off(
    stage: Stage,
    group: str,
    category_key: str,
    *,
    actor,
    faces: list[int] | None = None,
) -> RollOff:
    """Stores a pending roll-off: the faces staff typed in, or the site's throw from a code.

    A tie a prize roll-off already settled is not pending (`ForCut.shared`): one tie, one roll-off.
    The tournament is locked first, as a prize roll-off locks it, so the two pages cannot
    each record a roll-off of the same tie at the same moment.
    """
    Tournament.objects.select_for_update().only("pk").get(pk=stage.tournament_id)
    locked = Stage.objects.select_for_update().get(pk=stage.pk)
    if locked.status != Stage.Status.FINISHED:
        # Cards can be verified after a few rounds; a tie then is not the stage's tie, and a
        # recorded roll-off cannot be taken back.
        raise UserFacingError("Roll-offs are thrown once every round of the stage is closed.")
    plan = next((p for p in plan_stage(stage) if p.group == group), None)
    tie = next((t for t in (plan.pending if plan else ()) if t.category_key == category_key), None)
    if tie is None:
        if plan is not None and plan.blocked:
            raise UserFacingError(f"{plan.label} is blocked: {plan.blocked}")
        raise UserFacingError("That roll-off is not needed (or is already recorded).")
    if faces is None:
        subject = roll_off_subject(stage.kind, group, category_key)
        seed = draws.next_seed(stage.tournament, subject, actor=actor)
        settled = settle(tie, random.Random(seed))
        source = RollOff.Source.SITE
    else:
        try:
            settled = settle(tie, faces)
        except RuleError as exc:
            raise UserFacingError(str(exc)) from exc
        source, seed = RollOff.Source.ENTERED, None
    thrown, rounds = _flatten(settled.roll_off)
    record = RollOff.objects.create(
        tournament_id=stage.tournament_id,
        kind=RollOff.Kind.CUT,
        subject=roll_off_subject(stage.kind, group, category_key),
        stage=stage,
        key=category_key,
        group=group,
        category_key=category_key,
        category_label=tie.category_label,
        measure=CUT_MEASURES.get(category_key, ""),
        players=list(tie.players),
        faces=thrown,
        winners=list(settled.winners),
        rounds=rounds,
        source=source,
        seed=seed,
        recorded_by=actor,
    )
    names = dict(Player.objects.filter(pk__in=tie.players).values_list("pk", "name"))
    audit.record(
        "advancement.roll_off",
        f"{plan.label}, {tie.category_label}: roll-off between "
        f"{', '.join(names[p] for p in tie.players)} won by "
        f"{', '.join(names[p] for p in settled.winners)} ({record.get_source_display().lower()})",
        actor=actor,
        tournament=stage.tournament,
        target=record,
        data={"faces": thrown, "seed": seed, "group": group},
    )
    return record


@transaction.atomic
def save_qualifiers(stage: Stage, *, actor) -> list[Qualifier]:
    """Saves every pod's qualifiers once all pods are verified and every roll-off is in."""
    stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
    if stage.qualifiers.exists():
        raise UserFacingError("The qualifiers of this stage are already saved.")
    if stage.status != Stage.Status.FINISHED:
        raise UserFacingError("Every round of the stage must be closed first.")
    plans = plan_stage(stage)
    waiting = [p for p in plans if p.result is None]
    if waiting:
        first = waiting[0]
        why = first.blocked or f"{first.pending[0].category_label} needs a roll-off"
        raise UserFacingError(f"{len(waiting)} group(s) are not ready. {first.label}: {why}")
    rows = [
        Qualifier(
            from_stage=stage,
            player_id=q.player,
            group=plan.label,
            category_key=q.category_key,
            category_label=q.category_label,
            place=q.place,
            value=q.value,
            via_roll_off=q.via_roll_off,
            saved_by=actor,
        )
        for plan in plans
        for q in plan.result.qualifiers
    ]
    Qualifier.objects.bulk_create(rows)
    audit.record(
        "advancement.saved",
        f"{count(len(rows), 'player')} {'advances' if len(rows) == 1 else 'advance'} from the "
        f"{stage.get_kind_display().lower()}",
        actor=actor,
        tournament=stage.tournament,
        target=stage,
    )
    return rows


def draw_semi_final(tournament: Tournament, *, actor) -> Stage:
    qualifying = tournament.stages.filter(kind=Stage.Kind.QUALIFYING).first()
    if qualifying is None or not qualifying.qualifiers.exists():
        raise UserFacingError("Save the qualifiers of the qualifying stage first.")
    players = list(qualifying.qualifiers.values_list("player_id", flat=True))
    return draw_stage(
        tournament,
        players,
        kind=Stage.Kind.SEMI_FINAL,
        sets=tournament.semi_final_sets,
        actor=actor,
        rules=qualifying.ruleset(),
    )
