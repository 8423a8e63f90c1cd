"""Where an event stands and what its organiser does next, from plain numbers.

One rule for the dashboard's "what happens next" line and for where an admin lands after
signing in, kept apart from the database so every phase is tested with a handful of values
(tests/engine/test_phases.py). The service (tournaments/services/phase.py) counts the facts;
the page (templates/tournaments/_next_step.html) words the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Phase(StrEnum):
    SETUP = "setup"  # nobody registered and registration closed
    REGISTRATION = "registration"  # registration open
    REGISTERED = "registered"  # registration closed with players, check-in not open yet
    CHECK_IN = "check_in"  # the desk is open, no pods drawn
    DRAWN = "drawn"  # a stage's pods are drawn, no round started
    ROUND_PLAYING = "round_playing"
    ROUND_CLOSED = "round_closed"  # between two rounds
    CARDS = "cards"  # a stage is finished, score cards still to enter
    QUALIFIERS = "qualifiers"  # every qualifying card is in, qualifiers not saved
    SEMI_TO_DRAW = "semi_to_draw"
    FINAL_TO_SEAT = "final_to_seat"
    FINAL = "final"  # the final table is throwing
    PRIZES = "prizes"  # the grand prize is won, prizes not awarded
    PAYING = "paying"
    DONE = "done"


# Admins print until the qualifying stage has been played, then award and pay prizes.
PRINTING_PHASES = frozenset(
    {
        Phase.SETUP,
        Phase.REGISTRATION,
        Phase.REGISTERED,
        Phase.CHECK_IN,
        Phase.DRAWN,
        Phase.ROUND_PLAYING,
        Phase.ROUND_CLOSED,
    }
)


@dataclass(frozen=True)
class StageFacts:
    kind: str  # "qualifying" or "semi_final" (Stage.Kind's values)
    finished: bool
    rounds: int
    rounds_started: int  # open, closed or skipped
    open_round: int | None  # the number of the round being played
    pods: int
    pods_reported: int  # pods whose every table has reported in the open round
    players: int  # players seated in the stage
    cards_entered: int  # players with a current score card


@dataclass(frozen=True)
class EventFacts:
    registration_open: bool
    check_in_open: bool
    registered: int
    checked_in: int
    qualifying: StageFacts | None = None
    qualifiers_saved: bool = False
    semi_final: StageFacts | None = None
    final_seated: bool = False
    final_won: bool = False
    prizes_awarded: int = 0
    prizes_paid: int = 0


@dataclass(frozen=True)
class NextStep:
    """The phase, the numbers its sentence needs, and the page (a URL name) to go to."""

    phase: Phase
    link: str
    stage: str = ""  # the stage a stage phase is about
    round: int | None = None
    done: int = 0
    total: int = 0

    @property
    def admin_page(self) -> str:
        printing = self.phase in PRINTING_PHASES and self.stage in ("", "qualifying")
        return "printouts" if printing else "prizes"


def _stage_step(stage: StageFacts) -> NextStep | None:
    """The step while a stage is drawn or played; None once its rounds are over."""
    if stage.finished:
        return None
    if stage.open_round is not None:
        return NextStep(
            Phase.ROUND_PLAYING,
            "stage-control",
            stage.kind,
            stage.open_round,
            stage.pods_reported,
            stage.pods,
        )
    if stage.rounds_started == 0:
        return NextStep(Phase.DRAWN, "stage-control", stage.kind, 1)
    if stage.rounds_started < stage.rounds:
        return NextStep(Phase.ROUND_CLOSED, "stage-control", stage.kind, stage.rounds_started + 1)
    return None


def _cards_step(stage: StageFacts) -> NextStep | None:
    if stage.cards_entered < stage.players:
        return NextStep(
            Phase.CARDS, "my-pods", stage.kind, done=stage.cards_entered, total=stage.players
        )
    return None


def next_step(facts: EventFacts) -> NextStep:
    """The first thing not done yet, walking the evening in order."""
    qualifying = facts.qualifying
    if qualifying is None:
        if facts.check_in_open:
            return NextStep(
                Phase.CHECK_IN, "stage-control", done=facts.checked_in, total=facts.registered
            )
        if facts.registration_open:
            return NextStep(Phase.REGISTRATION, "player-list", total=facts.registered)
        if facts.registered:
            return NextStep(Phase.REGISTERED, "checkin-desk", total=facts.registered)
        return NextStep(Phase.SETUP, "tournament-edit")
    if step := _stage_step(qualifying) or _cards_step(qualifying):
        return step
    if not facts.qualifiers_saved:
        return NextStep(Phase.QUALIFIERS, "advancement", qualifying.kind)
    semi = facts.semi_final
    if semi is None:
        return NextStep(Phase.SEMI_TO_DRAW, "advancement")
    if step := _stage_step(semi) or _cards_step(semi):
        return step
    if not facts.final_seated:
        return NextStep(Phase.FINAL_TO_SEAT, "advancement")
    if not facts.final_won:
        return NextStep(Phase.FINAL, "final-table")
    return prize_step(facts.prizes_awarded, facts.prizes_paid)


def prize_step(awarded: int, paid: int) -> NextStep:
    """Where the prizes stand, from the shares awarded and those paid: the end of the
    evening's walk, and on its own the winners page's guidance, so the page never asks for
    an award the dashboard already counts as made, or paid."""
    if awarded == 0:
        return NextStep(Phase.PRIZES, "prize-winners")
    if paid < awarded:
        return NextStep(Phase.PAYING, "payouts", done=paid, total=awarded)
    return NextStep(Phase.DONE, "ledger", total=awarded)
