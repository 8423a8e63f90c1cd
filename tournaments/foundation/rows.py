"""Several models read in one hand-written statement, for the few reads every staff request
makes.

Measured on the save flow (form, save, pod page), building and compiling the ORM statement
that brings a pod with its stage, tournament, rules, counter, hostess, round and the person's
roles cost about a quarter of each request's CPU, more than PostgreSQL took to answer it. A
statement written once skips that work. `Columns` keeps such a statement honest: the column
lists come from the models' fields, and each value goes through the same converters the ORM
applies (JSON, dates on SQLite, decimals), so the instances are the ones a queryset builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.db import connection
from django.db.models import Model


@dataclass(frozen=True)
class Columns:
    """One model's concrete columns under a table alias in a hand-written SELECT, but those
    named in `defer`: like a queryset's `defer()`, they are read from the database only if
    something asks for them (a large JSON column no page of the statement's shows)."""

    model: type[Model]
    alias: str
    defer: tuple[str, ...] = ()
    fields: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        fields = tuple(f for f in self.model._meta.concrete_fields if f.name not in self.defer)
        object.__setattr__(self, "fields", fields)

    @property
    def table(self) -> str:
        return connection.ops.quote_name(self.model._meta.db_table)

    def select(self) -> str:
        quote = connection.ops.quote_name
        return ", ".join(f"{self.alias}.{quote(f.column)}" for f in self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    @cached_property
    def _converters(self) -> list[tuple[Any, list]]:
        """Per column, the expression and the converters the ORM would apply to it."""
        converters = []
        for f in self.fields:
            col = f.get_col(self.alias)
            found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
            converters.append((col, found))
        return converters

    def build(self, values: Sequence[Any]) -> Model | None:
        """The instance from its columns' values; None when a LEFT JOIN found no row (every
        model here has a non-null primary key)."""
        if values[0] is None:
            return None
        converted = []
        for value, (col, found) in zip(values, self._converters, strict=True):
            for convert in found:
                value = convert(value, col, connection)
            converted.append(value)
        names = [f.attname for f in self.fields]
        return self.model.from_db(connection.alias, names, converted)


def fits(model: type[Model], name: str, value: int) -> bool:
    """Whether `value` fits the integer column `name` of `model` on this database: a number
    from a URL may not, and where a queryset finds no row for it (Django skips the query), a
    hand-written statement would fail (SQLite cannot even send it)."""
    low, high = connection.ops.integer_field_range(model._meta.get_field(name).get_internal_type())
    return (low is None or value >= low) and (high is None or value <= high)


def read_row(columns: Sequence[Columns], sql: str, params: Sequence[Any]) -> tuple | None:
    """The first row of `sql`, its leading columns built into instances in `columns`' order
    and the rest returned as they came: (instances, extras). None when there is no row."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    instances, start = [], 0
    for group in columns:
        instances.append(group.build(row[start : start + len(group)]))
        start += len(group)
    return instances, row[start:]
