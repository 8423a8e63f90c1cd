"""The budget beside the prize list and on the winners page: the prizes against the entry
fees of the players checked in, as the cash book has them (or, before the door opens, of
those registered)."""

from tournaments.rules.budget import QUALIFYING, SEMI_FINAL, prize_budget

from ..foundation.text import count, money
from ..models import Tournament
from ..services import cashbook
from ..services.prize_list import CHECKED_IN, PLACES, Counted, counted_players


def counted_words(counted: Counted) -> str:
    """Who the fees are counted from, in the words of the budget and the prize list alike:
    "60 players checked in", "12 players registered" or "100 places"."""
    players, basis = counted
    if basis == PLACES:
        return count(players, "place")
    return f"{count(players, 'player')} " + ("checked in" if basis == CHECKED_IN else "registered")


def budget_context(
    tournament: Tournament, prizes_cents: int, counted: Counted | None = None
) -> dict:
    """The prizes against the entry fees, for `_budget.html`: before the door opens, those
    of the players registered, or of a full event (`counted_players`); once players arrive,
    those the cash book holds and those still owed, so a comped player counts nothing."""
    counted = counted_players(tournament) if counted is None else counted
    players, basis = counted
    fees = cashbook.fees(tournament) if basis == CHECKED_IN else None
    money_in = fees.due_cents if fees else players * cashbook.fee_cents(tournament)
    budget = prize_budget(money_in, prizes_cents, tournament.prize_share_percent)
    shown = {
        name: money(getattr(budget, f"{name}_cents"))
        for name in ("money_in", "prizes", "cap", "over", "charity")
    }
    if fees:
        shown |= {"taken": money(fees.taken_cents), "owed": money(fees.owed_cents)}
    return {
        "budget": budget,
        "budget_counted": counted_words(counted),
        "budget_planned_full": basis == PLACES,
        "budget_fees": fees,
        "budget_money": shown,
    }


def list_line(
    categories,
    counted: Counted,
    drawn: dict[str, int],
    pods: dict[str, int],
    total_cents: int,
) -> dict:
    """The prize list's money in one line: per pod (each stage's own when the semi-final has
    per-pod prizes too), overall, and the whole list paid (`total_cents`) with the pods it
    counts."""
    per_pod = {QUALIFYING: 0, SEMI_FINAL: 0}
    for c in categories:
        if c.scope == "pod":
            per_pod[c.stage_kind] += sum(c.amounts_cents)
    once = sum(sum(c.amounts_cents) for c in categories if c.scope != "pod")
    who = counted_words(counted)
    pods_words = []
    for kind, name in ((QUALIFYING, "qualifying"), (SEMI_FINAL, "semi-final")):
        if kind == SEMI_FINAL and not per_pod[SEMI_FINAL]:
            continue
        if kind in drawn:
            how = "drawn"
        elif kind == SEMI_FINAL:
            how = "expected from the players the qualifying pods send on"
        else:
            how = f"as the draw of the {who} would make them"
        pods_words.append(f"{count(pods[kind], f'{name} pod')} ({how})")
    semi = (
        f" (qualifying), {money(per_pod[SEMI_FINAL])} (semi-final)" if per_pod[SEMI_FINAL] else ""
    )
    return {
        "per_pod": money(per_pod[QUALIFYING]) + semi,
        "once": money(once),
        "pods_words": " and ".join(pods_words),
        "full": money(total_cents),
    }
