"""The charity's summary of the night, as figures the page, the PDF and the CSV share.

Every figure is a sum of ledger entries (`cashbook.totals`), so the page, the PDF and the
accountant's CSV cannot disagree with the book or with each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.utils import timezone

from .. import cashbook as book
from ..models import LedgerEntry, Player, Tournament
from . import cashbook
from .csv_io import neutralise

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
class Summary:
    totals: book.Totals
    players: int
    charity: str
    thank_you: str

    def figures(self) -> list[tuple[str, str]]:
        """(label, amount) in the order the charity reads them, net raised last."""
        t = self.totals
        lines = [
            (f"Money in by {book.METHOD_LABELS[m].lower()}", book.dollars(c))
            for m, c in t.money_in_by_method.items()
            if m != book.COMPED
        ]
        return [
            *lines,
            ("Money in", book.dollars(t.money_in_cents)),
            (
                f"Entry fees ({t.fees_count} players, {t.comped_count} comped)",
                book.dollars(t.fees_cents),
            ),
            ("Donations", book.dollars(t.donations_cents)),
            ("Prizes paid", book.dollars(t.prizes_paid_cents)),
            ("Prizes given back", book.dollars(t.given_back_cents)),
            ("Expenses", book.dollars(t.expenses_cents)),
            ("Net raised", book.dollars(t.net_raised_cents)),
        ]


def summary(tournament: Tournament) -> Summary:
    totals = cashbook.totals(tournament)
    players = tournament.players.filter(
        status=Player.Status.REGISTERED, checked_in_at__isnull=False
    ).count()
    thanks = (
        f"Thank you to the {players} players, the volunteers and every donor: together you "
        f"raised {book.dollars(max(totals.net_raised_cents, 0))} for {tournament.charity}."
    )
    return Summary(totals, players, tournament.charity, thanks)


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
            f"{e.amount_cents / 100:.2f}",
            f"{book.signed(engine[e.pk], engine) / 100:.2f}",
            e.box,
            neutralise(e.player.name) if e.player else "",
            e.player.code if e.player else "",
            neutralise(e.donor),
            neutralise(e.note),
            e.reverses_id or "",
            neutralise(e.recorded_by.get_username()) if e.recorded_by else "",
            "yes" if e.receipt else "",
        ]
