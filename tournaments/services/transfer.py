"""Moving one whole tournament between databases: a venue laptop's SQLite and a PostgreSQL
server, either way (`manage.py export_tournament` and `import_tournament`).

The file is readable JSON: a format name and version, the accounts and rule presets the event
refers to, and one list of rows per model, each row its field names and values, with foreign
keys as the exporting database's ids. An import inserts every row anew, because the target may
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
  a day anyway: the file name is left empty, so the new site offers no broken download.
- An audit entry whose target row no longer exists (a roll-off thrown again for a changed tie)
  keeps its action, summary and target type but not the id, which would name an unrelated row.
- Timestamps and seeds are kept exactly; `auto_now` fields are written back after the insert.
  The draw secret and the list of draws travel too, so a moved event's draws still check
  out against the fingerprint shown before it moved.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

from ..models import RulePreset, Tournament, UserProfile
from .errors import UserFacingError
from .presets import unique_preset_slug

FORMAT = "bunco-tournament"
VERSION = 1

TOURNAMENT = "tournaments.tournament"
PLAYER = "tournaments.player"
AWARD = "tournaments.prizeaward"
CATEGORY = "tournaments.prizecategory"
PRIZE_ROLL_OFF = "tournaments.prizerolloff"
AUDIT = "tournaments.auditentry"
ACCOUNT = "auth.user"
PRESET = "tournaments.rulepreset"

# Every model with a foreign-key path to Tournament; `scoped_models()` finds them from _meta.
MODELS = frozenset(
    {
        TOURNAMENT,
        "tournaments.tournamentrole",
        "tournaments.invitation",
        PLAYER,
        "tournaments.stage",
        "tournaments.pod",
        "tournaments.pod_staff",
        "tournaments.round",
        "tournaments.seat",
        "tournaments.rosterchange",
        "tournaments.rolloffrecord",
        "tournaments.qualifier",
        "tournaments.finaltable",
        "tournaments.finalseat",
        "tournaments.finalthrow",
        CATEGORY,
        "tournaments.prizenomination",
        "tournaments.travelingpass",
        PRIZE_ROLL_OFF,
        AWARD,
        "tournaments.payout",
        "tournaments.printout",
        "tournaments.draw",
        AUDIT,
        "scoring.tableresult",
        "scoring.rollcredit",
        "scoring.cardentry",
    }
)
ACCOUNT_FIELDS = (
    "username",
    "password",
    "first_name",
    "last_name",
    "email",
    "is_active",
    "date_joined",
    "last_login",
)
# Audit entries' data names ids under these keys (see `audit.record`'s callers).
AUDIT_DATA_IDS = {"player": PLAYER, "players": PLAYER, "award": AWARD}
# JSON fields that hold no ids, so they travel as they are.
PLAIN_JSON = frozenset(
    {
        ("tournaments.stage", "rules"),
        ("tournaments.rolloffrecord", "faces"),
        ("tournaments.finaltable", "order_faces"),
        ("tournaments.finalthrow", "dice"),
        (CATEGORY, "amounts_cents"),
        (PRIZE_ROLL_OFF, "faces"),
        ("scoring.tableresult", "tie_break"),
        ("scoring.cardentry", "rounds"),
    }
)


class TransferError(UserFacingError):
    """The file cannot be exported or imported as it is; the message says why."""


def _foreign_keys(model: type[models.Model]) -> list[models.ForeignKey]:
    return [f for f in model._meta.concrete_fields if isinstance(f, models.ForeignKey)]


def _label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def scoped_models() -> set[str]:
    """Every model (many-to-many tables included) with a chain of foreign keys to Tournament."""
    every = apps.get_models(include_auto_created=True)
    scoped = {Tournament}
    grew = True
    while grew:
        grew = False
        for model in every:
            if model not in scoped and any(f.related_model in scoped for f in _foreign_keys(model)):
                scoped.add(model)
                grew = True
    return {_label(m) for m in scoped}


def _owner_path(model: type[models.Model]) -> tuple[bool, int, str]:
    """The lookup from a model to its tournament: foreign keys that cannot be empty first,
    then the shortest chain (an audit entry's tournament may be empty; it has no other)."""
    if model is Tournament:
        return False, 0, "pk"
    best = None
    for f in _foreign_keys(model):
        if f.related_model is model or _label(f.related_model) not in MODELS:
            continue
        nullable, hops, rest = _owner_path(f.related_model)
        path = f.name if rest == "pk" else f"{f.name}__{rest}"
        candidate = (nullable or f.null, hops + 1, path)
        best = candidate if best is None else min(best, candidate)
    return best


# --- ids inside JSON ----------------------------------------------------------------------------


class Relabel:
    """Rewrites every reference in an export's rows with `new(label, old_id)`: for an import
    the ids the rows got in the target database, for a comparison each row's position.

    `new` returns None for an id it does not know; a reference that must exist then stops the
    import with the row that holds it.
    """

    def __init__(self, export: dict, new: Callable[[str, int], Any]) -> None:
        self.new = new
        rows = export["models"]
        self.scopes = {row.get("key"): row.get("scope") for row in rows[CATEGORY]}
        self.categories = {row["id"]: row.get("scope") for row in rows[CATEGORY]}
        self.prize_roll_offs = {row["id"]: row.get("key") for row in rows[PRIZE_ROLL_OFF]}

    def id(self, label: str, old: Any, where: str) -> Any:
        if not isinstance(old, int) or isinstance(old, bool):
            raise TransferError(f"{where}: {old!r} is not an id.")
        new = self.new(label, old)
        if new is None:
            raise TransferError(f"{where}: {label} {old} is not in the file.")
        return new

    def players(self, ids: Any, where: str) -> list:
        if not isinstance(ids, list):
            raise TransferError(f"{where}: expected a list of player ids, got {ids!r}.")
        return [self.id(PLAYER, p, where) for p in ids]

    def tied(self, key: str, ids: Any, where: str) -> list:
        """A prize tie's players, or pod numbers (which stay) for a best-pod prize."""
        if self.scopes.get(str(key).split(":")[0]) == "pod_group":
            return ids
        return self.players(ids, where)

    def row(self, model: type[models.Model], row: dict) -> dict:
        """The row with its foreign keys, JSON ids and audit target translated; not its id."""
        label = _label(model)
        where = f"{label} row {row.get('id')}"
        out = dict(row)
        for f in _foreign_keys(model):
            if out.get(f.name) is not None:
                out[f.name] = self.id(_target(f), out[f.name], f"{where}, {f.name}")
        for name, rewrite in JSON_IDS.get(label, {}).items():
            if out.get(name) is not None:
                out[name] = rewrite(self, row[name], row, f"{where}, {name}")
        if label == AUDIT and row.get("target_id"):
            target = row["target_type"]
            known = target in MODELS or target in (ACCOUNT, PRESET)
            new = self.new(target, int(row["target_id"])) if known else None
            out["target_id"] = "" if new is None else str(new)
        return out


def _target(f: models.ForeignKey) -> str:
    label = _label(f.related_model)
    if label in MODELS or label == PRESET:
        return label
    if f.related_model is get_user_model():
        return ACCOUNT
    raise TransferError(f"{_label(f.model)}.{f.name} refers to {label}, which cannot be moved.")


def _draw_input(rl: Relabel, value: dict, row: dict, where: str) -> dict:
    groups = value.get("groups") or {}
    return {
        **value,
        "players": rl.players(value["players"], where),
        "groups": {str(rl.id(PLAYER, int(k), where)): g for k, g in groups.items()},
    }


def _throws(rl: Relabel, value: list, row: dict, where: str) -> list:
    """A roll-off's throws: one mapping of player id (as text) to face per throw."""
    return [{str(rl.id(PLAYER, int(k), where)): face for k, face in t.items()} for t in value]


def _nominees(rl: Relabel, value: list, row: dict, where: str) -> list:
    if rl.categories.get(row["category"]) == "pod_group":
        return value
    return rl.players(value, where)


def _audit_data(rl: Relabel, value: dict, row: dict, where: str) -> dict:
    out = dict(value)
    for key, label in AUDIT_DATA_IDS.items():
        if isinstance(out.get(key), list):
            out[key] = [rl.id(label, old, where) for old in out[key]]
        elif out.get(key) is not None:
            out[key] = rl.id(label, out[key], where)
    if isinstance(out.get("replaces"), dict) and row["target_type"] == PRIZE_ROLL_OFF:
        key = rl.prize_roll_offs.get(int(row["target_id"] or 0), "")
        replaced = out["replaces"]
        out["replaces"] = {**replaced, "players": rl.tied(key, replaced["players"], where)}
    return out


def _player_ids(rl: Relabel, value: list, row: dict, where: str) -> list:
    return rl.players(value, where)


def _tied_players(rl: Relabel, value: list, row: dict, where: str) -> list:
    return rl.tied(row["key"], value, where)


# JSON fields that hold ids, by model: how to translate them. With PLAIN_JSON, every JSON field
# of the moved models is listed (a test checks it), so a new one must be thought about.
JSON_IDS: dict[str, dict[str, Callable[[Relabel, Any, dict, str], Any]]] = {
    "tournaments.stage": {"draw_input": _draw_input},
    "tournaments.rolloffrecord": {
        "players": _player_ids,
        "winners": _player_ids,
        "rounds": _throws,
    },
    "tournaments.finaltable": {"order": _player_ids},
    "tournaments.finalseat": {"pool": _player_ids},
    "tournaments.prizenomination": {"winners": _nominees},
    PRIZE_ROLL_OFF: {"players": _tied_players},
    AUDIT: {"data": _audit_data},
}
# Models whose JSON names rows of these models, which must therefore be inserted first.
JSON_NEEDS = {
    "tournaments.stage": {PLAYER},
    "tournaments.rolloffrecord": {PLAYER},
    "tournaments.finaltable": {PLAYER},
    "tournaments.finalseat": {PLAYER},
    "tournaments.prizenomination": {PLAYER, CATEGORY},
    PRIZE_ROLL_OFF: {PLAYER, CATEGORY},
    AUDIT: MODELS - {AUDIT},  # its target may be any row
}


def insert_order() -> list[type[models.Model]]:
    """The moved models, each after every model its rows refer to."""
    by_label = {_label(m): m for m in apps.get_models(include_auto_created=True)}
    needs = {
        label: {
            _label(f.related_model)
            for f in _foreign_keys(by_label[label])
            if _label(f.related_model) in MODELS and f.related_model is not by_label[label]
        }
        | JSON_NEEDS.get(label, set())
        for label in MODELS
    }
    order: list[str] = []
    while len(order) < len(MODELS):
        ready = sorted(label for label in MODELS - set(order) if needs[label] <= set(order))
        if not ready:
            raise TransferError("The moved models refer to each other in a circle.")
        order += ready
    return [by_label[label] for label in order]


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
        lookup = _owner_path(model)[2]
        objs = model._base_manager.filter(**{lookup: tournament.pk}).order_by("pk")
        rows[_label(model)] = [_row(obj) for obj in objs]
    for printout in rows["tournaments.printout"]:
        printout["file"] = ""  # the PDFs stay behind (see the module's docstring)
    presets = _presets_of(tournament.preset)
    users: set[int] = {p["owner"] for p in presets if p["owner"] is not None}
    for model in insert_order():
        links = [f.name for f in _foreign_keys(model) if f.related_model is get_user_model()]
        users |= {row[name] for row in rows[_label(model)] for name in links if row[name]}
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
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise TransferError(f"Cannot read {path}: {exc.strerror}.") from exc
    except UnicodeDecodeError as exc:
        raise TransferError(f"{path} is not a tournament export: it is not UTF-8 text.") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransferError(
            f"{path} is not a tournament export, or is cut short: invalid JSON at line "
            f"{exc.lineno}, column {exc.colno} ({exc.msg})."
        ) from exc
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
    if set(tables) != MODELS:
        missing = ", ".join(sorted(MODELS - set(tables))) or "none"
        unknown = ", ".join(sorted(set(tables) - MODELS)) or "none"
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
    """Inserts an export's tournament (under `slug` if given) in one transaction."""
    check_format(data)
    try:
        with transaction.atomic():
            return _Importer(data).run(slug)
    except DatabaseError as exc:
        raise TransferError(f"The export does not fit this database: {exc}") from exc
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # A row of the wrong shape, found while inserting; the transaction is rolled back.
        raise TransferError(f"The export is damaged: {type(exc).__name__} {exc}.") from exc


def _decode(f: models.Field, value: Any, where: str) -> Any:
    if value is None or isinstance(f, models.JSONField | models.FileField):
        return value
    try:
        return f.to_python(value)
    except ValidationError as exc:
        raise TransferError(f"{where}, {f.name}: {' '.join(exc.messages)}") from exc


def _build(model: type[models.Model], row: dict, where: str) -> models.Model:
    """An unsaved instance from a relabelled row: every field the model has, no other."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    expected = {f.name for f in model._meta.concrete_fields}
    if set(row) != expected:
        extra = ", ".join(sorted(set(row) - expected)) or "none"
        missing = ", ".join(sorted(expected - set(row))) or "none"
        raise TransferError(f"{where}: unknown fields {extra}; missing fields {missing}.")
    return model(**{f.attname: _decode(f, row[f.name], where) for f in fields})


class _Importer:
    def __init__(self, data: dict) -> None:
        self.data = data
        self.ids: dict[str, dict[int, int]] = {}
        self.relabel = Relabel(data, lambda label, old: self.ids.get(label, {}).get(old))

    def run(self, slug: str | None) -> ImportReport:
        slug = self._free_slug(slug or self.data["models"][TOURNAMENT][0].get("slug"))
        report = ImportReport()
        self._accounts(report)
        self._presets(report)
        for model in insert_order():
            report.rows += self._insert(model, slug if model is Tournament else None)
        report.tournament = Tournament.objects.get(slug=slug)
        report.printouts = len(self.data["models"]["tournaments.printout"])
        return report

    def _free_slug(self, slug: Any) -> str:
        try:
            validate_slug(slug)
        except ValidationError as exc:
            raise TransferError(f"{slug!r} is not a valid slug: {' '.join(exc.messages)}") from exc
        if len(slug) > Tournament._meta.get_field("slug").max_length:
            raise TransferError(f"The slug {slug!r} is too long.")
        if Tournament.objects.filter(slug=slug).exists():
            raise TransferError(
                f"A tournament with the slug {slug!r} exists already; "
                "import under another one with --slug."
            )
        return slug

    def _accounts(self, report: ImportReport) -> None:
        User = get_user_model()
        mine = self.ids.setdefault(ACCOUNT, {})
        for row in self.data["accounts"]:
            where = f"account {row.get('id')}"
            username = row.get("username")
            if not isinstance(username, str) or not username.strip():
                raise TransferError(f"{where} has no username.")
            same = User._base_manager.filter(username__iexact=username)
            user = same.filter(username=username).first() or same.first()
            if user is not None:
                report.accounts_matched.append(user.get_username())
            else:
                user = User(
                    **{
                        name: _decode(User._meta.get_field(name), row.get(name), where)
                        for name in ACCOUNT_FIELDS
                    }
                )
                user.save()
                if row.get("must_change_password") is not None:
                    UserProfile.objects.create(
                        user=user, must_change_password=bool(row["must_change_password"])
                    )
                report.accounts_created.append(username)
            mine[row["id"]] = user.pk

    def _presets(self, report: ImportReport) -> None:
        mine = self.ids.setdefault(PRESET, {})
        for row in self.data["presets"]:
            where = f"preset {row.get('id')}"
            if row.get("builtin"):
                preset = RulePreset.objects.filter(slug=row.get("slug"), builtin=True).first()
                if preset is None:
                    raise TransferError(
                        f"This site has no built-in preset {row.get('slug')!r}; "
                        "run `manage.py migrate` first."
                    )
            else:
                preset = _build(RulePreset, self.relabel.row(RulePreset, row), where)
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

    def _insert(self, model: type[models.Model], slug: str | None) -> int:
        """Inserts one model's rows in their old order; fixes self-references and
        automatic timestamps once every row has its new id."""
        label = _label(model)
        rows = sorted(self.data["models"][label], key=lambda r: r["id"])
        own = [f for f in _foreign_keys(model) if f.related_model is model]
        stamped = [
            f
            for f in model._meta.concrete_fields
            if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
        ]
        objs = []
        for row in rows:
            where = f"{label} row {row['id']}"
            relabelled = self.relabel.row(model, {**row, **{f.name: None for f in own}})
            if slug is not None:
                relabelled["slug"] = slug
            objs.append(_build(model, relabelled, where))
        model._base_manager.bulk_create(objs, batch_size=500)
        mine = self.ids.setdefault(label, {})
        mine.update((row["id"], obj.pk) for row, obj in zip(rows, objs, strict=True))
        for row, obj in zip(rows, objs, strict=True):
            where = f"{label} row {row['id']}"
            for f in own:
                if row.get(f.name) is not None:
                    setattr(obj, f.attname, self.relabel.id(label, row[f.name], where))
            for f in stamped:
                setattr(obj, f.attname, _decode(f, row[f.name], where))
        if objs and (own or stamped):
            model._base_manager.bulk_update(objs, [f.name for f in own + stamped], batch_size=500)
        return len(objs)
