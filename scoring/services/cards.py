"""Score cards of a stage: loaded in a fixed number of queries, entered, confirmed, resolved.

Every page about cards (a pod's cards, a player's own card, standings, CSV) goes through
`load_stage`, which reads the whole stage in five queries and hands the plain values to
`scoring.rules.cards`, so what "verified" means is decided in one place.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from django.utils import timezone

from scoring.rules import ONE_STAFF, SECOND_PERSON
from scoring.rules.cards import (
    Card,
    CardState,
    Entry,
    SeatResult,
    Status,
    TableMarks,
    check_table,
    derive,
    standing_order,
)
from scoring.rules.cards import state as card_state
from scoring.rules.table import pair_of
from tournaments.foundation import audit, changes, idempotency
from tournaments.foundation.errors import UserFacingError
from tournaments.models import Player, Pod, Seat, Stage
from tournaments.permissions import may_act_on_pod

from ..models import CardEntry, RollCredit, TableResult
from . import card_writes as writes

VERIFIED_BY = {
    ONE_STAFF: "in this event one staff member's check is enough.",
    SECOND_PERSON: "two people have already checked it.",
}


def may_verify(user, pod: Pod) -> bool:
    return may_act_on_pod(user, pod, "cards.verify")


def card_of(entry: CardEntry) -> Card:
    return Card(
        tuple(entry.rounds or ()),
        entry.wins,
        entry.losses,
        entry.buncos,
        entry.minis,
        entry.snake_eyes,
    )


def record_json(card: Card) -> dict:
    """A table record as a resolution stores it (`CardEntry.settled_against`)."""
    return {"rounds": list(card.rounds), **card.totals()}


def entry_of(entry: CardEntry) -> Entry:
    against = dict(entry.settled_against or {})
    return Entry(
        entry.version,
        card_of(entry),
        entry.entered_by_id,
        entry.confirmed_by_id,
        entry.kind == CardEntry.Kind.RESOLUTION,
        Card(tuple(against.pop("rounds")), **against) if against else None,
    )


class SeatRow(NamedTuple):
    round_id: int
    round_number: int
    pod_id: int
    pod_number: int
    table: int
    seat: int
    player_id: int | None


class CreditRow(NamedTuple):
    round_id: int
    round_number: int
    pod_id: int
    table: int
    player_id: int
    buncos: int
    minis: int
    snake_eyes: int


@dataclass
class StageCards:
    """Everything about the cards of one stage, keyed by player id."""

    stage: Stage
    players: dict[int, Player]
    pod_of: dict[int, int]  # player id -> pod number (the pod they last sat in)
    records: dict[int, Card | None]
    versions: dict[int, list[CardEntry]]
    states: dict[int, CardState]
    seats: list[SeatRow] = field(default_factory=list)
    credits: list[CreditRow] = field(default_factory=list)
    reported: set[tuple[int, int, int]] = field(default_factory=set)  # (round, pod, table) ids

    def in_pod(self, number: int) -> list[int]:
        return sorted(
            (p for p, n in self.pod_of.items() if n == number),
            key=lambda p: self.players[p].name,
        )

    def official(self, player: int) -> Card | None:
        return self.states[player].official


def load_stage(stage: Stage, *, pod: Pod | None = None) -> StageCards:
    """Everything about the cards of `stage` (or of one pod of it).

    A whole stage read by a page is remembered until the room changes
    (`changes.remembered`: every write of a seat, result, credit, card or player moves the
    tournament's counter in its own transaction), keyed also by the stage's own rules.
    Advancement, the prize winners and the standings read a 1,200-player stage this way, and
    an organiser opens them again and again between saves.
    """
    if pod is not None:
        return read_stage(stage, pod=pod)
    drawn = stage.drawn_at.timestamp() if stage.drawn_at else 0
    key = f"stage-cards:2:{stage.pk}:{drawn}:{stage.round_count}:{stage.verification}"
    cards = changes.remembered(stage.tournament_id, key, lambda: read_stage(stage))
    cards.stage = stage
    return cards


def read_stage(stage: Stage, *, pod: Pod | None = None) -> StageCards:
    """Reads seats, current results, credits, card versions and players: five queries.

    Seats, results and credits come back as plain rows: a full 1,200-player stage has some
    21,600 seats, and building a model instance for each would cost more than the page.
    """
    # Rounds after an early end were never played: their seating is kept but not counted.
    seats_q = Seat.objects.filter(round__stage=stage, round__number__lte=stage.round_count)
    results_q = TableResult.objects.filter(round__stage=stage, is_current=True)
    credits_q = RollCredit.objects.filter(result__round__stage=stage, result__is_current=True)
    entries_q = CardEntry.objects.filter(stage=stage).order_by("player_id", "version")
    if pod is not None:
        seats_q = seats_q.filter(pod=pod)
        results_q = results_q.filter(pod=pod)
        credits_q = credits_q.filter(result__pod=pod)
    seats = [
        SeatRow(*row)
        for row in seats_q.order_by("round__number").values_list(
            "round_id", "round__number", "pod_id", "pod__number", "table", "seat", "player_id"
        )
    ]
    winner_of = {
        (round_id, pod_id, table): winner
        for round_id, pod_id, table, winner in results_q.values_list(
            "round_id", "pod_id", "table", "winner"
        )
    }
    credits = [
        CreditRow(*row)
        for row in credits_q.values_list(
            "result__round_id",
            "result__round__number",
            "result__pod_id",
            "result__table",
            "player_id",
            "buncos",
            "minis",
            "snake_eyes",
        )
    ]
    pod_of = {s.player_id: s.pod_number for s in seats if s.player_id is not None}
    if pod is not None:
        entries_q = entries_q.filter(player_id__in=list(pod_of))
    versions: dict[int, list[CardEntry]] = defaultdict(list)
    for entry in entries_q:
        versions[entry.player_id].append(entry)
    players = {p.pk: p for p in Player.objects.filter(pk__in=set(pod_of) | set(versions))}

    credit_of = {(c.round_id, c.pod_id, c.table, c.player_id): c for c in credits}
    reported_pods = {pod_id for _, pod_id, _ in winner_of}
    per_player: dict[int, list[SeatResult]] = defaultdict(list)
    for seat in seats:
        key = (seat.round_id, seat.pod_id, seat.table)
        if seat.player_id is None or key not in winner_of:
            continue
        credit = credit_of.get((*key, seat.player_id))
        per_player[seat.player_id].append(
            SeatResult(
                seat.round_number,
                seat.player_id,
                won=pair_of(seat.seat - 1) == winner_of[key],
                buncos=credit.buncos if credit else 0,
                minis=credit.minis if credit else 0,
                snake_eyes=credit.snake_eyes if credit else 0,
            )
        )
    pod_ids = {s.player_id: s.pod_id for s in seats if s.player_id is not None}
    records = {
        player: derive(stage.round_count, per_player.get(player, []))
        if pod_ids.get(player) in reported_pods
        else None
        for player in players
    }
    states = {
        player: card_state(
            records[player], [entry_of(e) for e in versions.get(player, [])], stage.verification
        )
        for player in players
    }
    return StageCards(
        stage, players, pod_of, records, dict(versions), states, seats, credits, set(winner_of)
    )


def current_state(stage: Stage, player: Player) -> CardState:
    return load_stage(stage, pod=writes.pod_of_player(stage, player)).states[player.pk]


@changes.announces
def enter_card(
    stage: Stage, player: Player, card: Card, *, actor, base_version: int, idempotency_key=None
) -> CardEntry:
    """Stores what a player's paper card says, as a new version (once per idempotency key)."""
    return writes.once(
        idempotency_key,
        idempotency.Kind.CARD_ENTRY,
        stage,
        player,
        actor,
        lambda pod: _enter(stage, player, pod, card, actor, base_version),
    )


def _enter(
    stage: Stage, player: Player, pod: Pod, card: Card, actor, base_version: int
) -> CardEntry:
    if not may_verify(actor, pod):
        raise UserFacingError(f"You are not assigned to {pod}.")
    writes.check_card(card, stage, player)
    current = writes.lock_current(stage, player)
    writes.check_version(current, base_version)
    entry = writes.save_version(stage, player, current, card, actor)
    state = current_state(stage, player)
    audit.record(
        "card.entered",
        f"{player.name}'s card entered (v{entry.version}): {state.status.replace('_', ' ')}",
        actor=actor,
        tournament=stage.tournament,
        target=entry,
        data={"pod": pod.number, "player": player.pk, "differences": state.differences},
    )
    changes.bump(stage.tournament_id)
    return entry


@changes.announces
def confirm_card(
    stage: Stage, player: Player, *, actor, version: int, idempotency_key=None
) -> CardEntry:
    """Records the second person's check, refused unless the event's rule says this very
    confirmation verifies the card (so a forged form cannot confirm one's own entry)."""
    return writes.once(
        idempotency_key,
        idempotency.Kind.CARD_CONFIRMATION,
        stage,
        player,
        actor,
        lambda pod: _confirm(stage, player, pod, actor, version),
    )


def _confirm(stage: Stage, player: Player, pod: Pod, actor, version: int) -> CardEntry:
    if not may_verify(actor, pod):
        raise UserFacingError(f"You are not assigned to {pod}.")
    current = writes.lock_current(stage, player)
    if current is None:
        raise UserFacingError("Nobody has entered this card yet.")
    writes.check_version(current, version)
    if current.confirmed_by_id is not None:
        raise UserFacingError(f"Already confirmed by {current.confirmed_by.get_username()}.")
    cards = load_stage(stage, pod=pod)
    state = cards.states[player.pk]
    if state.status == Status.DIFFERS:
        raise UserFacingError("The card disagrees with the tables: resolve the difference first.")
    if state.status == Status.SECOND_ENTRY:
        raise UserFacingError(
            "This pod has no table record: enter the card yourself from the paper instead."
        )
    if state.verified:
        raise UserFacingError(f"Already verified: {VERIFIED_BY[stage.verification]}")
    entries = [entry_of(e) for e in cards.versions[player.pk]]
    entries[-1] = replace(entries[-1], confirmed_by=actor.pk)
    if not card_state(cards.records[player.pk], entries, stage.verification).verified:
        raise UserFacingError("You entered this version yourself; someone else must confirm it.")
    current.confirmed_by = actor
    current.confirmed_at = timezone.now()
    current.save(update_fields=["confirmed_by", "confirmed_at"])
    audit.record(
        "card.confirmed",
        f"{player.name}'s card confirmed (v{current.version})",
        actor=actor,
        tournament=stage.tournament,
        target=current,
        data={"pod": pod.number, "player": player.pk},
    )
    changes.bump(stage.tournament_id)
    return current


RESOLVE_CHOICES = {"tables": "the table record", "card": "the paper card"}


@changes.announces
def resolve_card(
    stage: Stage, player: Player, *, choice: str, reason: str, actor, version: int
) -> CardEntry:
    """Settles a flagged difference by saying which version is right, and why."""
    pod = writes.pod_of_player(stage, player)
    if not may_verify(actor, pod):
        raise UserFacingError(f"You are not assigned to {pod}.")
    if choice not in RESOLVE_CHOICES:
        raise UserFacingError("Choose the table record or the paper card.")
    if not reason.strip():
        raise UserFacingError("Say why this version is the right one.", field="reason")
    current = writes.lock_current(stage, player)
    if current is None:
        raise UserFacingError("Nobody has entered this card yet.")
    writes.check_version(current, version)
    cards = load_stage(stage, pod=pod)
    state = cards.states[player.pk]
    if state.status != Status.DIFFERS:
        raise UserFacingError("There is no difference to resolve on this card.")
    record = cards.records[player.pk]
    if choice == "tables" and record is None:
        raise UserFacingError("This pod has no table record; choose one of the entries.")
    chosen = record if choice == "tables" else card_of(current)
    entry = writes.save_version(
        stage,
        player,
        current,
        chosen,
        actor,
        kind=CardEntry.Kind.RESOLUTION,
        reason=reason.strip()[:300],
        settled_against=None if record is None else record_json(record),
    )
    audit.record(
        "card.resolved",
        f"{player.name}'s card: {RESOLVE_CHOICES[choice]} is right — {reason.strip()}",
        actor=actor,
        tournament=stage.tournament,
        target=entry,
        data={
            "pod": pod.number,
            "player": player.pk,
            "choice": choice,
            "differences": state.differences,
        },
    )
    changes.bump(stage.tournament_id)
    return entry


def pod_problems(cards: StageCards) -> dict[int, list[str]]:
    """What does not add up, per pod id: bunco credits to players who were not at the table,
    and tables whose cards show two winning pairs, none, or partners who disagree.

    A card belongs to one player in one stage and can only be entered for a seated player,
    so "more cards than seats" cannot arise; the checks here are the ones data can break.
    """
    problems: dict[int, list[str]] = defaultdict(list)
    seated_at: dict[tuple[int, int, int], list[SeatRow]] = defaultdict(list)
    for seat in cards.seats:
        seated_at[(seat.round_id, seat.pod_id, seat.table)].append(seat)
    for credit in cards.credits:
        at_table = {s.player_id for s in seated_at[(credit.round_id, credit.pod_id, credit.table)]}
        if credit.player_id not in at_table:
            player = cards.players.get(credit.player_id)
            problems[credit.pod_id].append(
                f"Round {credit.round_number}, table {credit.table}: "
                f"{player.name if player else 'a player who has no seat'} is credited with "
                "rolls but did not sit there"
            )
    for (_, pod_id, table), seats in sorted(
        seated_at.items(), key=lambda kv: (kv[1][0].round_number, kv[0][2])
    ):
        marks = {}
        for seat in seats:
            card = cards.official(seat.player_id) if seat.player_id in cards.states else None
            if card is not None and card.rounds:
                marks[seat.player_id] = card.rounds[seat.round_number - 1]
        by_seat = {seat.seat: seat.player_id for seat in seats}
        problems[pod_id] += check_table(
            TableMarks(
                seats[0].round_number,
                table,
                tuple(by_seat.get(n) for n in range(1, 5)),  # type: ignore[arg-type]
                marks,
            )
        )
    return dict(problems)


@dataclass(frozen=True)
class PodVerification:
    pod: Pod
    cards: int
    verified: int
    problems: list[str]
    # (round number, table) seated but without a result, in a pod that reports its tables.
    # Cards may be verified as the night goes (advancement previews the cut from them), so a
    # pod can be verified "so far"; the checks could not look at these tables yet.
    unreported: list[tuple[int, int]] = field(default_factory=list)

    @property
    def verified_pod(self) -> bool:
        return self.cards > 0 and self.verified == self.cards and not self.problems


def unreported_tables(cards: StageCards) -> dict[int, list[tuple[int, int]]]:
    """Per pod id, the (round number, table) with players seated and no result yet, for pods
    that report any table at all: a pod playing on paper alone has no results to miss."""
    reporting = {pod_id for _, pod_id, _ in cards.reported}
    missing: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for seat in cards.seats:
        table = (seat.round_id, seat.pod_id, seat.table)
        if seat.pod_id in reporting and seat.player_id is not None and table not in cards.reported:
            missing[seat.pod_id].add((seat.round_number, seat.table))
    return {pod_id: sorted(tables) for pod_id, tables in missing.items()}


def verify_pods(cards: StageCards, pods: list[Pod]) -> list[PodVerification]:
    problems = pod_problems(cards)
    unreported = unreported_tables(cards)
    report = []
    for pod in pods:
        members = cards.in_pod(pod.number)
        verified = sum(1 for p in members if cards.states[p].verified)
        report.append(
            PodVerification(
                pod,
                len(members),
                verified,
                problems.get(pod.pk, []),
                unreported.get(pod.pk, []),
            )
        )
    return report


@dataclass(frozen=True)
class StandingRow:
    player: Player
    pod: int
    card: Card
    status: str


SORT_KEYS = {
    "wins": lambda r: (*standing_order(r.card), r.player.name),
    "buncos": lambda r: (-r.card.buncos, -r.card.wins, r.player.name),
    "minis": lambda r: (-r.card.minis, -r.card.wins, r.player.name),
    "losses": lambda r: (-r.card.losses, r.player.name),
    "snake_eyes": lambda r: (-r.card.snake_eyes, r.player.name),
    "name": lambda r: (r.player.name,),
    "pod": lambda r: (r.pod, *standing_order(r.card), r.player.name),
}


def standings(
    cards: StageCards, *, sort: str = "wins", pod: int | None = None
) -> list[StandingRow]:
    """Each player's official numbers: the agreed card, else what the tables say so far."""
    rows = []
    for player, number in cards.pod_of.items():
        if pod is not None and number != pod:
            continue
        card = cards.official(player) or Card()
        rows.append(StandingRow(cards.players[player], number, card, cards.states[player].status))
    return sorted(rows, key=SORT_KEYS.get(sort, SORT_KEYS["wins"]))
