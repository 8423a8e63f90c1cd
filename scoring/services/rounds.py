"""Round control: the organiser rings the bell to start a round and closes it when reported."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, FilteredRelation, Q, QuerySet
from django.utils import timezone

from scoring.models import TableResult
from tournaments.foundation import audit, changes, locks
from tournaments.foundation.errors import UserFacingError
from tournaments.models import Round, Seat, Stage


@dataclass(frozen=True)
class PodProgress:
    pod_id: int
    number: int
    tables: int
    reported: int

    @property
    def complete(self) -> bool:
        return self.reported >= self.tables


ROUND_FIELDS = [f.attname for f in Round._meta.concrete_fields]


def join_round(queryset: QuerySet, *, rounds: str, number: int, as_: str) -> QuerySet:
    """Each row with the round numbered `number` among `rounds` (a path to a stage's rounds)
    beside it, as columns `<as_>_<field>`: one statement where a request needs a row and a
    round, and, read after a lock, one snapshot for both (`joined_round` builds the round)."""
    return queryset.annotate(
        **{f"{as_}_row": FilteredRelation(rounds, condition=Q(**{f"{rounds}__number": number}))},
        **{f"{as_}_{name}": F(f"{as_}_row__{name}") for name in ROUND_FIELDS},
    )


def joined_round(row, as_: str) -> Round | None:
    """The round `join_round` put beside `row`; None when the stage has no such round."""
    if getattr(row, f"{as_}_id") is None:
        return None
    values = [getattr(row, f"{as_}_{name}") for name in ROUND_FIELDS]
    return Round.from_db(Round.objects.db, ROUND_FIELDS, values)


def current_round(stage: Stage) -> Round | None:
    """The open round, else the last closed one, else round 1."""
    return current_of(list(stage.rounds.order_by("number")))


def still_to_finish(stage: Stage) -> Round | None:
    """The first of the stage's rounds still being played or still to play, None once the
    last has closed (or the stage ended early). Players total their cards after it."""
    return (
        stage.rounds.filter(
            number__lte=stage.round_count, status__in=[Round.Status.PENDING, Round.Status.OPEN]
        )
        .order_by("number")
        .first()
    )


def current_of(rounds: list[Round]) -> Round | None:
    """`current_round` among a stage's rounds already read, in number order."""
    open_ = [r for r in rounds if r.status == Round.Status.OPEN]
    if open_:
        return open_[0]
    closed = [r for r in rounds if r.status == Round.Status.CLOSED]
    return closed[-1] if closed else (rounds[0] if rounds else None)


def first_pending_of(rounds: list[Round]) -> Round | None:
    """The first round not started among a stage's rounds already read, in number order:
    where players can still join or leave."""
    return next((r for r in rounds if r.status == Round.Status.PENDING), None)


def progress(round_: Round) -> list[PodProgress]:
    """Tables reported per pod, in two queries whatever the size of the event."""
    reported = dict(
        TableResult.objects.filter(round=round_, is_current=True)
        .values("pod_id")
        .annotate(n=Count("id"))
        .values_list("pod_id", "n")
    )
    return [
        PodProgress(pod.pk, pod.number, pod.tables, reported.get(pod.pk, 0))
        for pod in round_.stage.pods.order_by("number")
    ]


@changes.announces
def start_next_round(stage: Stage, *, actor) -> Round:
    """Rings the bell. Every pod is locked first (locks.py): a correction re-seating the
    round is either committed before the seats are checked, or waits and finds the round
    open, so the seats the round opens with are the seats it is played with."""
    stage = locks.stage_and_pods(stage.pk)
    rounds = list(stage.rounds.select_for_update().order_by("number"))
    if any(r.status == Round.Status.OPEN for r in rounds):
        raise UserFacingError("A round is still being played; close it first.")
    pending = [r for r in rounds if r.status == Round.Status.PENDING]
    if not pending:
        raise UserFacingError("Every round of this stage has been played.")
    round_ = pending[0]
    seated = set(Seat.objects.filter(round=round_).values_list("pod_id", flat=True).distinct())
    missing = [p.number for p in stage.pods.order_by("number") if p.pk not in seated]
    if missing:
        raise UserFacingError(
            f"Pods {', '.join(map(str, missing))} have no seating for round {round_.number} yet."
        )
    round_.status = Round.Status.OPEN
    round_.opened_at = timezone.now()
    round_.opened_by = actor
    round_.save(update_fields=["status", "opened_at", "opened_by"])
    if stage.status == Stage.Status.DRAWN:
        stage.status = Stage.Status.PLAYING
        stage.save(update_fields=["status"])
    audit.record(
        "round.started",
        f"{stage.get_kind_display()} round {round_.number} started ({round_.target}s)",
        actor=actor,
        tournament=stage.tournament,
        target=round_,
    )
    changes.bump(stage.tournament_id)
    return round_


@changes.announces
def close_round(round_: Round, *, actor) -> Round:
    # The stage's pods before the round (locks.py): a correction being saved is either in
    # before the tables are counted, or waits and then sees the round closed (and must give
    # a reason). Locking the round alone would let a correction read "open" and commit after
    # the close.
    stage = locks.stage_and_pods(round_.stage_id)
    round_ = Round.objects.select_for_update().get(pk=round_.pk)
    round_.stage = stage
    if round_.status != Round.Status.OPEN:
        raise UserFacingError(f"Round {round_.number} is not being played.")
    waiting = [p for p in progress(round_) if not p.complete]
    if waiting:
        listed = ", ".join(f"pod {p.number} ({p.reported}/{p.tables})" for p in waiting)
        raise UserFacingError(f"Tables still to report: {listed}.")
    round_.status = Round.Status.CLOSED
    round_.closed_at = timezone.now()
    round_.closed_by = actor
    round_.save(update_fields=["status", "closed_at", "closed_by"])
    if not stage.rounds.exclude(status=Round.Status.CLOSED).exists():
        stage.status = Stage.Status.FINISHED
        stage.save(update_fields=["status"])
    audit.record(
        "round.closed",
        f"{stage.get_kind_display()} round {round_.number} closed",
        actor=actor,
        tournament=stage.tournament,
        target=round_,
    )
    changes.bump(stage.tournament_id)
    return round_
