"""Score cards as plain values: what the tables say, what the paper says, and who checked.

No Django here. A card's *state* follows from four things only: the record derived from
the table results (if the pod reported any), the versions staff entered, who entered and
confirmed each, and the event's verification mode. Keeping that a pure function means the pod
page, the standings, the rehearsal and the tests all agree on what "verified" means.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from scoring.rules.ruleset import ONE_STAFF, SECOND_PERSON

TOTALS = ("wins", "losses", "buncos", "minis", "snake_eyes")
LABELS = {
    "wins": "wins",
    "losses": "losses",
    "buncos": "buncos",
    "minis": "mini buncos",
    "snake_eyes": "snake eyes",
}


@dataclass(frozen=True)
class Card:
    """One player's card for a stage. `rounds` holds "W", "L" or None (not played) per round;
    an empty tuple means the card carries totals only."""

    rounds: tuple[str | None, ...] = ()
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    minis: int = 0
    snake_eyes: int = 0

    def totals(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in TOTALS}


@dataclass(frozen=True)
class Entry:
    """One stored version of a card: a paper entry or a resolution."""

    version: int
    card: Card
    entered_by: int
    confirmed_by: int | None = None
    resolution: bool = False
    against: Card | None = None  # a resolution: the table record it was settled against


class Status:
    UNCHECKED = "unchecked"  # nobody has entered the paper card yet
    DIFFERS = "differs"  # the paper disagrees with the record: resolve it
    SECOND_ENTRY = "second_entry"  # no table record: a second person must enter it too
    TO_CONFIRM = "to_confirm"  # agrees; a second person must confirm
    VERIFIED = "verified"


# Each status in words, next to the rule that decides it: the card pages, standings, its CSV
# and the printed results all show these.
STATUS_LABELS = {
    Status.UNCHECKED: "not entered",
    Status.DIFFERS: "differs",
    Status.SECOND_ENTRY: "needs a second person to enter it",
    Status.TO_CONFIRM: "needs a second person to confirm",
    Status.VERIFIED: "verified",
}
# What players and the public see of a card (the standings, a player's own page): only
# whether its numbers are final, never who has still to enter or confirm it.
PUBLIC_LABELS = {True: "verified", False: "not verified yet"}
TABLES_CHANGED = "The tables changed after this card was settled"


@dataclass(frozen=True)
class CardState:
    status: str
    official: Card | None  # the numbers standings use
    differences: list[str] = field(default_factory=list)
    checked_by: int | None = None  # verified: who made the check that counts

    @property
    def verified(self) -> bool:
        return self.status == Status.VERIFIED

    @property
    def label(self) -> str:
        return STATUS_LABELS[self.status]

    @property
    def public_label(self) -> str:
        return PUBLIC_LABELS[self.verified]


def differences(paper: Card, reference: Card, *, against: str = "tables") -> list[str]:
    """Every way `paper` disagrees with `reference`, in words staff can act on."""
    found = []
    if paper.rounds and reference.rounds:
        for number, (mine, theirs) in enumerate(
            zip(paper.rounds, reference.rounds, strict=False), start=1
        ):
            if mine != theirs:
                found.append(
                    f"Round {number}: card says {mine or 'nothing'}, {against} say "
                    f"{theirs or 'not played'}"
                )
    for name in TOTALS:
        mine, theirs = getattr(paper, name), getattr(reference, name)
        if mine != theirs:
            found.append(f"{LABELS[name].capitalize()}: card {mine}, {against} {theirs}")
    return found


def state(record: Card | None, entries: Sequence[Entry], mode: str = SECOND_PERSON) -> CardState:
    """Where a card stands, from the table record, its stored versions (oldest first) and
    the event's verification mode. The one place that decides "verified".

    Both modes: a paper card that disagrees with the table record is flagged until a
    resolution (with its reason) says which is right; without a record (a pod that played on
    paper only), entries by different people that disagree are flagged the same way. A
    resolution holds only for the record it was made against: a table corrected afterwards
    that disagrees with the settled card flags it again.

    - `SECOND_PERSON`: someone other than the person who entered the current version (or
      resolved it) must confirm it; without a record, two different people must enter the card
      and agree.
    - `ONE_STAFF`: the staff member's own check is the verification (the Mesquite sheet's
      "assigned staff will highlight to verify"): a card that matches the tables, a resolution,
      or, without a record, the card as that staff member entered it.

    The default is the stricter mode, so a caller that forgets the mode never loosens a check.
    """
    if not entries:
        return CardState(Status.UNCHECKED, record)
    current = entries[-1]
    one_staff = mode == ONE_STAFF
    confirmer = current.confirmed_by if current.confirmed_by != current.entered_by else None
    checker = current.entered_by if one_staff else confirmer
    if current.resolution:
        if record is not None and current.against is not None and current.against != record:
            found = differences(current.card, record)
            if found:  # the tables were corrected since, and now disagree with the card
                return CardState(Status.DIFFERS, record, [TABLES_CHANGED, *found])
        if checker is None:
            return CardState(Status.TO_CONFIRM, current.card)
        return CardState(Status.VERIFIED, current.card, checked_by=checker)
    if record is not None:
        found = differences(current.card, record)
        if found:
            return CardState(Status.DIFFERS, record, found)
        if checker is None:
            return CardState(Status.TO_CONFIRM, record)
        return CardState(Status.VERIFIED, record, checked_by=checker)
    others = [e for e in entries[:-1] if e.entered_by != current.entered_by]
    if others:
        found = differences(current.card, others[-1].card, against="the other entry")
        if found:
            return CardState(Status.DIFFERS, current.card, found)
    if one_staff:
        return CardState(Status.VERIFIED, current.card, checked_by=current.entered_by)
    if not others:
        return CardState(Status.SECOND_ENTRY, current.card)
    return CardState(Status.VERIFIED, current.card, checked_by=others[-1].entered_by)


@dataclass(frozen=True)
class SeatResult:
    """A player's part in one table result, as the derivation needs it."""

    round_number: int
    player: int
    won: bool
    buncos: int = 0
    minis: int = 0
    snake_eyes: int = 0


def derive(rounds: int, results: Sequence[SeatResult]) -> Card:
    """A player's card from their table results; rounds without a result stay None."""
    marks: list[str | None] = [None] * rounds
    totals = dict.fromkeys(TOTALS, 0)
    for r in results:
        marks[r.round_number - 1] = "W" if r.won else "L"
        totals["wins" if r.won else "losses"] += 1
        totals["buncos"] += r.buncos
        totals["minis"] += r.minis
        totals["snake_eyes"] += r.snake_eyes
    return Card(tuple(marks), **totals)


def unplayed_claims(card: Card, played: Collection[int]) -> str | None:
    """Why `card` cannot be right about the rounds its player has sat in so far (`played`,
    round numbers), or None. Cards are often entered before the stage is over, so rounds to
    come may stay empty; but a mark on a round the player has not played, or more wins and
    losses than rounds played, is a misread card, whatever a resolution later says."""
    for number, mark in enumerate(card.rounds, start=1):
        if mark and number not in played:
            return f"Round {number} is marked {mark}, but the player has not played it."
    if card.wins + card.losses > len(played):
        return (
            f"The card counts {card.wins} wins and {card.losses} losses, but the player has "
            f"played {len(played)} round{'' if len(played) == 1 else 's'} so far."
        )
    return None


def standing_order(card: Card) -> tuple[int, int]:
    """Standings list players by wins, then buncos, most first. An order to read them in,
    not a cut: who goes on is `tournaments.rules.advancement`'s, where players level on wins
    roll off whatever their buncos."""
    return (-card.wins, -card.buncos)


@dataclass(frozen=True)
class TableMarks:
    """What the cards of one table in one round say, for the pod checks."""

    round_number: int
    table: int
    seats: tuple[int | None, int | None, int | None, int | None]  # player ids, None = ghost
    marks: dict[int, str | None]  # player id -> "W"/"L"/None from their card


def check_table(t: TableMarks) -> list[str]:
    """One winning pair and one losing pair per table, partners agreeing (ghosts follow
    their partner, who rolls for them)."""
    problems = []
    pair_marks = []
    for pair in ((0, 2), (1, 3)):
        marks = {t.marks.get(t.seats[s]) for s in pair if t.seats[s] is not None}
        marks.discard(None)
        if len(marks) > 1:
            problems.append(
                f"Round {t.round_number}, table {t.table}: partners in seats "
                f"{pair[0] + 1} & {pair[1] + 1} disagree on who won"
            )
        pair_marks.append(marks.pop() if len(marks) == 1 else None)
    if pair_marks[0] is not None and pair_marks[0] == pair_marks[1]:
        what = "two winning pairs" if pair_marks[0] == "W" else "no winning pair"
        problems.append(f"Round {t.round_number}, table {t.table}: {what}")
    return problems
