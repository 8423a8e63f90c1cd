"""From verified cards to the semi-final and the final table, in the engine's named steps.

The cut itself is `scoring.rules.advancement` (standings, eligibility, cut with ties,
roll-offs); this module feeds it the verified cards of each pod, stores every roll-off's dice
(entered from the table or rolled here from a stored seed), saves the qualifiers, draws the
semi-final like any stage, seats the final table from the semi-final's cards with stored
seeds, and records the grand prize throws one by one. Every seed is a draw code from the
tournament's secret (`draws.next_seed`): no caller chooses one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from scoring.rules import RuleError
from scoring.rules.advancement import (
    AdvancementRules,
    Category,
    GroupAdvancement,
    Placed,
    Standing,
    Tie,
    advance_group,
    cut_group,
    final_seats,
    final_table_rules,
    settle,
)
from scoring.rules.final import OrderResult, order_of_play, roll_order, take_turn
from scoring.services.cards import StageCards, load_stage, verify_pods

from ..draws import FINAL_DICE, FINAL_ORDER, FINAL_SEATS, roll_off_subject
from ..models import (
    FinalSeat,
    FinalTable,
    FinalThrow,
    Player,
    Qualifier,
    RollOff,
    RosterChange,
    Stage,
    Tournament,
)
from ..roll_offs import CUT_MEASURES, SEMI_GROUP
from ..words import count
from . import audit, draws, roll_offs
from .errors import UserFacingError
from .roll_offs import ForCut
from .stages import draw_stage


def advancement_rules(tournament: Tournament, *, semi: bool = False) -> AdvancementRules:
    """The organiser's cut: places per pod from the tournament; one of each at the semi."""
    wins, buncos = (1, 1) if semi else (tournament.wins_places, tournament.buncos_places)
    categories = [
        Category(key, label, places)
        for key, label, places in (("wins", "Most wins", wins), ("buncos", "Most buncos", buncos))
        if places
    ]
    if not categories:
        raise UserFacingError("Nobody advances: set at least one place for wins or buncos.")
    rules = AdvancementRules(categories=tuple(categories), top_both=tournament.top_both)
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


def present_participants(tournament: Tournament) -> list[int]:
    """Everyone checked in and still registered, less those who left and did not return."""
    left = set(
        RosterChange.objects.filter(
            pod__stage__tournament=tournament, kind=RosterChange.Kind.LEAVE
        ).values_list("player_id", flat=True)
    )
    back = set(
        RosterChange.objects.filter(
            pod__stage__tournament=tournament, kind=RosterChange.Kind.JOIN
        ).values_list("player_id", flat=True)
    )
    present = tournament.players.filter(
        status=Player.Status.REGISTERED, checked_in_at__isnull=False
    ).values_list("pk", flat=True)
    return sorted(set(present) - (left - back))


def path_of(tournament: Tournament, player: int) -> str:
    """How a finalist got to the semi-final, for the board: "Most wins, pod 3"."""
    q = Qualifier.objects.filter(
        from_stage__tournament=tournament, from_stage__kind=Stage.Kind.QUALIFYING, player=player
    ).first()
    return f"{q.category_label}, {q.group.lower()}" if q else ""


@transaction.atomic
def seat_final(tournament: Tournament, *, actor) -> FinalTable:
    """The four final seats: semi-final most wins and most buncos, a draw, a wild card."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if FinalTable.objects.filter(tournament=tournament).exists():
        raise UserFacingError("The final table is already seated.")
    semi = tournament.stages.filter(kind=Stage.Kind.SEMI_FINAL).first()
    if semi is None or semi.status != Stage.Status.FINISHED:
        raise UserFacingError("The semi-final must be played to the end first.")
    (plan,) = plan_stage(semi)
    if plan.result is None:
        raise UserFacingError(
            plan.blocked or f"{plan.pending[0].category_label} needs a roll-off first."
        )
    seed = draws.next_seed(tournament, FINAL_SEATS, actor=actor)
    cards = load_stage(semi)
    standings = standings_of(cards, sorted(cards.pod_of))
    dice = plan.dice
    try:
        table = final_seats(
            standings,
            advancement_rules(tournament, semi=True),
            present_participants(tournament),
            random.Random(seed),
            semi_group_id=SEMI_GROUP,
            dice=dice,
        )
    except RuleError as exc:
        raise UserFacingError(str(exc)) from exc
    final = FinalTable.objects.create(
        tournament=tournament, semi_stage=semi, seed=seed, seated_by=actor
    )
    FinalSeat.objects.bulk_create(
        FinalSeat(
            final=final,
            seat=s.seat,
            player_id=s.player,
            reason=s.reason,
            path=path_of(tournament, s.player),
            pool=list(s.pool),
        )
        for s in table.seats
    )
    audit.record(
        "final.seated",
        f"Final table seated (draw code {seed})",
        actor=actor,
        tournament=tournament,
        target=final,
        data={"seed": seed, "players": table.players},
    )
    return final


def players_by_seat(final: FinalTable) -> list[int]:
    return list(final.seats.order_by("seat").values_list("player_id", flat=True))


def order_roll(final: FinalTable) -> RollOff | None:
    """The newest version of the final's order roll: each re-throw of a tie for the lowest
    die is a new version holding every face so far, and the earlier ones stay."""
    return (
        RollOff.objects.filter(tournament_id=final.tournament_id, subject=FINAL_ORDER)
        .order_by("-version")
        .first()
    )


def order_faces(final: FinalTable) -> list[int]:
    """Every die of the order roll so far, in throw order."""
    record = order_roll(final)
    return list(record.faces) if record is not None else []


def order_state(
    final: FinalTable, players: list[int] | None = None, faces: list[int] | None = None
) -> OrderResult | None:
    """The order roll as the engine reads the stored dice: who throws next, or the order.

    None when the stored dice do not read as an order roll (a final played before the
    order rule was settled): the pages then show the stored order without its dice.
    """
    try:
        return order_of_play(
            players or players_by_seat(final), order_faces(final) if faces is None else faces
        )
    except RuleError:
        return None


@transaction.atomic
def roll_for_order(final: FinalTable, *, actor, faces: list[int] | None = None) -> FinalTable:
    """Records the next round of the order roll: the dice staff typed, or the site's roll.

    Typed dice are one per player throwing now (every finalist, then only those tied on
    the lowest die); the order is saved once it is decided. The site rolls the whole order
    at once from the "code:order" stream of the final's dice code, so it is refused after
    typed dice: a roll half typed, half drawn could not be checked against the code.
    """
    final = FinalTable.objects.select_for_update().get(pk=final.pk)
    if final.order:
        raise UserFacingError("The order of play is already decided.")
    players = players_by_seat(final)
    previous = order_roll(final)
    so_far = list(previous.faces) if previous is not None else []
    if faces is None:
        if so_far:
            raise UserFacingError(
                "The first dice of the order roll were typed in; type the re-throw too."
            )
        final.dice_seed = draws.next_seed(final.tournament, FINAL_DICE, actor=actor)
        rng = random.Random(f"{final.dice_seed}:order")
        result = roll_order(players, lambda: rng.randint(1, 6))
    else:
        if not faces:
            raise UserFacingError("Enter one die for each finalist throwing.")
        try:
            result = order_of_play(players, [*so_far, *faces])
        except RuleError as exc:
            raise UserFacingError(str(exc)) from exc
    record = RollOff.objects.create(
        tournament_id=final.tournament_id,
        kind=RollOff.Kind.ORDER,
        subject=FINAL_ORDER,
        version=previous.version + 1 if previous is not None else 1,
        group="final",
        key="order",
        category_key="order",
        category_label=RollOff.Kind.ORDER.label,
        players=players,
        faces=result.faces,
        winners=list(result.order),
        rounds=[{str(p): face for p, face in throw.items()} for throw in result.rounds],
        source=RollOff.Source.ENTERED if faces is not None else RollOff.Source.SITE,
        seed=final.dice_seed if faces is None else None,
        recorded_by=actor,
    )
    final.order = list(result.order)
    final.save(update_fields=["order", "dice_seed"])
    names = dict(Player.objects.filter(pk__in=players).values_list("pk", "name"))
    summary = (
        f"Order of play: {' then '.join(names[p] for p in result.order)}"
        if result.decided
        else f"Tie for the lowest die: {', '.join(names[p] for p in result.needed)} throw again"
    )
    audit.record(
        "final.order",
        summary,
        actor=actor,
        tournament=final.tournament,
        target=record,
        data={"faces": result.faces, "seed": final.dice_seed, "version": record.version},
    )
    return final


@transaction.atomic
def throw(
    final: FinalTable,
    *,
    actor,
    dice: tuple[int, int, int] | None = None,
    number: int | None = None,
) -> FinalThrow:
    """The next finalist's throw of three dice; three of a kind wins the grand prize.

    `number` is the throw the person meant to record (the page shows it): two phones, or a
    double tap, sending the same throw record it once and the second is told, instead of
    the second becoming the next finalist's throw.
    """
    final = FinalTable.objects.select_for_update().get(pk=final.pk)
    if not final.order:
        raise UserFacingError("Roll for the order of play first.")
    if final.winner_id is not None:
        raise UserFacingError("The grand prize is already won.")
    next_number = final.throws.count() + 1
    if number is not None and number != next_number:
        raise UserFacingError(
            f"Throw {number} is already recorded; the next is throw {next_number}."
            if number < next_number
            else f"The next throw is throw {next_number}; reload the page."
        )
    if dice is None:
        if final.dice_seed is None:
            final.dice_seed = draws.next_seed(final.tournament, FINAL_DICE, actor=actor)
            final.save(update_fields=["dice_seed"])
        rng = random.Random(f"{final.dice_seed}:{next_number}")
        dice = (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
    try:
        # A voided throw is thrown again by the same finalist: only the others count.
        counted = final.throws.filter(voided_at__isnull=True).count()
        turn = take_turn(final.order, counted, dice)
    except RuleError as exc:
        raise UserFacingError(str(exc)) from exc
    made = FinalThrow.objects.create(
        final=final,
        number=next_number,
        player_id=turn.player,
        dice=list(turn.dice),
        entered_by=actor,
    )
    if turn.wins:
        final.winner_id = turn.player
        final.finished_at = timezone.now()
        final.save(update_fields=["winner", "finished_at"])
        audit.record(
            "final.won",
            f"Grand prize won with {turn.dice}",
            actor=actor,
            tournament=final.tournament,
            target=final,
            data={"player": turn.player},
        )
    return made
