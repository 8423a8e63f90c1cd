"""What an import file must pass before anything is written (`transfer.import_tournament`).

An export is readable JSON, so it can be damaged by hand, by a copy cut short or on purpose.
A row the site's own pages could never make (stage rules the engine refuses, an amount of
"abc", nesting that overflows the parser) would otherwise be stored and break pages later.
So the file is limited in size and nesting depth before it is parsed, and every value goes
through its model field's own validation, the model's `clean()` (where the preset form's and
the engines' rules live), and the model's constraints, with one message naming the row, the
field and the problem.

Decisions a person may ask about:

- Types are as strict as the exporter writes them: "12" is not a whole number and 1 is not
  yes, though Django's `to_python` would quietly convert both; quiet conversion is how a
  damaged file would slip through.
- Whole numbers must fit PostgreSQL's columns on every database, so a file a SQLite laptop
  accepts (SQLite stores any 64-bit number) is one the server accepts too.
- An empty value is accepted where the site itself writes one (no winners yet, an account
  without a password): `blank=False` is about forms. An empty choice is still refused.
- Constraints are checked over the file's rows alone, since every imported row is new and
  belongs to the new tournament, in SQL's three-valued logic: a CHECK fails only when it is
  false, a conditional UNIQUE applies only where its condition is true.
"""

from __future__ import annotations

import functools
import json
import operator
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations
from django.utils import timezone

from tournaments.foundation.errors import UserFacingError

# A 600-player event exports to about 6 MB; the largest event the site allows (5,000) to ~55 MB.
MAX_BYTES = 128 * 2**20
# An export nests 8 levels deep (file, tables, rows, row, a JSON field's own levels).
MAX_DEPTH = 20

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_RANGES = BaseDatabaseOperations.integer_field_ranges
_MISSING = object()
_COMPARE = {
    "exact": operator.eq,
    "lt": operator.lt,
    "lte": operator.le,
    "gt": operator.gt,
    "gte": operator.ge,
    "in": lambda value, choices: value in choices,
}


class TransferError(UserFacingError):
    """The file cannot be exported or imported as it is; the message says why."""


# --- the file -----------------------------------------------------------------------------------


def read_json(path: Path) -> Any:
    """The file's JSON, read only if it is small and shallow enough to be an export."""
    try:
        with open(path, "rb") as handle:
            _check_size(path, os.fstat(handle.fileno()).st_size)
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise TransferError(f"Cannot read {path}: {exc.strerror}.") from exc
    _check_size(path, len(raw))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TransferError(f"{path} is not a tournament export: it is not UTF-8 text.") from exc
    _check_depth(path, text)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise TransferError(
            f"{path} is not a tournament export, or is cut short: invalid JSON at line "
            f"{exc.lineno}, column {exc.colno} ({exc.msg})."
        ) from exc
    except ValueError as exc:  # the one other refusal: Python's limit on an integer's digits
        raise TransferError(
            f"{path} is not a tournament export: it holds a number of more than "
            f"{sys.get_int_max_str_digits():,} digits."
        ) from exc
    except RecursionError as exc:  # `_check_depth` should have stopped this; never a traceback
        raise TransferError(f"{path} is not a tournament export: it is nested too deep.") from exc


def _check_size(path: Path, size: int) -> None:
    if size > MAX_BYTES:
        raise TransferError(
            f"{path} is not a tournament export: it is larger than {MAX_BYTES // 2**20} MB, "
            "twice the export of the largest event the site allows."
        )


def _check_depth(path: Path, text: str) -> None:
    """Counts brackets outside strings. A JSON string holds no raw line break, so the text
    without its strings keeps every bracket on its line, for the message."""
    bare = _STRING.sub('""', text)
    depth = 0
    for bracket in _BRACKET.finditer(bare):
        if bracket.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = bare.count("\n", 0, bracket.start()) + 1
                raise TransferError(
                    f"{path} is not a tournament export: at line {line} it is nested more "
                    f"than {MAX_DEPTH} levels deep."
                )
        else:
            depth -= 1


def _no_constant(name: str) -> None:
    raise TransferError(f"The export holds {name}, which is not a number.")


# --- rows ---------------------------------------------------------------------------------------


def describe(model: type[models.Model], row: dict, noun: str | None = None) -> str:
    """A row as a person finds it in the file: "prize category 3 (Most buncos)"."""
    where = f"{noun or model._meta.verbose_name} {row.get('id')}"
    for key in ("label", "name", "username"):
        name = row.get(key)
        if isinstance(name, str) and name.strip():
            short = name if len(name) <= 40 else f"{name[:39]}…"
            return f"{where} ({short})"
    return where


@dataclass(frozen=True)
class _Rule:
    """How one field's exported value is checked, worked out once per field."""

    types: frozenset[type] | None  # the JSON types the exporter writes; None: any JSON
    noun: str
    kind: str  # "id", "decimal", "file", "datetime" or "value"
    bounds: tuple[int, int] | None


@functools.cache
def _rule(f: models.Field) -> _Rule:
    bounds = _RANGES.get(f.get_internal_type())
    if isinstance(f, models.ForeignKey):
        return _Rule(frozenset({int}), "an id", "id", None)
    if isinstance(f, models.BooleanField):
        return _Rule(frozenset({bool}), "true or false", "value", None)
    if isinstance(f, models.IntegerField):
        cents = f.name.endswith("_cents")
        noun = "an amount of money in whole cents" if cents else "a whole number"
        return _Rule(frozenset({int}), noun, "value", bounds)
    if isinstance(f, models.DecimalField):
        return _Rule(frozenset({str, int, float}), "an amount", "decimal", None)
    if isinstance(f, models.JSONField):
        return _Rule(None, "", "value", None)
    kind = "file" if isinstance(f, models.FileField) else "value"
    if isinstance(f, models.DateTimeField):
        kind = "datetime"
    return _Rule(frozenset({str}), "text", kind, None)


def field_value(f: models.Field, value: Any) -> Any:
    """One exported value as its field's Python value; ValidationError says what is wrong.
    A foreign key is only checked to be an id: `Relabel` checks that its row is in the file."""
    if value is None:
        if f.null:
            return None
        raise ValidationError("is empty, but needs a value.")
    rule = _rule(f)
    if rule.types is not None and type(value) not in rule.types:  # type(): True is no int
        raise ValidationError(f"{_shown(value)} is not {rule.noun}.")
    if rule.kind == "id":
        return value
    if rule.kind == "decimal":
        value = _decimal(value)
    elif rule.kind == "file":
        _check_file_name(f, value)
    if value in f.empty_values:
        if f.choices and not f.blank and value not in dict(f.flatchoices):
            raise ValidationError(f"{_shown(value)} is not one of the choices.")
        return value
    if rule.bounds and not rule.bounds[0] <= value <= rule.bounds[1]:
        raise ValidationError(f"{value} is outside {rule.bounds[0]} to {rule.bounds[1]}.")
    python = f.clean(value, None)
    if rule.kind == "datetime" and settings.USE_TZ and timezone.is_naive(python):
        raise ValidationError(f"{_shown(value)} has no time zone offset.")
    return python


def _decimal(value: str | int | float) -> Decimal:
    """A float by its shortest spelling, so 12.345 has three places (and is refused), not the
    fifty-odd of its binary value."""
    try:
        number = Decimal(repr(value) if isinstance(value, float) else value)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite():
        raise ValidationError(f"{_shown(value)} is not an amount of money.")
    return number


def _check_file_name(f: models.FileField, name: str) -> None:
    if not name:
        return
    parts = name.split("/")
    folder = f.upload_to if isinstance(f.upload_to, str) else None
    if (
        name.startswith("/")
        or "\\" in name
        or ":" in name
        or {"", ".", ".."} & set(parts)
        or (folder is not None and (len(parts) < 2 or parts[0] != folder))
    ):
        inside = f"the {folder} folder" if folder else "the site's media folder"
        raise ValidationError(f"{_shown(name)} is not a file inside {inside}.")


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else f"{shown[:59]}…"


def _located(where: str, exc: ValidationError) -> str:
    """The first problem, after the row and (for a field's) the field it is in."""
    messages = exc.messages
    if hasattr(exc, "error_dict"):
        name, messages = next(iter(exc.message_dict.items()))
        where = where if name == NON_FIELD_ERRORS else f"{where}, {name}"
    return f"{where}: {' '.join(messages)}"


def check_fields(
    fields: Iterable[models.Field], row: dict, where: Callable[[], str]
) -> dict[str, Any]:
    """The row's values by field name, each checked by `field_value`."""
    values = {}
    for f in fields:
        try:
            values[f.name] = field_value(f, row[f.name])
        except ValidationError as exc:
            raise TransferError(_located(f"{where()}, {f.name}", exc)) from exc
    return values


def check_rows(model: type[models.Model], rows: list[dict]) -> list[dict]:
    """Every row has the model's fields and no other, each valid, passes the model's `clean()`
    and, with the other rows, its constraints. Returns the rows' values as Python values."""
    fields = model._meta.concrete_fields
    names = {f.name for f in fields}
    own_clean = model.clean is not models.Model.clean
    values = []
    for row in rows:
        if set(row) != names:
            extra = ", ".join(sorted(set(row) - names)) or "none"
            missing = ", ".join(sorted(names - set(row))) or "none"
            raise TransferError(
                f"{describe(model, row)}: unknown fields {extra}; missing fields {missing}."
            )
        checked = check_fields(fields, row, lambda row=row: describe(model, row))
        if own_clean:
            try:
                model(**{f.attname: checked[f.name] for f in fields}).clean()
            except ValidationError as exc:
                raise TransferError(_located(describe(model, row), exc)) from exc
        values.append(checked)
    _check_constraints(model, rows, values)
    return values


# --- constraints --------------------------------------------------------------------------------


def _check_constraints(model: type[models.Model], rows: list[dict], values: list[dict]) -> None:
    fields = model._meta.concrete_fields
    uniques = [((f.name,), None, f) for f in fields if f.unique and not f.primary_key]
    for constraint in model._meta.constraints:
        if isinstance(constraint, models.CheckConstraint):
            for row, checked in zip(rows, values, strict=True):
                if _holds(constraint.condition, checked, constraint) is False:
                    message = constraint.get_violation_error_message()
                    raise TransferError(f"{describe(model, row)}: {message}")
        elif isinstance(constraint, models.UniqueConstraint) and not constraint.expressions:
            uniques.append((constraint.fields, constraint.condition, constraint))
        else:
            _cannot_check(constraint)
    for names, condition, source in uniques:
        nulls_distinct = getattr(source, "nulls_distinct", None) is not False
        seen: dict[tuple, dict] = {}
        for row, checked in zip(rows, values, strict=True):
            if condition is not None and _holds(condition, checked, source) is not True:
                continue
            key = tuple(checked[name] for name in names)
            if nulls_distinct and None in key:
                continue
            if key in seen:
                raise TransferError(
                    f"{describe(model, row)}: its {', '.join(names)} are those of "
                    f"{describe(model, seen[key])} too."
                )
            seen[key] = row


def _holds(q: models.Q, row: dict, constraint: Any) -> bool | None:
    """The condition for one row's values, None where SQL's answer is unknown (a NULL)."""
    results = []
    for child in q.children:
        if isinstance(child, models.Q):
            results.append(_holds(child, row, constraint))
            continue
        lookup, expected = child if isinstance(child, tuple) else ("", None)
        name, _, kind = lookup.partition("__")
        if isinstance(expected, models.F):
            expected = row.get(expected.name, _MISSING)
        value = row.get(name, _MISSING)
        if value is _MISSING or expected is _MISSING or kind not in (*_COMPARE, "", "isnull"):
            _cannot_check(constraint)
        if kind == "isnull":
            results.append((value is None) is expected)
        elif value is None or expected is None:
            results.append(None)
        else:
            results.append(_COMPARE[kind or "exact"](value, expected))
    if q.connector == models.Q.AND:
        result = False if False in results else None if None in results else True
    elif q.connector == models.Q.OR:
        result = True if True in results else None if None in results else False
    else:
        _cannot_check(constraint)
    return result if result is None or not q.negated else not result


def _cannot_check(constraint: Any) -> None:
    raise TransferError(
        f"The import cannot check the constraint {constraint!r} yet; teach "
        "tournaments/services/transfer_checks.py its lookups before moving an event."
    )
