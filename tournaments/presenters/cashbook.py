"""The cash book's entries as its pages and its CSV show them: signed from the charity's side."""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.rules import cashbook as book

from ..foundation.text import money
from ..models import LedgerEntry

KIND_LABELS = {
    book.FEE: "Entry fee",
    book.DONATION: "Donation",
    book.PAYOUT: "Prize paid",
    book.GIVE_BACK: "Prize given back",
    book.EXPENSE: "Expense",
    book.REVERSAL: "Reversal",
}


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
        return money(self.signed_cents)

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
