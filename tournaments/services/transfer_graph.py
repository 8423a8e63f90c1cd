"""What an export holds: the models that travel with a tournament, in the order they are
inserted, and every place an id hides inside JSON (`transfer.py` explains the format).

Kept apart from the export and import themselves because both directions, and the checks of
an import file, read the same graph.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from ..foundation.text import whole_number
from ..models import Tournament
from .transfer_checks import TransferError, describe

TOURNAMENT = "tournaments.tournament"
PLAYER = "tournaments.player"
AWARD = "tournaments.prizeaward"
CATEGORY = "tournaments.prizecategory"
ROLL_OFF = "tournaments.rolloff"
AUDIT = "tournaments.auditentry"
ACCOUNT = "auth.user"
PRESET = "tournaments.rulepreset"
PRINTOUT = "tournaments.printout"
LEDGER = "tournaments.ledgerentry"

# Every model with a foreign-key path to Tournament; `scoped_models()` finds them from _meta.
MODELS = frozenset(
    {
        TOURNAMENT,
        "tournaments.tournamentrole",
        "tournaments.invitation",
        PLAYER,
        "tournaments.party",
        "tournaments.cardproblem",
        "tournaments.emaillog",
        "tournaments.stage",
        "tournaments.pod",
        "tournaments.pod_staff",
        "tournaments.round",
        "tournaments.seat",
        "tournaments.rosterchange",
        ROLL_OFF,
        "tournaments.qualifier",
        "tournaments.finaltable",
        "tournaments.finalseat",
        "tournaments.finalthrow",
        CATEGORY,
        "tournaments.prizenomination",
        "tournaments.travelingpass",
        "tournaments.lastbuncomark",
        AWARD,
        "tournaments.payout",
        PRINTOUT,
        "tournaments.draw",
        AUDIT,
        "scoring.tableresult",
        "scoring.rollcredit",
        "scoring.cardentry",
        LEDGER,
        "tournaments.cashbox",
        "tournaments.cashbooksettings",
        "tournaments.changecounter",
        "tournaments.writereceipt",
        "tournaments.phonesync",
    }
)
# Linked to the tournament but never moved (see transfer.py's docstring): not in the file.
STAY_BEHIND = frozenset({"tournaments.writereceipt", "tournaments.phonesync"})
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
# What an account row holds besides ACCOUNT_FIELDS (see `_accounts`).
ACCOUNT_KEYS = frozenset({"id", *ACCOUNT_FIELDS, "must_change_password"})
# Audit entries' data names ids under these keys (see `audit.record`'s callers).
AUDIT_DATA_IDS = {"player": PLAYER, "players": PLAYER, "award": AWARD}
# JSON fields that hold no ids, so they travel as they are.
PLAIN_JSON = frozenset(
    {
        ("tournaments.stage", "rules"),
        (ROLL_OFF, "faces"),
        ("tournaments.finalthrow", "dice"),
        (CATEGORY, "amounts_cents"),
        ("scoring.tableresult", "tie_break"),
        ("scoring.cardentry", "rounds"),
        ("scoring.cardentry", "settled_against"),  # marks and totals, no ids
        ("tournaments.cashbox", "counts"),
    }
)


@functools.cache
def foreign_keys(model: type[models.Model]) -> tuple[models.ForeignKey, ...]:
    return tuple(f for f in model._meta.concrete_fields if isinstance(f, models.ForeignKey))


def label_of(model: type[models.Model]) -> str:
    return model._meta.label_lower


def scoped_models() -> set[str]:
    """Every model (many-to-many tables included) with a chain of foreign keys to Tournament."""
    every = apps.get_models(include_auto_created=True)
    scoped = {Tournament}
    grew = True
    while grew:
        grew = False
        for model in every:
            if model not in scoped and any(f.related_model in scoped for f in foreign_keys(model)):
                scoped.add(model)
                grew = True
    return {label_of(m) for m in scoped}


def owner_path(model: type[models.Model]) -> tuple[bool, int, str]:
    """The lookup from a model to its tournament: foreign keys that cannot be empty first,
    then the shortest chain (an audit entry's tournament may be empty; it has no other)."""
    if model is Tournament:
        return False, 0, "pk"
    best = None
    for f in foreign_keys(model):
        if f.related_model is model or label_of(f.related_model) not in MODELS:
            continue
        nullable, hops, rest = owner_path(f.related_model)
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
        self.categories = {row["id"]: row.get("scope") for row in rows[CATEGORY]}
        self.roll_off_scopes = {row["id"]: row.get("scope") for row in rows[ROLL_OFF]}

    def id(self, label: str, old: Any, where: str) -> Any:
        if not isinstance(old, int) or isinstance(old, bool):
            raise TransferError(f"{where}: {old!r:.40} is not an id.")
        new = self.new(label, old)
        if new is None:
            noun = "account" if label == ACCOUNT else apps.get_model(label)._meta.verbose_name
            raise TransferError(f"{where}: {noun} {old} is not in the file.")
        return new

    def players(self, ids: Any, where: str) -> list:
        if not isinstance(ids, list):
            raise TransferError(f"{where}: expected a list of player ids, got {ids!r}.")
        return [self.id(PLAYER, p, where) for p in ids]

    def tied(self, scope: Any, ids: Any, where: str) -> list:
        """A roll-off's players, or pod numbers (which stay) for a best-pod prize."""
        if scope == "pod_group":
            return ids
        return self.players(ids, where)

    def row(self, model: type[models.Model], row: dict) -> dict:
        """The row with its foreign keys, JSON ids and audit target translated; not its id.
        Ids inside JSON of another shape than the site writes stop the import here."""
        label = label_of(model)
        where = describe(model, row)
        out = dict(row)
        for f in foreign_keys(model):
            if out.get(f.name) is not None:
                out[f.name] = self.id(_target(f), out[f.name], f"{where}, {f.name}")
        for name, rewrite in JSON_IDS.get(label, {}).items():
            if out.get(name) is not None:
                try:
                    out[name] = rewrite(self, row[name], row, f"{where}, {name}")
                except (KeyError, TypeError, ValueError, AttributeError) as exc:
                    raise TransferError(
                        f"{where}, {name}: not in the shape this site writes "
                        f"({type(exc).__name__}: {exc!s:.80})."
                    ) from exc
        if label == AUDIT and row.get("target_id"):
            target = row.get("target_type")
            known = target in MODELS or target in (ACCOUNT, PRESET)
            old = whole_number(row["target_id"]) if isinstance(row["target_id"], str) else None
            if old is None:
                raise TransferError(f"{where}, target_id: {row['target_id']!r:.40} is not an id.")
            new = self.new(target, old) if known else None
            out["target_id"] = "" if new is None else str(new)
        return out


@functools.cache
def _target(f: models.ForeignKey) -> str:
    label = label_of(f.related_model)
    if label in MODELS or label == PRESET:
        return label
    if f.related_model is get_user_model():
        return ACCOUNT
    raise TransferError(f"{label_of(f.model)}.{f.name} refers to {label}, which cannot be moved.")


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
    if isinstance(out.get("replaces"), dict) and row["target_type"] == ROLL_OFF:
        # Written before re-throws became versions: the players of the throw it replaced.
        scope = rl.roll_off_scopes.get(int(row["target_id"] or 0), "")
        replaced = out["replaces"]
        out["replaces"] = {**replaced, "players": rl.tied(scope, replaced["players"], where)}
    return out


def _player_ids(rl: Relabel, value: list, row: dict, where: str) -> list:
    return rl.players(value, where)


def _tied_players(rl: Relabel, value: list, row: dict, where: str) -> list:
    return rl.tied(row.get("scope"), value, where)


def _tied_throws(rl: Relabel, value: list, row: dict, where: str) -> list:
    return value if row.get("scope") == "pod_group" else _throws(rl, value, row, where)


def _award_why(rl: Relabel, value: dict, row: dict, where: str) -> dict:
    """An award's note (`rules.prizes.note_data`): the roll-off's other players (pods stay)
    and the players it moved up past; a note kept as written holds no ids."""
    if not value or "as_written" in value:
        return value
    note = value["note"]
    rivals = note["rolled_with"]
    if note["pod"] is None:
        rivals = rl.players(rivals, where)
    passed = [[rl.id(PLAYER, p[0], where), *p[1:]] for p in value["passed"]]
    return {"note": {**note, "rolled_with": rivals}, "passed": passed}


# JSON fields that hold ids, by model: how to translate them. With PLAIN_JSON, every JSON field
# of the moved models is listed (a test checks it), so a new one must be thought about.
JSON_IDS: dict[str, dict[str, Callable[[Relabel, Any, dict, str], Any]]] = {
    "tournaments.stage": {"draw_input": _draw_input},
    ROLL_OFF: {
        "players": _tied_players,
        "winners": _tied_players,
        "rounds": _tied_throws,
    },
    "tournaments.finaltable": {"order": _player_ids},
    "tournaments.finalseat": {"pool": _player_ids},
    "tournaments.prizenomination": {"winners": _nominees},
    AWARD: {"why": _award_why},
    AUDIT: {"data": _audit_data},
}
# Models whose JSON names rows of these models, which must therefore be inserted first.
JSON_NEEDS = {
    "tournaments.stage": {PLAYER},
    ROLL_OFF: {PLAYER},
    "tournaments.finaltable": {PLAYER},
    "tournaments.finalseat": {PLAYER},
    "tournaments.prizenomination": {PLAYER, CATEGORY},
    AWARD: {PLAYER},
    AUDIT: MODELS - STAY_BEHIND - {AUDIT},  # its target may be any row that moves
}


def insert_order() -> list[type[models.Model]]:
    """The moved models, each after every model its rows refer to."""
    by_label = {label_of(m): m for m in apps.get_models(include_auto_created=True)}
    moved = MODELS - STAY_BEHIND
    needs = {
        label: {
            label_of(f.related_model)
            for f in foreign_keys(by_label[label])
            if label_of(f.related_model) in moved and f.related_model is not by_label[label]
        }
        | JSON_NEEDS.get(label, set())
        for label in moved
    }
    order: list[str] = []
    while len(order) < len(moved):
        ready = sorted(label for label in moved - set(order) if needs[label] <= set(order))
        if not ready:
            raise TransferError("The moved models refer to each other in a circle.")
        order += ready
    return [by_label[label] for label in order]
