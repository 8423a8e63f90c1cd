"""Drawing a stage's pods, picking hostesses, assigning staff and late or leaving players.

The draw is the engine's `draw_pods` fed by a stored seed and stored inputs (the sorted
player ids and their groups), so `replay_matches` gives the same pods for an audit. The seed
is the draw code `draws.next_seed` derives from the tournament's secret, never typed in.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from scoring.rules import RuleSet
from scoring.rules.pods import draw_refusal
from scoring.rules.ruleset import round_in_sets
from scoring.rules.seating import SeatingError, draw_pods
from scoring.rules.table import partner_of
from scoring.services.rounds import first_pending_of
from scoring.services.seating import seat_rows, seating_by_pod, token_of
from tournaments.foundation import audit, changes, locks
from tournaments.foundation.errors import UserFacingError
from tournaments.rules.draws import pods_subject

from ..foundation.text import count
from ..models import Player, Pod, RosterChange, Round, Seat, Stage, Tournament
from . import draws

DRAW_ALGORITHM = "draw_pods/2"
# How each stored algorithm splits the players into pods: "draw_pods/1" draws (the even split)
# must keep replaying as they were made.
POD_SPLITS = {"draw_pods/1": "even", "draw_pods/2": "full"}
POD_SIZE = 12  # three tables of four


def draw_with(seed: int, draw_input: dict) -> tuple[list[list[tuple]], list[int | None]]:
    """Pods (tables of player ids, None for ghosts) and each pod's hostess, from the inputs.

    One rng, used first for the pods and then for the hostesses, so both replay together.
    """
    rng = random.Random(seed)
    groups = draw_input.get("groups") or None
    if groups:
        groups = {int(k): v for k, v in groups.items()}
    split = POD_SPLITS[draw_input["algorithm"]]
    pods = draw_pods(draw_input["players"], rng, draw_input["pod_size"], groups, split)
    hostesses = []
    for tables in pods:
        members = sorted(p for table in tables for p in table if p is not None)
        hostesses.append(rng.choice(members) if members else None)
    return pods, hostesses


def ghost_numbered(tables: list[tuple]) -> list[tuple[int, ...]]:
    """Engine tables (None for ghosts) as tokens, ghosts numbered 1.. in seat order."""
    numbered, ghost = [], 0
    for table in tables:
        row = []
        for player in table:
            if player is None:
                ghost += 1
                row.append(-ghost)
            else:
                row.append(player)
        numbered.append(tuple(row))
    return numbered


def create_rounds(stage: Stage) -> list[Round]:
    targets = stage.targets
    plan = {n: round_in_sets(targets, n) for n in range(1, stage.round_count + 1)}
    return Round.objects.bulk_create(
        Round(stage=stage, number=n, set_number=set_number, target=target)
        for n, (set_number, target) in plan.items()
    )


@changes.announces
def draw_stage(
    tournament: Tournament,
    player_ids: list[int],
    *,
    kind: str,
    sets: int,
    actor,
    seed: int | None = None,
    pod_size: int = POD_SIZE,
    groups: dict[int, str] | None = None,
    rules: RuleSet | None = None,
) -> Stage:
    """Draws the pods of a stage from the given players and seats round 1.

    `seed` is for practice runs only (see `draws.next_seed`); pages never pass one.
    `rules` defaults to the tournament's preset; later stages pass the qualifying stage's
    copy so that a preset edited during the evening cannot change the semi-final.
    """
    tournament = (
        Tournament.objects.select_for_update().select_related("preset").get(pk=tournament.pk)
    )
    if tournament.stages.filter(kind=kind).exists():
        raise UserFacingError(f"The {Stage.Kind(kind).label.lower()} pods are already drawn.")
    if refusal := draw_refusal(len(player_ids)):
        raise UserFacingError(refusal)
    seed = draws.next_seed(tournament, pods_subject(kind), actor=actor, seed=seed)
    draw_input = {
        "algorithm": DRAW_ALGORITHM,
        "players": sorted(player_ids),
        "pod_size": pod_size,
        "groups": {str(k): v for k, v in sorted((groups or {}).items()) if v},
    }
    try:
        pods, hostesses = draw_with(seed, draw_input)
    except SeatingError as exc:
        raise UserFacingError(str(exc)) from exc
    rules = rules or tournament.preset.to_ruleset()
    stage = Stage.objects.create(
        tournament=tournament,
        kind=kind,
        sets=sets,
        rules=rules.to_dict(),
        seed=seed,
        draw_input=draw_input,
        drawn_by=actor if actor is not None and actor.is_authenticated else None,
    )
    rounds = create_rounds(stage)
    seats = []
    for number, (tables, hostess) in enumerate(zip(pods, hostesses, strict=True), start=1):
        pod = Pod.objects.create(stage=stage, number=number, tables=len(tables), hostess_id=hostess)
        seats += seat_rows(rounds[0], pod, ghost_numbered(tables))
    Seat.objects.bulk_create(seats)
    ghosts = sum(1 for s in seats if s.ghost)
    audit.record(
        "stage.drawn",
        f"{stage.get_kind_display()} drawn: {count(len(player_ids), 'player')} in "
        f"{count(len(pods), 'pod')}, {count(ghosts, 'ghost seat')}, draw code {seed}",
        actor=actor,
        tournament=tournament,
        target=stage,
        data={"seed": seed, "pods": len(pods), "ghosts": ghosts},
    )
    changes.bump(tournament.pk)
    return stage


@changes.announces
def draw_qualifying(
    tournament: Tournament, *, actor, seed: int | None = None, spread_groups: bool = True
) -> Stage:
    """Closes check-in and draws the checked-in players into the qualifying pods.

    `seed` is for practice runs only (see `draws.next_seed`); pages never pass one."""
    players = tournament.players.playing().values_list("id", "group_name")
    ids = [pk for pk, _ in players]
    groups = {pk: g.strip().lower() for pk, g in players if g.strip()} if spread_groups else {}
    Tournament.objects.filter(pk=tournament.pk).update(check_in_open=False)
    changes.bump(tournament.pk)
    return draw_stage(
        tournament,
        ids,
        kind=Stage.Kind.QUALIFYING,
        sets=tournament.qualifying_sets,
        actor=actor,
        seed=seed,
        groups=groups,
    )


def drawn_tables(stage: Stage) -> list[list[tuple]]:
    """Round 1 as the draw made it: roster changes made before round 1 are undone, the latest
    first, since one seat can change twice (a late arrival who then leaves again)."""
    first = stage.rounds.get(number=1)
    changes: dict[int, list[RosterChange]] = {}
    for change in RosterChange.objects.filter(pod__stage=stage, from_round=1).order_by("-pk"):
        changes.setdefault(change.pod_id, []).append(change)
    by_pod = seating_by_pod(first)
    pods = []
    for pod in stage.pods.order_by("number"):
        tokens = [token_of(seat) for table in by_pod.get(pod.pk, []) for seat in table]
        for change in changes.get(pod.pk, []):
            if change.kind == RosterChange.Kind.JOIN:
                tokens[tokens.index(change.player_id)] = -change.ghost
            else:
                tokens[tokens.index(-change.ghost)] = change.player_id
        seats = [None if token < 0 else token for token in tokens]
        pods.append([tuple(seats[i : i + 4]) for i in range(0, len(seats), 4)])
    return pods


def replay_matches(stage: Stage, seed: int | None = None) -> bool:
    """Replays the stored inputs with the stored seed, or with a code a person worked out
    from the published secret, and compares with the pods and hostesses drawn. Reads only."""
    pods, hostesses = draw_with(stage.seed if seed is None else seed, stage.draw_input)
    stored = list(stage.pods.order_by("number"))
    drawn_hostesses = [p.hostess_id for p in stored if p.hostess_drawn]
    replayed_hostesses = [h for p, h in zip(stored, hostesses, strict=False) if p.hostess_drawn]
    return pods == drawn_tables(stage) and drawn_hostesses == replayed_hostesses


def next_round_for_changes(stage: Stage) -> Round:
    """Players can join or leave from the first round that has not started."""
    round_ = first_pending_of(list(stage.rounds.order_by("number")))
    if round_ is None:
        raise UserFacingError("Every round of this stage has started; nobody can join now.")
    return round_


def tokens_at(pod: Pod, round_: Round) -> list[int]:
    """Who fills the pod's seats at `round_`, counting changes not yet seated."""
    latest = Seat.objects.filter(pod=pod, round__number__lte=round_.number).aggregate(
        n=Max("round__number")
    )["n"]
    tokens = [token_of(s) for s in Seat.objects.filter(pod=pod, round__number=latest)]
    for change in RosterChange.objects.filter(
        pod=pod, from_round__gt=latest, from_round__lte=round_.number
    ):
        if change.kind == RosterChange.Kind.JOIN:
            tokens[tokens.index(-change.ghost)] = change.player_id
        else:
            tokens[tokens.index(change.player_id)] = -change.ghost
    return tokens


def _apply_now(pod: Pod, round_: Round, old: int, new: int) -> None:
    seat = Seat.objects.filter(pod=pod, round=round_)
    seat = seat.filter(player_id=old) if old > 0 else seat.filter(ghost=-old)
    seat.update(player_id=new if new > 0 else None, ghost=-new if new < 0 else None)


@changes.announces
def seat_late_arrival(stage: Stage, player: Player, *, actor, pod: Pod | None = None) -> Pod:
    """Puts a late player in a ghost's seat from the next round on; nobody else moves.

    The pods are locked too (locks.py): a correction re-seating the next round at the same
    moment would otherwise seat it without the change."""
    locks.stage_and_pods(stage.pk)
    if player.tournament_id != stage.tournament_id or player.status != Player.Status.REGISTERED:
        raise UserFacingError(f"{player.name} is not registered for this tournament.")
    if stage.kind != Stage.Kind.QUALIFYING and player.pk not in stage.draw_input["players"]:
        raise UserFacingError(
            f"{player.name} did not qualify for the {stage.get_kind_display().lower()}."
        )
    if pod is not None and pod.stage_id != stage.pk:
        raise UserFacingError(f"{pod} does not play in this stage.")
    round_ = next_round_for_changes(stage)
    pods = [pod] if pod is not None else list(stage.pods.order_by("number"))
    for candidate in stage.pods.order_by("number"):
        if player.pk in tokens_at(candidate, round_):
            raise UserFacingError(f"{player.name} already has a seat in {candidate}.")
    for candidate in pods:
        ghosts = sorted(-t for t in tokens_at(candidate, round_) if t < 0)
        if ghosts:
            break
    else:
        where = str(pod) if pod is not None else "any pod"
        raise UserFacingError(f"There is no ghost seat in {where} for round {round_.number}.")
    ghost = ghosts[0]
    RosterChange.objects.create(
        pod=candidate,
        from_round=round_.number,
        kind=RosterChange.Kind.JOIN,
        player=player,
        ghost=ghost,
        by=actor,
    )
    _apply_now(candidate, round_, -ghost, player.pk)
    if player.checked_in_at is None:
        Player.objects.filter(pk=player.pk).update(
            checked_in_at=timezone.now(), checked_in_by=actor
        )
    audit.record(
        "stage.player_joined",
        f"{player.name} takes ghost {ghost}'s seat in {candidate} from round {round_.number}",
        actor=actor,
        tournament=stage.tournament,
        target=player,
        data={"pod": candidate.number, "round": round_.number, "ghost": ghost},
    )
    changes.bump(stage.tournament_id)
    return candidate


@changes.announces
def player_leaves(stage: Stage, player: Player, *, actor) -> Pod:
    """A ghost takes a leaving player's seat from the next round on (pods locked, as for a
    late arrival)."""
    locks.stage_and_pods(stage.pk)
    round_ = next_round_for_changes(stage)
    for pod in stage.pods.order_by("number"):
        tokens = tokens_at(pod, round_)
        if player.pk in tokens:
            break
    else:
        raise UserFacingError(f"{player.name} has no seat in this stage.")
    i = tokens.index(player.pk)
    partner = tokens[(i // 4) * 4 + partner_of(i % 4)]
    if partner < 0:
        raise UserFacingError(
            f"{player.name}'s partner in round {round_.number} is already a ghost; "
            "a team needs one player. Seat a late arrival first or wait a round."
        )
    used = RosterChange.objects.filter(pod=pod).aggregate(n=Max("ghost"))["n"] or 0
    ghost = max([used, *(-t for t in tokens if t < 0), *seat_ghosts(pod)]) + 1
    RosterChange.objects.create(
        pod=pod,
        from_round=round_.number,
        kind=RosterChange.Kind.LEAVE,
        player=player,
        ghost=ghost,
        by=actor,
    )
    _apply_now(pod, round_, player.pk, -ghost)
    audit.record(
        "stage.player_left",
        f"{player.name} leaves {pod} from round {round_.number}; ghost {ghost} takes the seat",
        actor=actor,
        tournament=stage.tournament,
        target=player,
        data={"pod": pod.number, "round": round_.number, "ghost": ghost},
    )
    changes.bump(stage.tournament_id)
    return pod


def seat_ghosts(pod: Pod) -> list[int]:
    return list(
        Seat.objects.filter(pod=pod, ghost__isnull=False).values_list("ghost", flat=True).distinct()
    )


@changes.announces
def set_hostess(pod: Pod, player: Player | None, *, actor) -> None:
    if player is not None and player.pk not in pod_player_ids(pod):
        raise UserFacingError(f"{player.name} does not play in {pod}.")
    pod.hostess = player
    pod.hostess_drawn = False
    pod.save(update_fields=["hostess", "hostess_drawn"])
    audit.record(
        "pod.hostess",
        f"{pod}: hostess is {player.name if player else 'nobody'}",
        actor=actor,
        tournament=pod.stage.tournament,
        target=pod,
    )
    changes.bump(pod.stage.tournament_id)


def pod_player_ids(pod: Pod) -> set[int]:
    return set(
        Seat.objects.filter(pod=pod, player__isnull=False).values_list("player_id", flat=True)
    )


@transaction.atomic
def assign_staff(pod: Pod, users, *, actor) -> None:
    """Sets the pod's staff to exactly `users`.

    Under the pod's lock: `set` reads the current staff and adds and removes the difference,
    so two organisers saving at once without it could leave the union of both lists, which
    neither chose; with it the later save wins whole, as its audit entry says.
    """
    users = list(users)
    Pod.objects.select_for_update().get(pk=pod.pk)
    pod.staff.set(users)
    audit.record(
        "pod.staff",
        f"{pod}: staff {', '.join(u.username for u in users) or 'none'}",
        actor=actor,
        tournament=pod.stage.tournament,
        target=pod,
        data={"staff": [u.username for u in users]},
    )
