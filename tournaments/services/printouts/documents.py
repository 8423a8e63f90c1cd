"""Models in, the plain values of `tournaments.printouts` out, and the PDF of a printout row.

Each document reads what it shows in a handful of queries: the cards and tally sheets from
the stage's seats, the results from `load_stage`/`standings` and the advancement plan, the
payout sheet from the awards and their payments.
"""

from __future__ import annotations

import re
from collections import defaultdict

from django.db.models import Prefetch, Sum
from django.utils import dateformat, timezone

from scoring.rules.cards import STATUS_LABELS
from scoring.rules.ruleset import MOVEMENTS
from scoring.services.cards import load_stage, standings
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.site import site_url

from ... import printouts as pdf
from ...foundation.text import money, ordinal, whole_number
from ...models import (
    FinalTable,
    LedgerEntry,
    Payout,
    Player,
    Pod,
    Printout,
    Qualifier,
    RollOff,
    Seat,
    Stage,
    Tournament,
)
from ...rules import cashbook as book
from .. import cash_summary
from ..advancement import plan_stage
from .links import card_url

Kind = Printout.Kind
NEEDS_STAGE = frozenset(
    {Kind.SCORE_CARDS, Kind.TALLY_SHEETS, Kind.SEATING_CHARTS, Kind.PACKET, Kind.RESULTS}
)
TAKES_POD = frozenset({Kind.SCORE_CARDS, Kind.TALLY_SHEETS, Kind.SEATING_CHARTS, Kind.PACKET})
# Documents about the whole evening: never tied to a stage.
WHOLE_EVENT = frozenset({Kind.PAYOUT_SHEET, Kind.CHARITY_SUMMARY})
_PAGE = re.compile(rb"/Type\s*/Page\b(?!s)")


def printable_stages(tournament: Tournament) -> list[Stage]:
    """Stages with pods, newest first (the one being played is what gets printed)."""
    return list(tournament.stages.filter(pods__isnull=False).distinct().order_by("-drawn_at"))


def _person(user) -> str:
    return (user.get_full_name() or user.get_username()) if user is not None else ""


def event_info(tournament: Tournament, stage: Stage | None) -> pdf.EventInfo:
    rules = stage.rules if stage is not None else tournament.preset.to_ruleset().to_dict()
    movement = rules["movement"]
    return pdf.EventInfo(
        name=tournament.name,
        charity=tournament.charity,
        date_text=dateformat.format(tournament.date, "l j F Y"),
        venue=tournament.venue,
        preset_label=rules.get("label") or tournament.preset.label,
        targets=tuple(rules["targets"]),
        sets=stage.sets if stage is not None else tournament.qualifying_sets,
        movement=movement,
        movement_text=MOVEMENTS[movement].guide if movement in MOVEMENTS else "",
        snake_eyes=bool(rules.get("snake_eyes")),
    )


def card_infos(stage: Stage, base_url: str, pod: Pod | None = None) -> list[pdf.CardInfo]:
    """One card per player seated in the stage, at their first seat (a late arrival's is the
    ghost seat they took). One query."""
    seats = Seat.objects.filter(round__stage=stage, player__isnull=False)
    if pod is not None:
        seats = seats.filter(pod=pod)
    first: dict[int, tuple] = {}
    for row in seats.order_by("round__number").values_list(
        "player_id", "player__name", "player__code", "pod__number", "table", "seat"
    ):
        first.setdefault(row[0], row)
    slug = stage.tournament.slug
    return [
        pdf.CardInfo(name, code, pod_number, table, seat, card_url(base_url, slug, pk, stage.kind))
        for pk, name, code, pod_number, table, seat in first.values()
    ]


def _first_round_tables(stage: Stage, pod: Pod | None) -> dict[int, list[list[str]]]:
    """{pod number: [[four names] per table]} as the draw seated round 1; ghosts as "Ghost"."""
    seats = Seat.objects.filter(round__stage=stage, round__number=1)
    if pod is not None:
        seats = seats.filter(pod=pod)
    tables: dict[int, list[list[str]]] = defaultdict(list)
    for number, table, name in seats.order_by("pod__number", "table", "seat").values_list(
        "pod__number", "table", "player__name"
    ):
        grid = tables[number]
        while len(grid) < table:
            grid.append([])
        grid[table - 1].append(name or "Ghost")
    return tables


def table_infos(stage: Stage, pod: Pod | None = None) -> list[pdf.TableInfo]:
    return [
        pdf.TableInfo(number, t, t == 1, tuple(names))
        for number, grid in sorted(_first_round_tables(stage, pod).items())
        for t, names in enumerate(grid, start=1)
    ]


def pod_seatings(stage: Stage, pod: Pod | None = None) -> list[pdf.PodSeating]:
    pods = stage.pods.select_related("hostess").prefetch_related("staff").order_by("number")
    if pod is not None:
        pods = pods.filter(pk=pod.pk)
    tables = _first_round_tables(stage, pod)
    return [
        pdf.PodSeating(
            p.number,
            p.hostess.name if p.hostess else "",
            tuple(sorted(_person(u) for u in p.staff.all())),
            tuple(
                pdf.TableInfo(p.number, t, t == 1, tuple(names))
                for t, names in enumerate(tables.get(p.number, []), start=1)
            ),
        )
        for p in pods
    ]


def _group_label(group: str) -> str:
    return f"Pod {group}" if whole_number(group) is not None else group.capitalize()


def _roll_off_line(record: RollOff, names: dict[int, str]) -> str:
    throws = "; then ".join(
        ", ".join(f"{names.get(int(pid), pid)} {face}" for pid, face in throw.items())
        for throw in record.rounds
    )
    winners = ", ".join(names.get(pid, str(pid)) for pid in record.winners)
    how = "rolled on screen" if record.source == RollOff.Source.SITE else "dice at the table"
    return (
        f"{_group_label(record.group)}, {record.category_label}: {throws}. {winners} won ({how})."
    )


def results_info(stage: Stage) -> pdf.ResultsInfo:
    """Standings per pod from the official cards, who goes on and why, every roll-off, and
    for the semi-final the final table and the grand prize winner."""
    cards = load_stage(stage)
    names = {pk: p.name for pk, p in cards.players.items()}
    saved = list(Qualifier.objects.filter(from_stage=stage).order_by("group", "category_key"))
    final = FinalTable.objects.filter(semi_stage=stage).prefetch_related("seats__player").first()
    finalist_ids = {s.player_id for s in final.seats.all()} if final is not None else set()
    going_on = {q.player_id: q.category_label for q in saved}
    qualifiers = [
        pdf.QualifierRow(
            names.get(q.player_id, "?"),
            cards.pod_of.get(q.player_id, 0),
            q.category_label + (" (after a roll-off)" if q.via_roll_off else ""),
        )
        for q in saved
    ]
    pending: list[str] = []
    shared: list[RollOff] = []
    if stage.kind != Stage.Kind.FINAL:
        try:
            plans = plan_stage(stage)
        except UserFacingError:
            plans = []
        for plan in plans:
            shared += [r for _, r in plan.shared]
            for tie in plan.pending:
                tied = ", ".join(names.get(p, str(p)) for p in tie.players)
                pending.append(
                    f"{plan.label}, {tie.category_label}: {tied} tied on {tie.value}; "
                    "roll-off still to throw."
                )
            if not saved and final is None and plan.result is not None:
                for q in plan.result.qualifiers:
                    going_on[q.player] = q.category_label
                    qualifiers.append(
                        pdf.QualifierRow(
                            names.get(q.player, "?"),
                            cards.pod_of.get(q.player, 0),
                            f"{q.category_label} (not saved yet)",
                        )
                    )
    by_pod: dict[int, list[pdf.ResultRow]] = defaultdict(list)
    for row in standings(cards, sort="pod"):
        status = STATUS_LABELS[row.status]
        if row.player.status == Player.Status.WITHDRAWN:
            status = "withdrawn"
        elif row.player.pk in finalist_ids:
            status += ", final table"
        elif row.player.pk in going_on:
            status += ", goes on"
        card = row.card
        by_pod[row.pod].append(
            pdf.ResultRow(
                row.player.name,
                card.wins,
                card.losses,
                card.buncos,
                card.minis,
                card.snake_eyes,
                status,
            )
        )
    # The cut's own roll-offs, and prize roll-offs of the same tie that settled a cut too.
    records = [
        *RollOff.objects.filter(stage=stage, kind=RollOff.Kind.CUT).order_by(
            "group", "category_key"
        ),
        *shared,
    ]
    roll_offs = [_roll_off_line(r, names) for r in records] + pending
    finalists: list[pdf.FinalistRow] = []
    winner = None
    if final is not None:
        finalists = [
            pdf.FinalistRow(s.seat, s.player.name, s.reason, s.path) for s in final.seats.all()
        ]
        winner = next(
            (s.player.name for s in final.seats.all() if s.player_id == final.winner_id), None
        )
    return pdf.ResultsInfo(
        stage_label=stage.get_kind_display(),
        pods=[pdf.PodResults(number, tuple(rows)) for number, rows in sorted(by_pod.items())],
        qualifiers=qualifiers,
        roll_offs=roll_offs,
        finalists=finalists,
        winner=winner,
    )


def _when(moment) -> str:
    return dateformat.format(timezone.localtime(moment), "M j, H:i") if moment else ""


def payout_lines(tournament: Tournament) -> list[pdf.PayoutLine]:
    """Every prize share in the prize table's order; a voided payment follows its prize as a
    greyed line, so the paper tells the same story as the ledger."""
    awards = (
        tournament.awards.current()
        .select_related("player", "category")
        .prefetch_related(
            Prefetch(
                "payouts",
                queryset=Payout.objects.select_related("paid_by").order_by("paid_at", "id"),
            )
        )
    )
    given_back = dict(
        LedgerEntry.objects.filter(
            tournament=tournament,
            kind=book.GIVE_BACK,
            award__isnull=False,
            reversed_by__isnull=True,  # a voided payment's give-back is reversed with it
        )
        .values("award_id")
        .annotate(n=Sum("amount_cents"))
        .values_list("award_id", "n")
    )
    lines = []
    for award in awards:
        common = {
            "category": award.category.label,
            "scope": award.where_won,
            "place": ordinal(award.place),
            "winner": award.player.name,
            "code": award.player.code,
        }
        payouts = list(award.payouts.all())
        live = next((p for p in payouts if p.voided_at is None), None)
        lines.append(
            pdf.PayoutLine(
                **common,
                amount_text=money(award.amount_cents),
                paid_by=_person(live.paid_by) if live else "",
                paid_at=_when(live.paid_at) if live else "",
                given_back=money(given_back[award.pk]) if given_back.get(award.pk) else "",
            )
        )
        lines += [
            pdf.PayoutLine(
                **common,
                amount_text=money(p.amount_cents),
                paid_by=_person(p.paid_by),
                paid_at=_when(p.paid_at),
                voided=p.void_reason or "voided",
            )
            for p in payouts
            if p.voided_at is not None
        ]
    return lines


def render(printout: Printout, progress=None) -> bytes:
    """The PDF of a printout row, rendered now (the task calls this)."""
    tournament, stage, pod = printout.tournament, printout.stage, printout.pod
    kind, size = printout.kind, printout.pagesize
    if kind in NEEDS_STAGE and stage is None:
        raise UserFacingError("Draw the pods first: this printout is made from the seating.")
    event = event_info(tournament, stage)
    base = printout.base_url or site_url()
    if kind == Kind.SCORE_CARDS:
        return pdf.score_cards(event, card_infos(stage, base, pod), size, progress)
    if kind == Kind.TALLY_SHEETS:
        return pdf.tally_sheets(event, table_infos(stage, pod), size, progress)
    if kind == Kind.SEATING_CHARTS:
        return pdf.seating_charts(event, pod_seatings(stage, pod), size, progress)
    if kind == Kind.PACKET:
        return pdf.packet(
            event,
            card_infos(stage, base, pod),
            table_infos(stage, pod),
            pod_seatings(stage, pod),
            size,
            progress,
        )
    if kind == Kind.RESULTS:
        return pdf.results_sheet(event, results_info(stage), size, progress)
    if kind == Kind.PAYOUT_SHEET:
        return pdf.payout_sheet(event, payout_lines(tournament), size, progress)
    if kind == Kind.CHARITY_SUMMARY:
        night = cash_summary.summary(tournament)
        return pdf.charity_summary(event, night.figures(), night.thank_you, size, progress)
    raise UserFacingError(f"Unknown printout {kind!r}.")


def page_count(data: bytes) -> int:
    return len(_PAGE.findall(data))


def file_name(printout: Printout) -> str:
    """What the download is called (the stored name is random)."""
    parts = [printout.tournament.slug, printout.kind.replace("_", "-")]
    if printout.stage is not None and printout.kind not in WHOLE_EVENT:
        parts.append(printout.stage.kind.replace("_", "-"))
    if printout.pod is not None:
        parts.append(f"pod-{printout.pod.number}")
    parts.append(printout.pagesize.lower())
    return "-".join(parts) + ".pdf"


def describe(printout: Printout) -> str:
    what = printout.get_kind_display()
    if printout.kind in NEEDS_STAGE and printout.stage is not None:
        what += f" · {printout.stage.get_kind_display()}"
    if printout.pod is not None:
        what += f" · pod {printout.pod.number}"
    return f"{what} · {printout.get_pagesize_display()}"
