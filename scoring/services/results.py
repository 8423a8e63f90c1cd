"""Recording a table's result: validated, versioned, and safe when two staff save at once.

Every save names the version it corrects (`base_version`, 0 for a first entry). Under the
pod's row lock the current version must still be that one; otherwise someone else saved in
between and the second person is shown their result instead of silently replacing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import IntegrityError
from django.db.models import F
from django.utils.timezone import localtime

from scoring.services.rounds import join_round, joined_round
from scoring.services.seating import refresh_next_round
from tournaments.foundation import audit, changes, idempotency
from tournaments.foundation.errors import UserFacingError, VersionConflict
from tournaments.models import Pod, Round, Seat
from tournaments.permissions import may_act_on_pod

from ..models import RollCredit, TableResult
from ..rules.ruleset import RuleSet
from ..rules.table import PAIR_LABELS, leading_pair, least_points, pair_of, pair_seats

MAX_COUNT = 30
MAX_POINTS = 2000


class ResultConflict(VersionConflict):
    """Someone saved this table after the form was opened."""

    def __init__(self, message: str, current: TableResult) -> None:
        super().__init__(message, version=current.version)
        self.current = current


@dataclass(frozen=True)
class Tally:
    buncos: int = 0
    minis: int = 0
    snake_eyes: int = 0

    def __bool__(self) -> bool:
        return bool(self.buncos or self.minis or self.snake_eyes)


@dataclass(frozen=True)
class ResultEntry:
    """What staff report for one table: seats are numbered 1 to 4 as on the tally sheet."""

    winner: int
    points: tuple[int | None, int | None] = (None, None)
    tie: bool = False
    tie_break: dict = field(default_factory=dict)
    tallies: dict[int, Tally] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class Recorded:
    result: TableResult
    next_round: str  # what refresh_next_round said: seated, unchanged, waiting, frozen, last
    seats: list[Seat]  # the table's, with their players
    round_is_current: bool  # the stage's current round (`current_round`), as read under the lock
    replayed: bool = False  # the idempotency key was written before: this is that save


def may_record(user, pod: Pod) -> bool:
    return may_act_on_pod(user, pod, "results.enter")


def _check_entry(entry: ResultEntry, seats: dict[int, Seat], rules: dict) -> None:
    if entry.winner not in (0, 1):
        raise UserFacingError(f"Choose the winning pair: {' or '.join(PAIR_LABELS).lower()}.")
    p13, p24 = entry.points
    if (p13 is None) != (p24 is None):
        raise UserFacingError("Give both teams' points, or neither.")
    if entry.tie and p13 is None:
        raise UserFacingError("A tie needs both teams' (level) points.")
    if p13 is not None:
        if not (0 <= p13 <= MAX_POINTS and 0 <= p24 <= MAX_POINTS):
            raise UserFacingError(f"Points must be between 0 and {MAX_POINTS}.")
        leader = leading_pair((p13, p24))
        if leader is None and not entry.tie:
            raise UserFacingError(
                f"The points are level ({p13}–{p24}): mark it a tie and give the roll-off winner."
            )
        if leader is not None:
            if entry.tie:
                raise UserFacingError("A tie needs level points.")
            if leader != entry.winner:
                raise UserFacingError(
                    f"The points ({p13}–{p24}) say seats {pair_seats(leader)} "
                    "won, not the pair you picked. Check the winner or the points."
                )
    for seat_no, tally in entry.tallies.items():
        if seat_no not in seats:
            raise UserFacingError(f"There is no seat {seat_no} at this table.")
        if seats[seat_no].player_id is None and tally:
            raise UserFacingError(
                f"Seat {seat_no} is a ghost: credit its rolls to its partner, who rolled them."
            )
        for name in ("buncos", "minis", "snake_eyes"):
            value = getattr(tally, name)
            if not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
                raise UserFacingError(f"Counts must be whole numbers from 0 to {MAX_COUNT}.")
        if tally.snake_eyes and not rules.get("snake_eyes"):
            raise UserFacingError("These rules have no snake eyes.")
    if p13 is not None:
        _check_points_cover_rolls(entry, RuleSet.from_dict(rules))


def _check_points_cover_rolls(entry: ResultEntry, rules: RuleSet) -> None:
    for pair, points in enumerate(entry.points):
        credited = [t for seat_no, t in entry.tallies.items() if pair_of(seat_no - 1) == pair]
        fewest = least_points(
            sum(t.buncos for t in credited),
            sum(t.minis for t in credited),
            sum(t.snake_eyes for t in credited),
            rules,
        )
        if fewest is not None and points < fewest:
            raise UserFacingError(
                f"Seats {pair_seats(pair)} have {points} points, but their buncos and mini "
                f"buncos alone score {fewest}: check the points or the counts."
            )


def current_result(round_: Round, pod: Pod, table: int) -> TableResult | None:
    return TableResult.objects.filter(round=round_, pod=pod, table=table, is_current=True).first()


@changes.announces
def record_result(
    *,
    round_: Round,
    pod: Pod,
    table: int,
    entry: ResultEntry,
    actor,
    base_version: int,
    idempotency_key=None,
) -> Recorded:
    """Saves the table's result as version `base_version + 1`; a key sent before answers
    with the save it made (`replayed`) and saves nothing."""
    return idempotency.once(
        idempotency_key,
        kind=idempotency.Kind.RESULT,
        actor=actor,
        tournament_id=pod.stage.tournament_id,
        pod_id=pod.pk,
        subject=f"round {round_.pk} pod {pod.pk} table {table}",
        write=lambda: _record(round_, pod, table, entry, actor, base_version),
        remember=lambda done: {
            "result": done.result.pk,
            "next_round": done.next_round,
            "round_is_current": done.round_is_current,
        },
        replay=lambda first: Recorded(
            TableResult.objects.select_related("entered_by").get(pk=first["result"]),
            first["next_round"],
            list(Seat.objects.filter(round=round_, pod=pod, table=table).select_related("player")),
            first.get("round_is_current", True),
            replayed=True,
        ),
    )


def _record(
    round_: Round, pod: Pod, table: int, entry: ResultEntry, actor, base_version: int
) -> Recorded:
    if pod.stage_id != round_.stage_id:
        raise UserFacingError("That pod does not play in this round's stage.")
    if not may_record(actor, pod):
        raise UserFacingError(f"You are not assigned to {pod}.")
    if not 1 <= table <= pod.tables:
        raise UserFacingError(f"{pod} has tables 1 to {pod.tables}.")
    # The pod's lock (locks.py), taken by counting this change on it: the save changes this
    # pod's page alone (`changes.pod_version`).
    if not Pod.objects.filter(pk=pod.pk).update(own_changes=F("own_changes") + 1):
        raise Pod.DoesNotExist(f"{pod} is gone.")
    # Under the lock (each statement after it sees what the lock waited for), the table's
    # seats with this round's status now and the next round beside them, in one statement;
    # then every current result of the pod in this round (this table's, and whether the pod is
    # complete). A table with no seats reads the rounds on their own, to say why.
    table_seats = list(
        join_round(
            Seat.objects.filter(round_id=round_.pk, pod=pod, table=table),
            rounds="round__stage__rounds",
            number=round_.number + 1,
            as_="next_round",
        )
        .select_related("player", "round")
        .order_by("seat")
    )
    if table_seats:
        round_, next_round = table_seats[0].round, joined_round(table_seats[0], "next_round")
        for seat in table_seats:
            seat.round = round_
    else:
        rounds = {
            r.number: r
            for r in Round.objects.filter(
                stage_id=round_.stage_id, number__in=(round_.number, round_.number + 1)
            )
        }
        round_, next_round = rounds[round_.number], rounds.get(round_.number + 1)
    reported = {
        r.table: r
        for r in TableResult.objects.filter(round=round_, pod=pod, is_current=True).select_related(
            "entered_by"
        )
    }
    current = reported.get(table)
    if round_.status == Round.Status.PENDING:
        raise UserFacingError(f"Round {round_.number} has not started.")
    if round_.status == Round.Status.NOT_PLAYED:
        raise UserFacingError(f"Round {round_.number} was not played: the stage ended early.")
    if current is None and round_.status != Round.Status.OPEN:
        raise UserFacingError(f"Round {round_.number} is closed; ask the organiser to reopen it.")
    if (current.version if current else 0) != base_version:
        if current is None:
            raise VersionConflict("This result was changed meanwhile; reload the page.", version=0)
        who = current.entered_by.get_username() if current.entered_by else "someone"
        raise ResultConflict(
            f"{who} saved table {table} at {localtime(current.entered_at):%H:%M:%S} while you "
            "were entering it. Their result is shown; correct it if yours is right.",
            current,
        )
    if current is not None and round_.status == Round.Status.CLOSED and not entry.reason.strip():
        raise UserFacingError("Say why a closed round's result is corrected.")
    seats = {s.seat: s for s in table_seats}
    if len(seats) != 4:
        raise UserFacingError(f"Table {table} of {pod} has no seating for this round.")
    _check_entry(entry, seats, pod.stage.rules)

    if current is not None:
        TableResult.objects.filter(pk=current.pk).update(is_current=False)
    try:  # no savepoint of its own: a failed insert rolls the whole save back
        result = TableResult.objects.create(
            round=round_,
            pod=pod,
            table=table,
            version=base_version + 1,
            winner=entry.winner,
            points_13=entry.points[0],
            points_24=entry.points[1],
            tie=entry.tie,
            tie_break=entry.tie_break,
            reason=entry.reason.strip()[:300],
            entered_by=actor,
            supersedes=current,
        )
    except IntegrityError as exc:  # a writer that did not take the lock got there first
        raise UserFacingError("Someone saved this table at the same moment; reload.") from exc
    RollCredit.objects.bulk_create(
        RollCredit(
            result=result,
            player_id=seats[seat_no].player_id,
            buncos=tally.buncos,
            minis=tally.minis,
            snake_eyes=tally.snake_eyes,
        )
        for seat_no, tally in sorted(entry.tallies.items())
        if tally
    )
    what = "corrected" if current else "recorded"
    audit.record(
        f"result.{what}",
        f"Round {round_.number}, {pod}, table {table}: seats "
        f"{pair_seats(entry.winner)} won (v{result.version})"
        + (f" — {entry.reason.strip()}" if entry.reason.strip() else ""),
        actor=actor,
        tournament=pod.stage.tournament,
        target=result,
        data={
            "pod": pod.number,
            "round": round_.number,
            "table": table,
            "version": result.version,
            "winner": entry.winner,
            "points": list(entry.points),
        },
    )
    next_state = "unchanged"
    if current is None or current.winner != entry.winner:
        winners = {t: r.winner for t, r in reported.items()} | {table: entry.winner}
        next_state = refresh_next_round(pod, round_, next_round, winners)
    # The open round is the current one; a closed round is while the next has not started.
    is_current = round_.status == Round.Status.OPEN or (
        next_round is None or next_round.status == Round.Status.PENDING
    )
    changes.bump(pod.stage.tournament_id, pods_only=True)
    return Recorded(result, next_state, table_seats, is_current)
