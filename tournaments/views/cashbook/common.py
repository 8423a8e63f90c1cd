"""What the cash book's pages share: the permission codes, rendering, and entry rows."""

from __future__ import annotations

from dataclasses import dataclass

from django.template.response import TemplateResponse

from ... import cashbook as book
from ...models import LedgerEntry
from ...permissions import TournamentPermissionMixin, permissions_of

VIEW = "money.view"
RECORD = "money.record"
KIND_LABELS = {
    book.FEE: "Entry fee",
    book.DONATION: "Donation",
    book.PAYOUT: "Prize paid",
    book.GIVE_BACK: "Prize given back",
    book.EXPENSE: "Expense",
    book.REVERSAL: "Reversal",
}


class CashBookMixin(TournamentPermissionMixin):
    def render(self, template: str, status: int = 200, **kwargs) -> TemplateResponse:
        codes = permissions_of(self.request.user, self.tournament)
        context = {
            "tournament": self.tournament,
            "perms_here": codes,
            "can_record": RECORD in codes,
            "box_keys": list(book.BOX_LABELS.items()),
            **kwargs,
        }
        return TemplateResponse(
            self.request, f"tournaments/cashbook/{template}", context, status=status
        )


@dataclass(frozen=True)
class Row:
    """One entry as the pages and the CSV show it: signed from the charity's side."""

    entry: LedgerEntry
    signed_cents: int
    reversed: bool

    @property
    def kind(self) -> str:
        return KIND_LABELS[self.entry.kind]

    @property
    def amount(self) -> str:
        return book.dollars(self.signed_cents)

    @property
    def method(self) -> str:
        return book.METHOD_LABELS[self.entry.method]

    @property
    def box(self) -> str:
        return book.BOX_LABELS.get(self.entry.box, "")

    @property
    def who(self) -> str:
        e = self.entry
        if e.player_id:
            return f"{e.player.name} ({e.player.code})"
        return e.donor

    @property
    def by(self) -> str:
        return self.entry.recorded_by.get_username() if self.entry.recorded_by else ""

    @property
    def reversible(self) -> bool:
        return not self.reversed and self.entry.kind not in (
            book.REVERSAL,
            book.PAYOUT,
            book.GIVE_BACK,
        )


def rows(tournament) -> list[Row]:
    """Every entry, oldest first, in one query."""
    entries = list(
        LedgerEntry.objects.filter(tournament=tournament).select_related("player", "recorded_by")
    )
    engine = [e.to_engine() for e in entries]
    by_id = {e.id: e for e in engine}
    gone = book.reversed_ids(engine)
    return [Row(e, book.signed(by_id[e.pk], by_id), e.pk in gone) for e in entries]
