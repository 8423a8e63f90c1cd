"""Players to and from CSV: the files' shape, and reading an upload on its own.

Organisers keep guest lists in spreadsheets, admins take lists away. This module holds the
columns, the limits and the reading of a file without the database; saving it is
`csv_import` and writing the list out is `csv_export`.

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
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from tournaments.foundation.errors import UserFacingError

from ..foundation.csv_files import to_csv, unneutralise
from ..models import Player
from .registration import Registrant

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
            return unneutralise(cells[index]).strip()

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
