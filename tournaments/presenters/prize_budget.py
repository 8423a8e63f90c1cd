"""The budget beside the prize list and on the winners page: the prizes against the entry
fees of the players checked in (or, before the door opens, of those registered)."""

from tournaments.rules.budget import prize_budget

from ..foundation.text import money
from ..models import Player, Tournament
from ..services import cashbook


def list_total_cents(tournament: Tournament, categories, pods: int) -> int:
    """Every place of the prize list paid: per-pod prizes once per qualifying pod (before
    the draw, pods of twelve, as the pod plan makes wherever it can)."""
    per_pod = sum(sum(c.amounts_cents) for c in categories if c.scope == "pod")
    once = sum(sum(c.amounts_cents) for c in categories if c.scope != "pod")
    if not pods:
        pods = -(-tournament.players.filter(status=Player.Status.REGISTERED).count() // 12)
    return per_pod * pods + once


def budget_context(tournament: Tournament, prizes_cents: int) -> dict:
    """The prizes against the entry fees of the players checked in (or, before the door
    opens, of those registered), for `_budget.html`."""
    paid = tournament.players.playing().count()
    counted, arrived = (
        (paid, True)
        if paid
        else (tournament.players.filter(status=Player.Status.REGISTERED).count(), False)
    )
    fee_cents = cashbook.fee_cents(tournament)
    budget = prize_budget(counted * fee_cents, prizes_cents, tournament.prize_share_percent)
    return {
        "budget": budget,
        "budget_players": counted,
        "budget_arrived": arrived,
        "budget_money": {
            name: money(getattr(budget, f"{name}_cents"))
            for name in ("money_in", "prizes", "cap", "over", "charity")
        },
    }
