"""A checked upload saved as players, all rows or none.

Split from `csv_io`, which reads and checks a file on its own without the database: this
module adds the checks that need it (people already registered, places left), runs them
again with the tournament row locked as `registration.register` does, and saves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError
from tournaments.rules.duplicates import ALREADY, already_registered

from ..models import Player, Tournament
from ..models.players import new_registration_code
from .csv_io import (
    ImportRefused,
    ImportRow,
    ParsedFile,
    RowError,
    parse_players_csv,
)
from .registration import active_players, check_room, lock_tournament


@dataclass(frozen=True)
class ImportResult:
    count: int
    skipped_withdrawn: int
    skipped_registered: list[RowError] = field(default_factory=list)


def check_against_tournament(
    parsed: ParsedFile, tournament: Tournament, *, skip_registered: bool = False
) -> tuple[list[RowError], list[RowError]]:
    """The checks that need the database: people already registered and places left.

    Returns the errors and the rows left out: a row already registered (same e-mail, or
    same name and phone without an e-mail) is an error, or, with `skip_registered`, left
    out of `parsed.rows` and reported. Two queries whatever the file's size. Capacity counts
    every player row, good or bad, because the bad ones will be imported once fixed;
    telling the organiser about the overflow now saves a second round trip.
    """
    errors: list[RowError] = []
    active = active_players(tournament)
    found = already_registered(
        (
            (row.line, row.registrant.name, row.registrant.email, row.registrant.phone)
            for row in parsed.rows
        ),
        active.values_list("name", "email", "phone"),
    )
    skipped = [RowError(line, why) for line, why in sorted(found.items())]
    if skip_registered:
        parsed.rows = [row for row in parsed.rows if row.line not in found]
        parsed.player_rows -= len(found)
    else:
        errors.extend(skipped)
        skipped = []
    registered = active.count()
    left = max(tournament.capacity - registered, 0)
    if parsed.player_rows > left:
        errors.append(
            RowError(
                None,
                f"The file has {parsed.player_rows} players but only {left} "
                f"place{'s are' if left != 1 else ' is'} left ({tournament.capacity} in all, "
                f"{registered} registered). Remove {parsed.player_rows - left} "
                f"row{'s' if parsed.player_rows - left != 1 else ''} or raise the capacity.",
            )
        )
    return errors, skipped


def _create_players(tournament: Tournament, rows: list[ImportRow]) -> int:
    """Inserts the rows in bulk with codes unique in the tournament.

    `registration.register` saves one player per call and audits each; for a 5000-row file
    that would be thousands of queries and audit entries while the tournament is locked, so
    the import inserts in bulk after the same checks (`check_room`, the e-mail set above)
    and writes one audit entry. Must run with the tournament row locked.
    """
    codes = set(tournament.players.values_list("code", flat=True))
    players = []
    for row in rows:
        code = new_registration_code()
        while code in codes:
            code = new_registration_code()
        codes.add(code)
        r = row.registrant
        players.append(
            Player(
                tournament=tournament,
                name=r.name,
                email=r.email,
                phone=r.phone,
                group_name=r.group_name,
                costume_contest=r.costume_contest,
                code=code,
                source=Player.Source.IMPORT,
            )
        )
    try:
        with transaction.atomic():
            Player.objects.bulk_create(players, batch_size=500)
    except IntegrityError as exc:
        raise UserFacingError(
            "Another change to the players happened at the same moment, so nothing was "
            "imported. Upload the file again."
        ) from exc
    return len(players)


def import_players(
    tournament: Tournament,
    data: bytes,
    *,
    filename: str = "",
    actor=None,
    skip_registered: bool = False,
) -> ImportResult:
    """Imports a CSV of players: all rows, or nothing and `ImportRefused` listing every error.

    The file is parsed before the lock is taken (it needs no database), then the database
    checks run and the rows are inserted in one transaction with the tournament row locked.
    """
    parsed = parse_players_csv(data)
    if not parsed.player_rows and not parsed.errors:
        raise UserFacingError(
            "Every row is marked withdrawn, so there is nothing to import.", field="file"
        )
    with transaction.atomic():
        tournament = lock_tournament(tournament)
        found, skipped = check_against_tournament(
            parsed, tournament, skip_registered=skip_registered
        )
        registered = {e.line for e in found if e.message.endswith(ALREADY)}
        errors = parsed.errors + found
        if errors:
            raise ImportRefused(errors, registered=any(e.line in registered for e in found))
        if not parsed.rows:
            raise UserFacingError(
                "Every player in the file is already registered, so there is nothing to import.",
                field="file",
            )
        check_room(tournament, extra=len(parsed.rows))
        count = _create_players(tournament, parsed.rows)
        audit.record(
            "player.imported",
            f"{count} player{'s' if count != 1 else ''} imported"
            + (f" from {filename}" if filename else "")
            + (
                f" ({parsed.skipped_withdrawn} withdrawn rows skipped)"
                if parsed.skipped_withdrawn
                else ""
            )
            + (f" ({len(skipped)} already registered, skipped)" if skipped else ""),
            actor=actor,
            tournament=tournament,
            data={
                "count": count,
                "file": filename,
                "skipped_withdrawn": parsed.skipped_withdrawn,
                "skipped_registered": [e.line for e in skipped],
            },
        )
    return ImportResult(
        count=count, skipped_withdrawn=parsed.skipped_withdrawn, skipped_registered=skipped
    )
