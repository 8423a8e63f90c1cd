"""Players to and from CSV: organisers keep guest lists in spreadsheets, admins take lists away.

Import is all or nothing. Every row is checked and every problem reported with its line
number in the file before anything is saved: a half-imported list is worse than none,
because the organiser cannot tell which rows got in and uploading the fixed file again
would then clash with them. The final checks (places left, e-mails already registered) run
again with the tournament row locked, as in `registration.register`, so a registration
arriving during the upload cannot push the tournament over capacity.

Export writes every registration, withdrawn ones included, as UTF-8 with a BOM (without it
Excel reads the file as the local code page and mangles accents). Cells that a spreadsheet
would run as a formula get a leading apostrophe, because names and groups are typed by the
public. Import reverses that, so an exported file can be imported again unchanged.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import Player, Tournament
from ..models.players import new_registration_code
from . import audit
from .csv_duplicates import ALREADY, already_registered
from .errors import UserFacingError
from .registration import Registrant, active_players, check_room, lock_tournament

MAX_BYTES = 2 * 1024 * 1024
MAX_ROWS = 5000
SAVE_AS_HINT = (
    'In Excel choose File › Save As › "CSV UTF-8 (Comma delimited) (*.csv)" '
    "(in Numbers or Google Sheets: export as CSV), then upload that file."
)

TEMPLATE_COLUMNS: tuple[str, ...] = ("name", "email", "phone", "group", "costume")
EXPORT_COLUMNS: tuple[str, ...] = (
    *TEMPLATE_COLUMNS,
    "code",
    "status",
    "source",
    "checked_in_at",
    "registered_at",
)
# Header cells are compared lower-cased with spaces and hyphens as underscores, so
# "E-mail" and "Group name" are understood too.
HEADER_ALIASES: dict[str, str] = {
    "name": "name",
    "email": "email",
    "e_mail": "email",
    "phone": "phone",
    "group": "group_name",
    "group_name": "group_name",
    "costume": "costume_contest",
    "costume_contest": "costume_contest",
}
COLUMN_LABELS = {
    "name": "name",
    "email": "email",
    "phone": "phone",
    "group_name": "group",
    "costume_contest": "costume",
}
# The export's own bookkeeping columns: accepted so an export can be imported again, and
# ignored (a new tournament gives new codes). A status of "withdrawn" skips the row.
IGNORED_COLUMNS = frozenset({"code", "source", "checked_in_at", "registered_at"})
STATUS_COLUMN = "status"
COSTUME_VALUES: dict[str, bool] = {
    "yes": True,
    "true": True,
    "1": True,
    "no": False,
    "false": False,
    "0": False,
    "": False,
}
FORMULA_STARTS: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")


def _max_length(name: str) -> int:
    return Player._meta.get_field(name).max_length


MAX_LENGTHS = {name: _max_length(name) for name in ("name", "email", "phone", "group_name")}


@dataclass(frozen=True)
class RowError:
    """One problem in an uploaded file; `line` is the file's line number, header = 1."""

    line: int | None
    message: str

    def __str__(self) -> str:
        return f"Line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class ImportRow:
    line: int
    registrant: Registrant


@dataclass
class ParsedFile:
    """What a file says, checked on its own (no database): rows that look right and errors."""

    rows: list[ImportRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    player_rows: int = 0  # rows meant to become players, good or bad
    skipped_withdrawn: int = 0


@dataclass(frozen=True)
class ImportResult:
    count: int
    skipped_withdrawn: int
    skipped_registered: list[RowError] = field(default_factory=list)


class ImportRefused(UserFacingError):
    """The file has problems in its rows; `errors` lists every one, nothing was imported.
    `registered` says some rows are people already registered, which the organiser may
    choose to skip."""

    def __init__(self, errors: list[RowError], registered: bool = False) -> None:
        self.errors = sorted(errors, key=lambda e: e.line or 0)
        self.registered = registered
        n = len(self.errors)
        super().__init__(
            f"Nothing was imported: the file has {n} problem{'s' if n != 1 else ''}. "
            f"Fix {'them' if n != 1 else 'it'} and upload the file again."
        )


# --- reading a file -------------------------------------------------------------------------


def read_upload(upload) -> bytes:
    """The bytes of an uploaded file, refusing one over the limit without reading it all.

    The limit keeps a mistaken upload (a photo, a whole mailing list) from tying up the
    venue laptop; 2 MB holds far more than the 5000 players a tournament may have.
    """
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_BYTES:
        raise _too_big(size)
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _too_big(len(data))
    return data


def _too_big(size: int) -> UserFacingError:
    return UserFacingError(
        f"The file is {size / (1024 * 1024):.1f} MB; the limit is "
        f"{MAX_BYTES // (1024 * 1024)} MB. Split it into smaller files.",
        field="file",
    )


def decode(data: bytes) -> str:
    """The file's text, refusing anything but UTF-8 (a leading BOM is accepted and dropped).

    Excel's plain "CSV" saves in the local code page; guessing that would silently turn "é"
    into "Ã©" in names printed on score cards, so the organiser is asked to re-save instead.
    """
    if len(data) > MAX_BYTES:
        raise _too_big(len(data))
    if data.startswith(b"PK\x03\x04"):
        raise UserFacingError(
            f"This is a spreadsheet workbook (.xlsx), not a CSV file. {SAVE_AS_HINT}",
            field="file",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UserFacingError(
            f"The file is not saved as UTF-8 (the first character it cannot read is on line "
            f"{line}). {SAVE_AS_HINT}",
            field="file",
        ) from exc
    if "\x00" in text:  # UTF-16 without a BOM decodes as UTF-8 full of NULs
        raise UserFacingError(f"The file is not saved as UTF-8. {SAVE_AS_HINT}", field="file")
    if not text.strip():
        raise UserFacingError("The file is empty.", field="file")
    return text


def _delimiter(text: str) -> str:
    """A comma, unless the header has none and uses semicolons or tabs (European Excel)."""
    first = text.lstrip("\r\n").splitlines()[0] if text.strip() else ""
    if "," in first:
        return ","
    return max((";", "\t", ","), key=first.count)


def _records(text: str) -> list[tuple[int, list[str]]]:
    """Non-blank records with the file line each starts on (a quoted value may span lines)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text))
    records: list[tuple[int, list[str]]] = []
    last_line = 0
    try:
        for cells in reader:
            line, last_line = last_line + 1, reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            records.append((line, cells))
            if len(records) > MAX_ROWS + 1:  # + the header
                raise UserFacingError(
                    f"The file has more than {MAX_ROWS} rows. Split it into smaller files.",
                    field="file",
                )
    except csv.Error as exc:
        raise UserFacingError(
            f"Line {last_line + 1} cannot be read as CSV ({exc}). {SAVE_AS_HINT}", field="file"
        ) from exc
    return records


def _header_key(cell: str) -> str:
    return re.sub(r"[\s\-]+", "_", cell.strip().lower())


def _unneutralise(cell: str) -> str:
    """Undoes `neutralise`, so "+1 555 0100" survives an export and re-import unchanged."""
    if cell.startswith("'") and cell.lstrip("'").startswith(FORMULA_STARTS):
        return cell[1:]
    return cell


def _email_error(email: str) -> str | None:
    if len(email) > MAX_LENGTHS["email"]:
        return f"the e-mail address is longer than {MAX_LENGTHS['email']} characters"
    try:
        validate_email(email)
    except ValidationError:
        return f"{email!r} is not a valid e-mail address"
    return None


def parse_players_csv(data: bytes) -> ParsedFile:
    """Reads an upload and checks every row on its own, without touching the database.

    File-level refusals (not UTF-8, empty, too many rows, no name column) raise at once: no
    row can be trusted then. Row problems are collected, each with its file line number, so
    the organiser can fix them all in one go instead of one per upload.
    """
    records = _records(decode(data))
    if not records:
        raise UserFacingError("The file is empty.", field="file")
    header_line, header = records[0]
    if len(records) == 1:
        raise UserFacingError("The file has a header row but no players below it.", field="file")
    parsed = ParsedFile()
    errors = parsed.errors
    columns: dict[str, int] = {}
    status_index: int | None = None
    unknown: list[str] = []
    unnamed: list[int] = []
    for index, raw in enumerate(header):
        key = _header_key(raw)
        if not key:
            unnamed.append(index)
        elif key in HEADER_ALIASES:
            target = HEADER_ALIASES[key]
            if target in columns:
                errors.append(
                    RowError(
                        header_line,
                        f"the {COLUMN_LABELS[target]} column appears twice "
                        f"({header[columns[target]].strip()!r} and {raw.strip()!r}); keep one",
                    )
                )
            else:
                columns[target] = index
        elif key == STATUS_COLUMN:
            status_index = index
        elif key not in IGNORED_COLUMNS:
            unknown.append(raw.strip())
    if unknown:
        errors.append(
            RowError(
                header_line,
                f"unknown column{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(u) for u in unknown)}. The columns are "
                f"{', '.join(TEMPLATE_COLUMNS)}; the export's code, status, source, "
                f"checked_in_at and registered_at are accepted and ignored",
            )
        )
    if "name" not in columns:
        looks_like_data = any("@" in cell for cell in header)
        errors.append(
            RowError(
                header_line,
                "the required column 'name' is missing"
                + (
                    " (the first line must be the header row: " + ",".join(TEMPLATE_COLUMNS) + ")"
                    if looks_like_data or not columns
                    else ""
                ),
            )
        )
        raise ImportRefused(errors)

    seen_emails: dict[str, int] = {}
    unnamed_used: dict[int, int] = {}
    for line, cells in records[1:]:

        def value(index: int | None, cells: list[str] = cells) -> str:
            if index is None or index >= len(cells):
                return ""
            return _unneutralise(cells[index]).strip()

        for index in unnamed:
            if value(index):
                unnamed_used.setdefault(index, line)
        if any(cell.strip() for cell in cells[len(header) :]):
            parsed.player_rows += 1
            errors.append(
                RowError(
                    line,
                    f"has {len(cells)} values but the header has {len(header)} columns "
                    "(a value containing a comma must be in double quotes)",
                )
            )
            continue
        status = value(status_index).lower()
        if status == Player.Status.WITHDRAWN:
            parsed.skipped_withdrawn += 1
            continue
        parsed.player_rows += 1
        problems: list[str] = []
        if status not in ("", Player.Status.REGISTERED):
            problems.append(f"status {value(status_index)!r} is not registered or withdrawn")

        name = " ".join(value(columns["name"]).split())
        if not name:
            problems.append("name is missing")
        elif len(name) > MAX_LENGTHS["name"]:
            problems.append(f"name is longer than {MAX_LENGTHS['name']} characters")

        email = value(columns.get("email")).lower()
        if email:
            if problem := _email_error(email):
                problems.append(problem)
            elif email in seen_emails:
                problems.append(f"e-mail {email} is also on line {seen_emails[email]}")
            else:
                seen_emails[email] = line

        phone = value(columns.get("phone"))
        if len(phone) > MAX_LENGTHS["phone"]:
            problems.append(f"phone is longer than {MAX_LENGTHS['phone']} characters")

        group = " ".join(value(columns.get("group_name")).split())
        if len(group) > MAX_LENGTHS["group_name"]:
            problems.append(f"group is longer than {MAX_LENGTHS['group_name']} characters")

        costume_raw = value(columns.get("costume_contest"))
        costume = COSTUME_VALUES.get(costume_raw.lower())
        if costume is None:
            problems.append(
                f"costume {costume_raw!r} is not one of yes, no, 1, 0, true, false or blank"
            )

        errors.extend(RowError(line, problem) for problem in problems)
        if not problems:
            parsed.rows.append(
                ImportRow(
                    line,
                    Registrant(
                        name=name,
                        email=email,
                        phone=phone,
                        group_name=group,
                        costume_contest=bool(costume),
                    ),
                )
            )
    for index, line in unnamed_used.items():
        errors.append(
            RowError(
                header_line,
                f"column {index + 1} has no header but holds values (first on line {line}); "
                "name it or delete it",
            )
        )
    return parsed


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


# --- writing files --------------------------------------------------------------------------


def neutralise(value: str) -> str:
    """Prefixes an apostrophe to a cell a spreadsheet would evaluate (CSV formula injection).

    Names and groups come from the public registration form; "=HYPERLINK(...)" in a name
    must reach the organiser's Excel as text, not as a live link or command. A value that
    already starts with apostrophes before such a character gets one more, so the import can
    always take exactly one off and get back what was stored.
    """
    return f"'{value}" if value.lstrip("'").startswith(FORMULA_STARTS) else value


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


def to_csv(rows) -> str:
    """Rows as CSV text with a BOM; callers neutralise cells people typed (`neutralise`)."""
    out = io.StringIO()
    out.write("\ufeff")  # so Excel reads it as UTF-8
    csv.writer(out).writerows(rows)
    return out.getvalue()


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


def template_csv() -> str:
    """An empty import file with just the header, so organisers start from the right columns.

    No example row: a forgotten example would be imported as a real player.
    """
    return to_csv([list(TEMPLATE_COLUMNS)])


# Shown on the import page so organisers see the expected shape before uploading.
SAMPLE_ROWS: tuple[tuple[str, ...], ...] = (
    ("Carol Hill", "carol@example.org", "555-0100", "Dice Divas", "yes"),
    ("Dee Door", "", "", "Dice Divas", "no"),
    ("Sam Roll", "sam@example.org", "", "", ""),
)
