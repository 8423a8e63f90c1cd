"""The prize-pool planner: the organiser's floor for the charity's share, the projected
figures the prize pages show, and the board's switch for the running total raised.

Projected money in is what was recorded plus the fees still owed by players checked in;
prizes are the awards once made, or until then every place of the prize list
(`prize_list.list_total_cents`). The arithmetic is `cashbook.project`.
"""

from __future__ import annotations

from tournaments.foundation import audit, changes
from tournaments.rules import cashbook as book

from ..foundation.text import money
from ..models import CashBookSettings, Tournament
from . import cashbook, prize_list


def settings_for(tournament: Tournament) -> CashBookSettings:
    """The tournament's settings, unsaved defaults when the organiser never set any."""
    found = CashBookSettings.objects.filter(tournament=tournament).first()
    return found or CashBookSettings(tournament=tournament)


def floor_words(floor: book.Floor) -> str:
    """The charity's floor as the audit log and the planner say it."""
    if floor.kind == book.PERCENT:
        return f"{floor.value}% of money in"
    return money(floor.value)


@changes.announces
def save_settings(
    tournament: Tournament, *, floor_kind: str, floor_value: int, board_shows_raised: bool, actor
) -> CashBookSettings:
    settings, _ = CashBookSettings.objects.select_for_update().get_or_create(tournament=tournament)
    settings.floor_kind, settings.floor_value = floor_kind, floor_value
    settings.board_shows_raised = board_shows_raised
    settings.save()
    audit.record(
        "cashbook.settings",
        f"Charity floor: {floor_words(settings.floor)}; board shows the total raised: "
        + ("yes" if board_shows_raised else "no"),
        actor=actor,
        tournament=tournament,
        target=settings,
    )
    changes.bump(tournament.pk)
    return settings


def shown(p: book.Projection) -> dict[str, str]:
    """The projection's figures as the pages print them."""
    return {
        "money_in": money(p.money_in_cents),
        "prizes": money(p.prizes_cents),
        "expenses": money(p.expenses_cents),
        "charity": money(p.charity_cents),
        "floor": money(p.floor_cents),
        "room": money(p.room_cents),
    }


def page_context(
    tournament: Tournament, prizes_cents: int | None = None, *, totals: book.Totals | None = None
) -> dict:
    """What the planner's card (cashbook/_planner.html) shows; `prizes_cents` and `totals` as
    for `projection`."""
    settings = settings_for(tournament)
    p = projection(tournament, prizes_cents, totals=totals, floor=settings.floor)
    return {
        "projection": p,
        "projected": shown(p),
        "settings": settings,
        "floor_words": floor_words(settings.floor),
    }


def board_total(tournament: Tournament) -> str:
    """The running total raised for the projector, or "" while the organiser's switch is off.
    Reads the settings the board's query brought along (no query of its own when off)."""
    try:
        settings = tournament.cashbook_settings
    except CashBookSettings.DoesNotExist:
        return ""
    if not settings.board_shows_raised:
        return ""
    return money(max(cashbook.totals(tournament).net_raised_cents, 0))


def planned_prizes_cents(tournament: Tournament) -> int:
    """What the prize list will pay: the awards once made, else every place of the list."""
    awarded = sum(tournament.awards.current().values_list("amount_cents", flat=True))
    return awarded or prize_list.list_total_cents(tournament)


def projection(
    tournament: Tournament,
    prizes_cents: int | None = None,
    *,
    totals: book.Totals | None = None,
    floor: book.Floor | None = None,
) -> book.Projection:
    """The night as planned; `prizes_cents` is the prizes about to be awarded, when known.
    `totals` (the book's) and `floor` when the caller has read them already (the cash book
    page), so the whole book is not read twice."""
    return book.project(
        cashbook.totals(tournament) if totals is None else totals,
        owing_cents=cashbook.owed_cents(tournament),
        prizes_cents=planned_prizes_cents(tournament) if prizes_cents is None else prizes_cents,
        floor=settings_for(tournament).floor if floor is None else floor,
    )
