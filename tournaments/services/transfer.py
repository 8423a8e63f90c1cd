"""Moving one whole tournament between databases: a venue laptop's SQLite and a PostgreSQL
server, either way (`manage.py export_tournament` and `import_tournament`).

The file is readable JSON: a format name and version, the accounts and rule presets the event
refers to, and one list of rows per model (which models, in which order, and where ids hide
inside JSON: `transfer_graph`), each row its field names and values, with foreign
keys as the exporting database's ids. An import first checks every row (see
`transfer_checks`), then inserts every row anew, because the target may
hold other tournaments: each id is translated to the one its row gets there, also where ids sit
inside JSON (a draw's players, a roll-off's throws, an audit entry's target; see `JSON_IDS`).
Rows go in in the old ids' order, so the new ids keep that order and a stored draw, which
sorts player ids, still replays to the same pods. The import is one transaction: a bad row
anywhere leaves the database as it was.

Decisions a person may ask about:

- Which models travel is found from the model graph (every model with a chain of foreign keys
  to Tournament) and must equal `MODELS`: a model added later makes the export refuse, rather
  than silently leave its rows behind, until it is listed here and its JSON fields classified.
- Accounts are matched by username, case-insensitively as the site's account form does. A
  missing account is created with its password hash, so staff log in with the password they
  know; an existing account is used as it is and its password is never changed. Site-wide
  powers (superuser, Django admin, "may create tournaments") do not travel.
- A built-in preset is matched by its slug; an organiser's own preset travels as a copy (an
  identical preset with the same slug is reused, so importing twice does not make two).
- Printouts travel as rows without their PDFs, which stay on the old machine and expire within
  a day anyway: the file name is left empty, so the new site offers no broken download. A
  name in the file is still checked (the format `new_file_name` makes, no other printout's
  file): anything else is damage, or an attempt to reach another event's PDF. Expense
  receipts stay behind the same way: the ledger entry travels with its receipt name emptied.
- An audit entry whose target row no longer exists (a roll-off thrown again for a changed tie)
  keeps its action, summary and target type but not the id, which would name an unrelated row.
- The phones' write receipts (idempotency keys) and sync times stay behind: they answer a
  phone's retry on the server it sent to, and a copy imported beside the original would
  repeat its keys, which are unique.
- Timestamps and seeds are kept exactly; `auto_now` fields are written back after the insert.
  The draw secret and the list of draws travel too, so a moved event's draws still check
  out against the fingerprint shown before it moved.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

from ..models import Printout, RulePreset, Tournament, UserProfile
from ..models.printouts import FILE_NAME
from .presets import unique_preset_slug
from .transfer_checks import TransferError, check_fields, check_rows, describe, read_json
from .transfer_graph import (
    ACCOUNT,
    ACCOUNT_FIELDS,
    ACCOUNT_KEYS,
    LEDGER,
    MODELS,
    PRESET,
    PRINTOUT,
    STAY_BEHIND,
    TOURNAMENT,
    Relabel,
    foreign_keys,
    insert_order,
    label_of,
    owner_path,
    scoped_models,
)

FORMAT = "bunco-tournament"
# 2: the draw list and secret, invitations, staff's last-bunco marks, and the presets' sets,
# head-table bell and card verification fields. A version-1 file lacks them, so it is refused
# with a clear message.
# 3: the final's order roll is roll-off rows (kind "order"), not `FinalTable.order_faces`. A
# version-2 file is refused by name rather than converted: converting would be a second copy
# of migration 0016's reading of the stored dice; import it on the site version that made it
# and let the migration convert it there.
# 4: a prize award's note is data with player ids (`why`), not a sentence (`note`); a version-3
# file is refused by name for the same reason, migration 0025 being the one reading of notes.
# 5: the tournament's change counter (the room's live pages), moved with the event so it
# keeps counting up.
VERSION = 5

# --- export -------------------------------------------------------------------------------------


def _encode(f: models.Field, obj: models.Model) -> Any:
    value = f.value_from_object(obj)
    if isinstance(f, models.FileField):
        return value.name or ""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()  # a datetime is a date: full microseconds, with its offset
    if isinstance(value, Decimal):
        return str(value)
    return value


def _row(obj: models.Model, names: Iterable[str] | None = None) -> dict[str, Any]:
    fields = obj._meta.concrete_fields
    if names is not None:
        fields = [obj._meta.get_field(name) for name in names]
    return {f.name: _encode(f, obj) for f in fields}


def _check_models() -> None:
    found = scoped_models()
    if found != MODELS:
        missing = ", ".join(sorted(found - MODELS)) or "none"
        extra = ", ".join(sorted(MODELS - found)) or "none"
        raise TransferError(
            f"The models linked to a tournament changed (new: {missing}; gone: {extra}); "
            "update tournaments/services/transfer.py before moving an event."
        )


def export_tournament(tournament: Tournament) -> dict[str, Any]:
    """The whole tournament as the JSON-ready structure `import_tournament` reads.

    Read in one transaction that sees one moment on PostgreSQL too (repeatable read), so an
    export taken while staff are still entering results never holds a credit without its
    result. (SQLite's transactions see one moment already.)
    """
    _check_models()
    fresh = not connection.in_atomic_block
    with transaction.atomic():
        if fresh and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return _export(tournament)


def _export(tournament: Tournament) -> dict[str, Any]:
    rows: dict[str, list[dict]] = {}
    for model in insert_order():
        lookup = owner_path(model)[2]
        objs = model._base_manager.filter(**{lookup: tournament.pk}).order_by("pk")
        rows[label_of(model)] = [_row(obj) for obj in objs]
    for printout in rows["tournaments.printout"]:
        printout["file"] = ""  # the PDFs stay behind (see the module's docstring)
    for entry in rows[LEDGER]:
        entry["receipt"] = ""  # receipts stay behind like the PDFs; the entry travels
    presets = _presets_of(tournament.preset)
    users: set[int] = {p["owner"] for p in presets if p["owner"] is not None}
    for model in insert_order():
        links = [f.name for f in foreign_keys(model) if f.related_model is get_user_model()]
        users |= {row[name] for row in rows[label_of(model)] for name in links if row[name]}
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "tournament": tournament.slug,
        "accounts": _accounts(users),
        "presets": presets,
        "models": rows,
    }


def _presets_of(preset: RulePreset) -> list[dict]:
    """The preset and the presets it was copied from, oldest first."""
    chain = []
    while preset is not None and preset not in chain:
        chain.insert(0, preset)
        preset = preset.based_on
    return [_row(p) for p in chain]


def _accounts(ids: set[int]) -> list[dict]:
    users = get_user_model()._base_manager.filter(pk__in=ids).order_by("pk")
    profiles = dict(
        UserProfile.objects.filter(user__in=ids).values_list("user", "must_change_password")
    )
    return [
        {"id": u.pk, **_row(u, ACCOUNT_FIELDS), "must_change_password": profiles.get(u.pk)}
        for u in users
    ]


def write_export(export: dict, path: Path) -> None:
    """Writes through a temporary file, so a failed write never leaves half an export."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(export, handle, indent=1, ensure_ascii=False)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- import -------------------------------------------------------------------------------------


def read_export(path: Path) -> dict[str, Any]:
    """The file's content after the checks that need no database; clear errors otherwise."""
    data = read_json(Path(path))
    check_format(data)
    return data


def check_format(data: Any) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TransferError(f'This is not a tournament export (no "format": "{FORMAT}").')
    if data.get("version") != VERSION:
        raise TransferError(
            f"This export has format version {data.get('version')!r}; this site reads "
            f"version {VERSION}. Import it with the site version that made it."
        )
    tables = data.get("models")
    if not isinstance(tables, dict):
        raise TransferError('The export has no "models".')
    if set(tables) != MODELS - STAY_BEHIND:
        missing = ", ".join(sorted(MODELS - STAY_BEHIND - set(tables))) or "none"
        unknown = ", ".join(sorted(set(tables) - (MODELS - STAY_BEHIND))) or "none"
        raise TransferError(
            f"The export's tables do not match this site's (missing: {missing}; unknown: "
            f"{unknown}); it was made by another version of the site."
        )
    for label, rows in [("accounts", data.get("accounts")), ("presets", data.get("presets"))]:
        _check_rows(label, rows)
    for label, rows in tables.items():
        _check_rows(label, rows)
    if len(tables[TOURNAMENT]) != 1:
        raise TransferError("The export must hold exactly one tournament.")


def _check_rows(label: str, rows: Any) -> None:
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise TransferError(f"The export's {label} is not a list of rows.")
    ids = [r.get("id") for r in rows]
    if not all(type(i) is int for i in ids) or len(set(ids)) != len(ids):
        raise TransferError(f"The export's {label} rows need distinct whole-number ids.")


@dataclass
class ImportReport:
    tournament: Tournament | None = None
    rows: int = 0
    accounts_created: list[str] = field(default_factory=list)
    accounts_matched: list[str] = field(default_factory=list)
    presets_created: list[str] = field(default_factory=list)
    printouts: int = 0


def import_tournament(data: dict[str, Any], *, slug: str | None = None) -> ImportReport:
    """Checks every row of an export, then inserts its tournament (under `slug` if given) in
    one transaction."""
    check_format(data)
    checked = _check(data, slug)
    try:
        with transaction.atomic():
            return _Importer(data, checked).run()
    except DatabaseError as exc:
        raise TransferError(f"The export does not fit this database: {exc}") from exc
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # A row of the wrong shape, found while inserting; the transaction is rolled back.
        raise TransferError(f"The export is damaged: {type(exc).__name__} {exc}.") from exc


def _free_slug(slug: Any) -> str:
    try:
        validate_slug(slug)
    except ValidationError as exc:
        raise TransferError(f"{slug!r:.40} is not a valid slug: {' '.join(exc.messages)}") from exc
    if len(slug) > Tournament._meta.get_field("slug").max_length:
        raise TransferError(f"The slug {slug!r} is too long.")
    if Tournament.objects.filter(slug=slug).exists():
        raise TransferError(
            f"A tournament with the slug {slug!r} exists already; "
            "import under another one with --slug."
        )
    return slug


def _check(data: dict[str, Any], slug: str | None) -> dict[str, list[dict]]:
    """Every row against its model, and every reference against the file, before anything is
    written. Returns the rows with their values as Python values, by label (the tournament's
    under the slug it gets), so the insert does not convert them again. Never writes."""
    tournament = data["models"][TOURNAMENT][0]
    slug = _free_slug(slug or tournament.get("slug"))
    present = {label: {row["id"] for row in rows} for label, rows in data["models"].items()}
    present[ACCOUNT] = {row["id"] for row in data["accounts"]}
    present[PRESET] = {row["id"] for row in data["presets"]}
    relabel = Relabel(data, lambda label, old: old if old in present.get(label, ()) else None)
    checked = {ACCOUNT: _check_accounts(data["accounts"])}
    for row in data["presets"]:
        if row.get("builtin") and not RulePreset.objects.filter(slug=row.get("slug"), builtin=True):
            raise TransferError(
                f"This site has no built-in preset {row.get('slug')!r:.40}; "
                "run `manage.py migrate` first."
            )
    checked[PRESET] = check_rows(
        RulePreset, [relabel.row(RulePreset, row) for row in data["presets"]]
    )
    for model in insert_order():
        rows = data["models"][label_of(model)]
        if model is Tournament:
            rows = [{**tournament, "slug": slug}]
        checked[label_of(model)] = check_rows(model, [relabel.row(model, row) for row in rows])
    _check_printout_files(data["models"][PRINTOUT])
    return checked


def _check_accounts(rows: list[dict]) -> list[dict]:
    User = get_user_model()
    fields = [User._meta.get_field(name) for name in ACCOUNT_FIELDS]
    checked = []
    for row in rows:
        where = describe(User, row, noun="account")
        if set(row) != ACCOUNT_KEYS:
            extra = ", ".join(sorted(set(row) - ACCOUNT_KEYS)) or "none"
            missing = ", ".join(sorted(ACCOUNT_KEYS - set(row))) or "none"
            raise TransferError(f"{where}: unknown fields {extra}; missing fields {missing}.")
        if not (isinstance(row["username"], str) and row["username"].strip()):
            raise TransferError(f"{where}, username: {row['username']!r:.40} is empty.")
        if row["must_change_password"] not in (True, False, None):
            shown = f"{row['must_change_password']!r:.40}"
            raise TransferError(f"{where}, must_change_password: {shown} is not true or false.")
        checked.append({**row, **check_fields(fields, row, lambda where=where: where)})
    return checked


def _check_printout_files(rows: list[dict]) -> None:
    """A name the file gives a printout must be one the site could have made, and not another
    printout's: the imported row would serve that PDF, and delete it when it expires."""
    named = [row for row in rows if row["file"]]
    field = Printout._meta.get_field("file")
    taken = set(
        Printout.objects.filter(file__in=[row["file"] for row in named]).values_list(
            "file", flat=True
        )
    )
    seen: set[str] = set()
    for row in named:
        where, name = describe(Printout, row), row["file"]
        if not FILE_NAME.fullmatch(name):
            raise TransferError(
                f"{where}, file: {name!r:.60} is not a file name the site makes for a printout "
                "(the printouts folder, a random name, .pdf)."
            )
        if name in taken or name in seen or field.storage.exists(name):
            raise TransferError(f"{where}, file: {name!r} is another printout's file.")
        seen.add(name)


def _build(model: type[models.Model], row: dict) -> models.Model:
    """An unsaved instance from a checked, relabelled row."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    return model(**{f.attname: row[f.name] for f in fields})


class _Importer:
    """Inserts the rows `_check` returned, translating ids as the rows they name get theirs."""

    def __init__(self, data: dict, checked: dict[str, list[dict]]) -> None:
        self.rows = checked
        self.ids: dict[str, dict[int, int]] = {}
        self.relabel = Relabel(data, lambda label, old: self.ids.get(label, {}).get(old))

    def run(self) -> ImportReport:
        report = ImportReport()
        self._accounts(report)
        self._presets(report)
        for model in insert_order():
            report.rows += self._insert(model)
        report.tournament = Tournament.objects.get(pk=next(iter(self.ids[TOURNAMENT].values())))
        report.printouts = len(self.rows[PRINTOUT])
        return report

    def _accounts(self, report: ImportReport) -> None:
        User = get_user_model()
        mine = self.ids.setdefault(ACCOUNT, {})
        for row in self.rows[ACCOUNT]:
            username = row["username"]
            same = User._base_manager.filter(username__iexact=username)
            user = same.filter(username=username).first() or same.first()
            if user is not None:
                report.accounts_matched.append(user.get_username())
            else:
                user = User(**{name: row[name] for name in ACCOUNT_FIELDS})
                user.save()
                if row["must_change_password"] is not None:
                    UserProfile.objects.create(
                        user=user, must_change_password=row["must_change_password"]
                    )
                report.accounts_created.append(username)
            mine[row["id"]] = user.pk

    def _presets(self, report: ImportReport) -> None:
        mine = self.ids.setdefault(PRESET, {})
        for row in self.rows[PRESET]:
            if row["builtin"]:
                preset = RulePreset.objects.get(slug=row["slug"], builtin=True)
            else:
                preset = _build(RulePreset, self.relabel.row(RulePreset, row))
                same = RulePreset.objects.filter(slug=preset.slug, builtin=False).first()
                compared = ("label", "description", *RulePreset.RULE_FIELDS)
                if same is not None and all(
                    getattr(same, n) == getattr(preset, n) for n in compared
                ):
                    preset = same
                else:
                    preset.slug = unique_preset_slug(preset.slug)
                    preset.save()
                    report.presets_created.append(preset.slug)
            mine[row["id"]] = preset.pk

    def _insert(self, model: type[models.Model]) -> int:
        """Inserts one model's rows in their old order; fixes self-references and
        automatic timestamps once every row has its new id."""
        label = label_of(model)
        rows = sorted(self.rows[label], key=lambda r: r["id"])
        own = [f for f in foreign_keys(model) if f.related_model is model]
        stamped = [
            f
            for f in model._meta.concrete_fields
            if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
        ]
        objs = []
        for row in rows:
            relabelled = self.relabel.row(model, {**row, **{f.name: None for f in own}})
            if model is Printout:
                relabelled["file"] = ""  # the PDF never travels (see the module's docstring)
            if label == LEDGER:
                relabelled["receipt"] = ""
            objs.append(_build(model, relabelled))
        model._base_manager.bulk_create(objs, batch_size=500)
        mine = self.ids.setdefault(label, {})
        mine.update((row["id"], obj.pk) for row, obj in zip(rows, objs, strict=True))
        for row, obj in zip(rows, objs, strict=True):
            for f in own:
                if row[f.name] is not None:
                    new = self.relabel.id(label, row[f.name], describe(model, row))
                    setattr(obj, f.attname, new)
            for f in stamped:
                setattr(obj, f.attname, row[f.name])
        if objs and (own or stamped):
            model._base_manager.bulk_update(objs, [f.name for f in own + stamped], batch_size=500)
        return len(objs)
