"""Score cards as pages and printouts show them: the layout of a card, its status badge,
who entered and checked it, and a player's own cards."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib.auth import get_user_model

from scoring.rules import ONE_STAFF, SECOND_PERSON
from scoring.rules.cards import LABELS, TOTALS, Card, CardState, Status
from scoring.rules.ruleset import round_in_sets
from scoring.services.cards import (
    StageCards,
    load_stage,
)
from tournaments.models import Player, Seat, Stage

STATUS_BADGES = {
    Status.UNCHECKED: "text-bg-light border",
    Status.DIFFERS: "text-bg-danger",
    Status.SECOND_ENTRY: "text-bg-warning",
    Status.TO_CONFIRM: "text-bg-info",
    Status.VERIFIED: "text-bg-success",
}


def card_layout(
    stage: Stage,
    card: Card | None,
    *,
    against: Card | None = None,
    highlighted: bool = False,
    hidden: bool = False,
) -> Layout:
    """`card`'s boxes; those that disagree with `against` (when given) are flagged."""
    if hidden:
        return Layout([], [], False, False, present=False, note=HIDDEN)
    targets = stage.targets
    marks = list(card.rounds) if card is not None and card.rounds else []
    other = list(against.rounds) if against is not None and against.rounds else []
    sets: list[SetRow] = []
    for number in range(1, stage.round_count + 1):
        set_number, target = round_in_sets(targets, number)
        if not sets or sets[-1].number != set_number:
            sets.append(SetRow(set_number, []))
        mark = marks[number - 1] if number <= len(marks) else None
        differs = bool(marks and other) and mark != other[number - 1]
        sets[-1].boxes.append(Box(number, target, mark, differs))
    totals = [
        Total(
            name,
            TOTAL_LABELS[name],
            getattr(card, name) if card is not None else None,
            card is not None
            and against is not None
            and getattr(card, name) != getattr(against, name),
        )
        for name in totals_shown(stage)
    ]
    return Layout(sets, totals, bool(marks), highlighted, card is not None)


def unreported_words(tables: list[tuple[int, int]]) -> list[str]:
    """(round, table) pairs as a line per round: "round 4: tables 1, 2 and 3"."""
    by_round: dict[int, list[int]] = {}
    for round_number, table in tables:
        by_round.setdefault(round_number, []).append(table)
    lines = []
    for round_number, numbers in by_round.items():
        listed = ", ".join(map(str, numbers[:-1])) + " and " if len(numbers) > 1 else ""
        noun = "tables" if len(numbers) > 1 else "table"
        lines.append(f"Round {round_number}: {noun} {listed}{numbers[-1]}")
    return lines


def usernames(cards: StageCards) -> dict[int, str]:
    """Everyone who entered or confirmed a version of these cards: one query."""
    ids = {
        pk
        for entries in cards.versions.values()
        for entry in entries
        for pk in (entry.entered_by_id, entry.confirmed_by_id)
        if pk is not None
    }
    if not ids:
        return {}
    users = get_user_model().objects.filter(pk__in=ids)
    return {user.pk: user.get_username() for user in users}


def with_stage(url: str, stage_query: str, anchor: str = "") -> str:
    return (f"{url}?{urlencode({'stage': stage_query})}" if stage_query else url) + anchor


@dataclass
class StageCard:
    stage: Stage
    pod: int
    state: CardState
    layout: Layout

    @property
    def verified(self) -> bool:
        return self.state.verified

    @property
    def public_label(self) -> str:
        return self.state.public_label


def stage_cards(tournament, player: Player) -> list[StageCard]:
    """The player's card in each stage they were seated in (the player's page shows them too)."""
    last_seat: dict[int, Seat] = {}
    seats = (
        Seat.objects.filter(player=player, round__stage__tournament=tournament)
        .select_related("pod", "round__stage")
        .order_by("round__number")
    )
    for seat in seats:
        last_seat[seat.round.stage_id] = seat
    found = []
    for seat in sorted(last_seat.values(), key=lambda s: s.round.stage.drawn_at):
        stage = seat.round.stage
        cards = load_stage(stage, pod=seat.pod)
        if player.pk not in cards.states:
            continue
        state = cards.states[player.pk]
        found.append(
            StageCard(
                stage,
                seat.pod.number,
                state,
                card_layout(stage, state.official, highlighted=state.verified),
            )
        )
    return found


# What each verification mode asks of staff, in the words the card pages use.
MODE_TITLES = {
    ONE_STAFF: "One staff member checks each card",
    SECOND_PERSON: "A second person confirms each card",
}


MODE_NOTES = {
    ONE_STAFF: "A card that matches the table results is verified as soon as the staff member "
    "enters it; a difference is settled by a resolution with its reason. Nobody needs to "
    "confirm after them.",
    SECOND_PERSON: "Someone other than the person who entered (or resolved) a card must hold "
    "the paper next to it and confirm it.",
}


TOTAL_LABELS = {**{name: label.capitalize() for name, label in LABELS.items()}, "minis": "Minis"}


@dataclass(frozen=True)
class Box:
    number: int
    target: int
    mark: str | None
    differs: bool = False


@dataclass(frozen=True)
class SetRow:
    number: int
    boxes: list[Box]


@dataclass(frozen=True)
class Total:
    name: str
    label: str
    value: int | None
    differs: bool = False


@dataclass(frozen=True)
class Layout:
    """A card as the paper shows it: a row of W/L boxes per set, then the totals."""

    sets: list[SetRow]
    totals: list[Total]
    has_rounds: bool
    highlighted: bool  # verified: the highlighter went over it
    present: bool = True  # False: nothing to show (no record and nothing entered, or hidden)
    note: str = ""  # why nothing is shown


def totals_shown(stage: Stage) -> list[str]:
    return [n for n in TOTALS if n != "snake_eyes" or stage.rules.get("snake_eyes")]


HIDDEN = (
    "Entered once. The numbers stay hidden until a second person has entered the card "
    "from the paper, so the second entry is a real check."
)
