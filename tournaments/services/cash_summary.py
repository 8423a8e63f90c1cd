"""The charity's summary of the night, as figures the page, the PDF and the CSV share.

Every figure is a sum of ledger entries (`cashbook.totals`), so the page, the PDF and the
accountant's CSV cannot disagree with the book or with each other; a closed cash box that
counted over or short of the book adds its difference below the book's net raised, since
that is the money the charity has.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.utils import timezone

from tournaments.rules import cashbook as book

from ..foundation.csv_files import neutralise
from ..foundation.text import amount, money
from ..models import LedgerEntry, Tournament
from . import cashbook

CSV_COLUMNS = (
    "id",
    "recorded_at",
    "kind",
    "method",
    "amount",
    "signed_amount",
    "box",
    "player",
    "code",
    "donor",
    "note",
    "reverses",
    "recorded_by",
    "receipt",
)


@dataclass(frozen=True)
class CountDifference:
    """A closed cash box whose count differed from what the book expected in it."""

    box: str
    cents: int  # counted less expected: negative when the box was short
    reason: str

    @property
    def label(self) -> str:
        said = f" ({self.reason})" if self.reason else ""
        return f"{self.box}: cash counted {'over' if self.cents > 0 else 'short'}{said}"


@dataclass(frozen=True)
class Summary:
    totals: book.Totals
    players: int
    charity: str
    thank_you: str
    counts: tuple[CountDifference, ...]
    raised_cents: int  # what the charity has: the net raised, and the counts' differences

    def figures(self) -> list[tuple[str, str]]:
        """(label, amount) in the order the charity reads them, what it has last."""
        t = self.totals
        lines = [
            (f"Money in by {book.METHOD_LABELS[m].lower()}", money(c))
            for m, c in t.money_in_by_method.items()
            if m != book.COMPED
        ]
        return [
            *lines,
            ("Money in", money(t.money_in_cents)),
            (
                f"Entry fees ({t.fees_count} players, {t.comped_count} comped)",
                money(t.fees_cents),
            ),
            ("Donations", money(t.donations_cents)),
            ("Prizes paid", money(t.prizes_paid_cents)),
            ("Prizes given back", money(t.given_back_cents)),
            ("Expenses", money(t.expenses_cents)),
            ("Net raised", money(t.net_raised_cents)),
            *(
                [(c.label, money(c.cents)) for c in self.counts]
                + [("Net raised, as the cash was counted", money(self.raised_cents))]
                if self.counts
                else []
            ),
        ]


def summary(tournament: Tournament) -> Summary:
    totals = cashbook.totals(tournament)
    players = tournament.players.playing().count()
    counts = tuple(
        CountDifference(str(box), box.difference_cents, box.difference_reason)
        for box in tournament.cash_boxes.exclude(closed_at=None).order_by("key")
        if box.difference_cents
    )
    raised = totals.net_raised_cents + sum(c.cents for c in counts)
    thanks = (
        f"Thank you to the {players} players, the volunteers and every donor: together you "
        f"raised {money(max(raised, 0))} for {tournament.charity}."
    )
    return Summary(totals, players, tournament.charity, thanks, counts, raised)


def _when(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S")


def csv_rows(tournament: Tournament) -> Iterator[list]:
    """The header, then every entry as recorded (reversals as their own rows), neutralised."""
    yield list(CSV_COLUMNS)
    entries = list(
        LedgerEntry.objects.filter(tournament=tournament).select_related("player", "recorded_by")
    )
    engine = {e.pk: e.to_engine() for e in entries}
    for e in entries:
        yield [
            e.pk,
            _when(e.recorded_at),
            e.kind,
            e.method,
            amount(e.amount_cents),
            amount(book.signed(engine[e.pk], engine)),
            e.box,
            neutralise(e.player.name) if e.player else "",
            e.player.code if e.player else "",
            neutralise(e.donor),
            neutralise(e.note),
            e.reverses_id or "",
            neutralise(e.recorded_by.get_username()) if e.recorded_by else "",
            "yes" if e.receipt else "",
        ]
