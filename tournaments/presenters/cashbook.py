"""The cash book's entries as its pages and its CSV show them: signed from the charity's side."""

from __future__ import annotations

from collections.abc import Sequence
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


def rows(tournament, every: list[book.Entry], ids: Sequence[int]) -> list[Row]:
    """The entries `ids`, in that order, as the page shows them. `every` is the whole book as
    engine entries (`cashbook.entries`, which the page's totals read anyway): a reversal's
    sign and the reversed marks come from it, so only the entries shown are read as models,
    in one query, however long the night's book."""
    by_id = {e.id: e for e in every}
    gone = book.reversed_ids(every)
    shown = (
        LedgerEntry.objects.filter(tournament=tournament)
        .select_related("player", "recorded_by")
        .in_bulk(ids)
    )
    return [Row(shown[pk], book.signed(by_id[pk], by_id), pk in gone) for pk in ids]
