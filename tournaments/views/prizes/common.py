"""What the prize pages share: permission codes, the tabs' mixin, and how places, groups,
values and the engine's notes are shown.

The engine names players by id in its notes ("Won 1st place in a roll-off with 18, 19");
`name_ids` puts the players' names in their place for the pages.
"""

import re

from django.template.response import TemplateResponse

from ...budget import prize_budget
from ...forms.prizes import dollars
from ...models import Payout, Player, Tournament
from ...permissions import TournamentPermissionMixin, permissions_of

AWARD = "prizes.award"
PAY = "payouts.pay"
NOUNS = {
    "most_buncos": ("bunco", "buncos"),
    "most_minis": ("mini bunco", "mini buncos"),
    "most_wins": ("win", "wins"),
    "most_losses": ("loss", "losses"),
}
LOCKED = "Prizes are being paid, so the prize list can no longer change."


def value_text(measure: str, value: int | None) -> str:
    if value is None:
        return ""
    if measure in NOUNS:
        one, many = NOUNS[measure]
        return f"{value} {one if value == 1 else many}"
    return str(value)


_ROLL_OFF_WITH = re.compile(r"(roll-off with )(\d+(?:, \d+)*)")
_ALREADY_WON = re.compile(r"(^|; )(\d+)( already won )")
_NOT_ELIGIBLE = re.compile(r"^(\d+)( is not eligible)")


def name_ids(text: str, names: dict[int, str]) -> str:
    """Puts players' names where the engine's notes give their ids, and nowhere else."""

    def name(pid: str) -> str:
        return names.get(int(pid), pid)

    text = _ROLL_OFF_WITH.sub(lambda m: m[1] + ", ".join(name(p) for p in m[2].split(", ")), text)
    text = _ALREADY_WON.sub(lambda m: m[1] + name(m[2]) + m[3], text)
    return _NOT_ELIGIBLE.sub(lambda m: name(m[1]) + m[2], text)


def who(scope: str, pid, names: dict[int, str]) -> str:
    """A roll-off's or a group prize's entrant: a player, or a pod for a best-pod prize."""
    return f"Pod {pid}" if scope == "pod_group" else names.get(pid, str(pid))


def paid_started(tournament: Tournament) -> bool:
    return Payout.objects.filter(
        award__tournament=tournament, award__superseded_at__isnull=True
    ).exists()


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
    active = tournament.players.filter(status=Player.Status.REGISTERED)
    paid = active.filter(checked_in_at__isnull=False).count()
    counted, arrived = (paid, True) if paid else (active.count(), False)
    fee_cents = int(tournament.entry_fee * 100)
    budget = prize_budget(counted * fee_cents, prizes_cents, tournament.prize_share_percent)
    return {
        "budget": budget,
        "budget_players": counted,
        "budget_arrived": arrived,
        "budget_money": {
            name: dollars(getattr(budget, f"{name}_cents"))
            for name in ("money_in", "prizes", "cap", "over", "charity")
        },
    }


class PrizePageMixin(TournamentPermissionMixin):
    """The tournament, the user's codes and the prize pages' tabs."""

    tab = ""

    def context(self, **kwargs):
        codes = permissions_of(self.request.user, self.tournament)
        return {
            "tournament": self.tournament,
            "perms_here": codes,
            "tab": self.tab,
            "can_award": AWARD in codes,
            "can_pay": PAY in codes,
            **kwargs,
        }

    def render(self, template: str, status: int = 200, **kwargs):
        return TemplateResponse(
            self.request, f"tournaments/prizes/{template}", self.context(**kwargs), status=status
        )
