"""The player list written out as CSV, for admins taking a list away.

Split from `csv_io` (what an upload says) because writing shares nothing with reading but
the column names and the neutralising of formula cells; `csv_io` still says why the export
is UTF-8 with a BOM and why its cells are neutralised.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.utils import timezone

from tournaments.foundation import audit

from ..foundation.csv_files import neutralise, to_csv
from ..models import Tournament
from .csv_io import EXPORT_COLUMNS

# --- writing files --------------------------------------------------------------------------


def _when(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else ""


def export_rows(tournament: Tournament, *, include_phone: bool = True) -> Iterator[list[str]]:
    """The header, then one neutralised row per registration (withdrawn ones included).

    Streams from the database in chunks so a 5000-player export does not hold every model
    in memory at once. `include_phone=False` leaves the phone column empty for people who
    may see the list but not phone numbers, keeping the layout the same for both.
    """
    yield list(EXPORT_COLUMNS)
    players = tournament.players.order_by("name", "id")
    for p in players.iterator(chunk_size=1000):
        yield [
            neutralise(cell)
            for cell in (
                p.name,
                p.email,
                p.phone if include_phone else "",
                p.group_name,
                "yes" if p.costume_contest else "no",
                p.code,
                p.status,
                p.source,
                _when(p.checked_in_at),
                _when(p.registered_at),
            )
        ]


def export_players(tournament: Tournament, *, actor, include_phone: bool = True) -> str:
    """The whole CSV export as text, audited: the file holds personal data leaving the site."""
    text = to_csv(export_rows(tournament, include_phone=include_phone))
    audit.record(
        "player.exported",
        "Player list exported as CSV" + ("" if include_phone else " (without phones)"),
        actor=actor,
        tournament=tournament,
    )
    return text


def export_filename(tournament: Tournament) -> str:
    return f"{tournament.slug}-players.csv"
