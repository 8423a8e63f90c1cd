"""A whole event played through the same services the pages call, with the engine's dice.

Used by `manage.py rehearse`, by `make demo` and by the load test. The dice follow the
simulator exactly (`tournaments.rules.simulate`): the stage is drawn with the rehearsal's seed
and each pod rolls from the pod seed the simulator would give it, so the standings a
rehearsal produces can be checked against `simulate --seed` for the same seed.

That qualifying draw is the one draw a practice event is given (the list of draws says so).
Every other draw comes from the event's draw secret like at a real event; the rehearsal
makes that secret from its seed, so the same seed replays the whole evening.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import transaction

from scoring.models import TableResult
from scoring.rules import SECOND_PERSON, play_pod_round
from scoring.rules.seating import draw_pods
from scoring.services import cards as card_service
from scoring.services import rounds
from scoring.services.results import ResultEntry, Tally, current_result, record_result
from scoring.services.seating import seating_by_pod

from ..foundation.text import amount
from ..models import (
    FinalTable,
    Player,
    Pod,
    Printout,
    Qualifier,
    Stage,
    Tournament,
)
from . import advancement, final_table, rehearsal_cash, stages
from . import ledger as ledger_service
from . import payouts as payout_service
from . import printouts as printout_service
from . import prizes as prize_service
from .rehearsal_event import create_event, purge_tournament, staff_accounts

PODS_PER_STAFF = 2
CORRECTION_EVERY = 9  # every ninth table is first entered with the wrong winner, then fixed


CARD_MISTAKE_EVERY = 13  # every thirteenth paper card is miscounted, then resolved


@dataclass
class StageReport:
    rounds: int = 0
    table_results: int = 0
    corrections: int = 0
    result_versions: int = 0
    cards_verified: int = 0
    discrepancies_resolved: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class Rehearsal:
    tournament: Tournament
    players: int
    seed: int
    stages: dict[str, StageReport] = field(default_factory=dict)
    prizes: dict[str, Any] = field(default_factory=dict)
    cashbook: dict[str, Any] = field(default_factory=dict)
    printouts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        qualifying = self.tournament.stages.filter(kind=Stage.Kind.QUALIFYING).first()
        pods = qualifying.pods.count() if qualifying else 0
        ghosts = (
            qualifying.rounds.get(number=1).seats.filter(ghost__isnull=False).count()
            if qualifying
            else 0
        )
        return {
            "tournament": self.tournament.slug,
            "seed": self.seed,
            "players": self.players,
            "pods": pods,
            "ghosts": ghosts,
            "registration": self.registration(),
            "stages": {kind: report.as_dict() for kind, report in self.stages.items()},
            **self.finals(),
            "prizes": self.prizes,
            "cashbook": self.cashbook,
            "printouts": self.printouts,
        }

    def registration(self) -> dict[str, int]:
        """What the crowd did before the night: parties, the waitlist, cancellations."""
        players = self.tournament.players
        return {
            "parties": self.tournament.parties.count(),
            "promoted_from_waitlist": players.filter(promoted_at__isnull=False).count(),
            "waiting": players.filter(status=Player.Status.WAITLISTED).count(),
            "cancelled": players.filter(status=Player.Status.WITHDRAWN).count(),
        }

    def finals(self) -> dict[str, Any]:
        """Who advanced and why, the final table with each seat's reason, and the winner."""
        names = dict(self.tournament.players.values_list("pk", "name"))
        qualifiers = Qualifier.objects.filter(
            from_stage__tournament=self.tournament, from_stage__kind=Stage.Kind.QUALIFYING
        )
        final = FinalTable.objects.filter(tournament=self.tournament).first()
        return {
            "semifinalists": [
                {"player": names[q.player_id], "pod": q.group, "reason": q.category_label}
                for q in qualifiers
            ],
            "finalists": [
                {"seat": s.seat, "player": names[s.player_id], "reason": s.reason, "path": s.path}
                for s in (final.seats.all() if final else [])
            ],
            "grand_prize_winner": names.get(final.winner_id) if final else None,
        }


def pod_seeds(n_players: int, seed: int) -> list[int]:
    """The per-pod dice seeds `simulate_stage` derives from its master seed."""
    master = random.Random(seed)
    pods = draw_pods(list(range(1, n_players + 1)), master)
    return [master.getrandbits(64) for _ in pods]


def play_round(
    stage: Stage,
    round_number: int,
    *,
    organiser,
    seeds: dict[int, random.Random],
    report: StageReport,
) -> None:
    """Rings the bell, records every table like staff would (with a few fixed mistakes)."""
    round_ = rounds.start_next_round(stage, actor=organiser)
    assert round_.number == round_number
    rules = stage.ruleset()
    by_pod = seating_by_pod(round_)
    pods = list(stage.pods.prefetch_related("staff").order_by("number"))
    counter = 0
    for pod in pods:
        tables = by_pod[pod.pk]
        ghosts = [[seat.player_id is None for seat in table] for table in tables]
        played = play_pod_round(round_.target, rules, seeds[pod.number], pod.tables, ghosts)
        recorder = pod_staff(pod, organiser)[0]
        for i, outcome in enumerate(played.tables):
            counter += 1
            entry = ResultEntry(
                winner=played.winners[i],
                points=outcome.pair_points,
                tie=outcome.winner is None,
                tie_break=_tie_break_record(played.tie_breaks[i]),
                tallies={
                    s + 1: Tally(outcome.buncos[s], outcome.minis[s], outcome.snake_eyes[s])
                    for s in range(4)
                    if not ghosts[i][s]
                },
            )
            if counter % CORRECTION_EVERY == 0:
                # A mis-tap: the winner alone, the wrong pair; corrected at once below.
                wrong = ResultEntry(winner=1 - played.winners[i])
                record_result(
                    round_=round_, pod=pod, table=i + 1, entry=wrong, actor=recorder, base_version=0
                )
                report.corrections += 1
                entry = replace(entry, reason="Mis-tapped the winner")
                base = current_result(round_, pod, i + 1).version
            else:
                base = 0
            record_result(
                round_=round_, pod=pod, table=i + 1, entry=entry, actor=recorder, base_version=base
            )
            report.table_results += 1
    rounds.close_round(round_, actor=organiser)
    report.rounds += 1


def _tie_break_record(tie_break) -> dict:
    if tie_break is None:
        return {}
    return {
        "method": tie_break.method,
        "winner": tie_break.winner,
        "rolls": [{"seat": r.seat + 1, "dice": list(r.dice)} for r in tie_break.rolls],
    }


def pod_staff(pod: Pod, organiser) -> tuple:
    """The pod's recorder and its checker (the organiser when the pod has one staff)."""
    team = sorted(pod.staff.all(), key=lambda u: u.username) or [organiser]
    return team[0], team[1] if len(team) > 1 else organiser


def verify_cards(stage: Stage, *, organiser, report: StageReport) -> None:
    """Enters every paper card as the pod's staff would, a few with miscounted tallies;
    another staff member resolves each difference in favour of the tables. Where the preset
    wants a second person, someone other than the last to touch the card confirms it."""
    pods = list(stage.pods.prefetch_related("staff").order_by("number"))
    cards = card_service.load_stage(stage)
    second_person = stage.verification == SECOND_PERSON
    counter = 0
    for pod in pods:
        enterer, checker = pod_staff(pod, organiser)
        for player_id in cards.in_pod(pod.number):
            counter += 1
            player = cards.players[player_id]
            record = cards.records[player_id]
            paper = record
            if counter % CARD_MISTAKE_EVERY == 0:
                paper = replace(record, buncos=record.buncos + 1)
            entry = card_service.enter_card(stage, player, paper, actor=enterer, base_version=0)
            confirmer = checker
            if paper != record:
                entry = card_service.resolve_card(
                    stage,
                    player,
                    choice="tables",
                    reason="Tally marks miscounted on the paper card",
                    actor=checker,
                    version=entry.version,
                )
                report.discrepancies_resolved += 1
                confirmer = enterer
            if second_person:
                card_service.confirm_card(stage, player, actor=confirmer, version=entry.version)
    report.cards_verified = sum(
        1 for state in card_service.load_stage(stage).states.values() if state.verified
    )


def staff_pods(stage: Stage, staff: list, organiser) -> None:
    """Each pod has its own staff member and, where there is one, a second: the one who
    resolves differences and, where the preset wants it, confirms the cards."""
    for pod in stage.pods.order_by("number"):
        first = (pod.number - 1) // PODS_PER_STAFF % len(staff)
        team = {staff[first], staff[(first + 1) % len(staff)]}
        stages.assign_staff(pod, sorted(team, key=lambda u: u.username), actor=organiser)


def play_stage(
    stage: Stage, seeds: dict[int, random.Random], *, organiser, last: int
) -> StageReport:
    report = StageReport()
    for number in range(1, last + 1):
        play_round(stage, number, organiser=organiser, seeds=seeds, report=report)
    report.result_versions = TableResult.objects.filter(pod__stage=stage).count()
    if last == stage.round_count:
        verify_cards(stage, organiser=organiser, report=report)
    return report


def derived_seed(seed: int, *parts: object) -> int:
    """A seed for the rehearsal's own dice (a semi-final pod's, the judges' picks), all from
    its one seed; the site's draws come from the event's draw secret."""
    return random.Random(":".join(map(str, (seed, *parts)))).getrandbits(62)


def settle_roll_offs(stage: Stage, *, organiser) -> int:
    """Rolls every pending roll-off on screen, one category at a time, as staff would."""
    rolled = 0
    while pending := [(p, t) for p in advancement.plan_stage(stage) for t in p.pending]:
        for plan, tie in pending:
            advancement.record_roll_off(stage, plan.group, tie.category_key, actor=organiser)
            rolled += 1
    return rolled


def play_finals(tournament: Tournament, qualifying: Stage, *, organiser, staff, seed: int):
    """Qualifiers, the semi-final (played and verified like the qualifying stage), the final."""
    settle_roll_offs(qualifying, organiser=organiser)
    advancement.save_qualifiers(qualifying, actor=organiser)
    semi = advancement.draw_semi_final(tournament, actor=organiser)
    staff_pods(semi, staff, organiser)
    seeds = {
        pod.number: random.Random(derived_seed(seed, "semi", pod.number)) for pod in semi.pods.all()
    }
    report = play_stage(semi, seeds, organiser=organiser, last=semi.round_count)
    settle_roll_offs(semi, organiser=organiser)
    final = final_table.seat_final(tournament, actor=organiser)
    final_table.roll_for_order(final, actor=organiser)
    while final.winner_id is None:
        final_table.throw(final, actor=organiser)
        final.refresh_from_db()
    return report


def award_and_pay(tournament: Tournament, *, organiser, seed: int) -> dict[str, Any]:
    """The prize table: the preset's prize list, judges' picks, roll-offs, awards, cash."""
    preset = tournament.preset.slug
    if preset not in prize_service.TEMPLATES or not prize_service.TEMPLATES[preset]:
        return {"awarded": 0, "total_awarded": "0.00", "total_paid": "0.00"}
    prize_service.load_template(tournament, preset, actor=organiser)
    rng = random.Random(derived_seed(seed, "prizes"))
    for category in tournament.prize_categories.all():
        totals = {
            t.player: t
            for t in prize_service.player_totals(tournament, category.stage_kind)
            if t.eligible
        }
        pods = sorted({t.pod for t in totals.values()})
        if category.measure == "judged":
            groups = pods if category.scope == "pod" else ["overall"]
            for group in groups:
                if category.scope == "pod_group":
                    winner = rng.choice(pods)
                else:
                    pool = sorted(p for p, t in totals.items() if group in ("overall", t.pod))
                    winner = rng.choice(pool)
                prize_service.nominate(category, str(group), [winner], actor=organiser)
        elif category.measure == "traveling_holder":
            holder = Player.objects.get(pk=rng.choice(sorted(totals)))
            prize_service.pass_traveling_item(tournament, holder, actor=organiser)
    while pending := prize_service.plan_prizes(tournament).pending:
        for tie in pending:
            prize_service.record_prize_roll_off(tournament, tie.key, actor=organiser)
    awards = prize_service.award(tournament, actor=organiser)
    for n, award in enumerate(awards):
        back = rehearsal_cash.give_back_cents(award.amount_cents) if n == 0 else 0
        payout_service.pay(
            award, actor=organiser, present=True, id_checked=True, give_back_cents=back
        )
    books = ledger_service.ledger(tournament)
    return {
        "awarded": len(awards),
        "total_awarded": amount(books.awarded_cents),
        "total_paid": amount(books.paid_cents),
    }


def print_through_tasks(tournament: Tournament, organiser) -> dict[str, int]:
    """The packet (qualifying seating), each stage's results and the payout sheet, each
    through a printout row and the Celery task, run here in-process; page counts by name."""
    from ..tasks import render_printout

    jobs = []
    stages_played = list(tournament.stages.filter(pods__isnull=False).distinct().order_by("pk"))
    if stages_played:
        jobs.append(("packet", Printout.Kind.PACKET, stages_played[0]))
    jobs += [(f"results_{s.kind}", Printout.Kind.RESULTS, s) for s in stages_played]
    jobs.append(("payout_sheet", Printout.Kind.PAYOUT_SHEET, None))
    pages = {}
    for name, kind, stage in jobs:
        printout = printout_service.request_printout(
            tournament, kind, organiser, stage=stage, send=False
        )
        render_printout.apply(args=[printout.pk], throw=False)
        printout.refresh_from_db()
        if printout.status != Printout.Status.DONE:
            raise RuntimeError(f"The rehearsal's {name} printout failed: {printout.error}")
        pages[name] = printout.pages
    return pages


@transaction.atomic
def rehearse(
    *,
    players: int,
    preset: str,
    seed: int,
    slug: str | None = None,
    stop_after_round: int | None = None,
    entry_fee: int = 20,
) -> Rehearsal:
    """Plays the event to `stop_after_round` of the qualifying stage, or to the grand prize.
    The entry fee is set before the desk records any fee, so the cash book agrees with it."""
    slug = slug or f"rehearsal-{preset}-{seed}"
    for old in Tournament.objects.filter(slug=slug):
        purge_tournament(old)
    tournament, organiser = create_event(
        players=players, preset=preset, seed=seed, slug=slug, entry_fee=entry_fee
    )
    stage = stages.draw_qualifying(tournament, actor=organiser, seed=seed, spread_groups=False)
    staff = staff_accounts(tournament, max(1, -(-stage.pods.count() // PODS_PER_STAFF)))
    staff_pods(stage, staff, organiser)
    rehearsal = Rehearsal(tournament, players, seed)
    seeds = {number: random.Random(s) for number, s in enumerate(pod_seeds(players, seed), start=1)}
    last = (
        stage.round_count if stop_after_round is None else min(stop_after_round, stage.round_count)
    )
    rehearsal.stages[stage.kind] = play_stage(stage, seeds, organiser=organiser, last=last)
    rehearsal_cash.settle_owing(tournament, organiser)
    # One pod sends only two players on: too few for a final table of four.
    if last == stage.round_count and stage.pods.count() >= 2:
        rehearsal.stages[Stage.Kind.SEMI_FINAL.value] = play_finals(
            tournament, stage, organiser=organiser, staff=staff, seed=seed
        )
    if last == stage.round_count:
        rehearsal.prizes = award_and_pay(tournament, organiser=organiser, seed=seed)
        if rehearsal.prizes:  # a test that skips the prize table keeps the boxes open
            rehearsal.cashbook = rehearsal_cash.end_of_night(tournament, organiser)
    rehearsal.printouts = print_through_tasks(tournament, organiser)
    return rehearsal
