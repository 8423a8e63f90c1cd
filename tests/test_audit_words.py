"""Every audit action code the source writes has a sentence, and the log shows sentences."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.support.factories import drawn_stage, record_pod
from tests.support.web import text
from tournaments.foundation.audit_words import KINDS, NOBODY, SENTENCES, sentence

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    path
    for package in ("tournaments", "scoring", "bunco_site")
    for path in (ROOT / package).rglob("*.py")
    if "migrations" not in path.parts
]
# Calls that take an action code, and which positional argument it is.
ACTION_ARGUMENT = {"record": 0, "record_everywhere": 1, "grant_role": None}


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _strings_bound_to(name: str, scope: ast.AST) -> list[ast.expr]:
    """What a variable holding the code can be: its assignments and its default value."""
    found: list[ast.expr] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = (
                    zip(target.elts, node.value.elts, strict=False)
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                    else [(target, node.value)]
                )
                found += [v for t, v in pairs if isinstance(t, ast.Name) and t.id == name]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults))
            defaults += node.args.defaults + node.args.kw_defaults
            found += [d for a, d in zip(args, defaults, strict=False) if a.arg == name and d]
    return found


def _patterns(node: ast.expr | None, scope: ast.AST) -> list[str]:
    """The code as a regular expression: a literal, or an f-string's fixed parts."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [re.escape(node.value)]
    if isinstance(node, ast.JoinedStr):
        parts = [
            re.escape(v.value) if isinstance(v, ast.Constant) else "[a-z_]+" for v in node.values
        ]
        return ["".join(parts)]
    if isinstance(node, ast.Name):
        return [p for bound in _strings_bound_to(node.id, scope) for p in _patterns(bound, scope)]
    return []


def codes_in_source() -> dict[str, str]:
    """Every action code pattern passed to the audit, with where it is."""
    found: dict[str, str] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] + [tree]:
            for call in ast.walk(func):
                if not isinstance(call, ast.Call) or _name(call.func) not in ACTION_ARGUMENT:
                    continue
                position = ACTION_ARGUMENT[_name(call.func)]
                arg = next((k.value for k in call.keywords if k.arg == "action"), None)
                if arg is None and position is not None and len(call.args) > position:
                    arg = call.args[position]
                for pattern in _patterns(arg, func):
                    found[pattern] = f"{path.relative_to(ROOT)}:{call.lineno}"
    return found


def test_every_action_code_in_the_source_has_a_sentence():
    found = codes_in_source()
    assert len(found) > 40  # the scan finds the calls
    for pattern, where in found.items():
        assert any(re.fullmatch(pattern, code) for code in SENTENCES), f"{where}: {pattern}"


def test_every_sentence_belongs_to_a_code_the_source_writes():
    patterns = list(codes_in_source())
    unused = [code for code in SENTENCES if not any(re.fullmatch(p, code) for p in patterns)]
    assert not unused
    assert {code.split(".")[0] for code in SENTENCES} <= set(KINDS)


def test_sentences_read_as_words():
    assert sentence("result.recorded", "anna") == "anna recorded a table result"
    assert sentence("player.registered", None) == f"{NOBODY} registered a player"
    assert sentence("brand.new_thing", "anna") == "anna: brand new thing"
    for template in SENTENCES.values():
        assert template.startswith("{who} ") and "_" not in template and "." not in template


@pytest.mark.django_db
def test_the_log_shows_sentences_not_codes(tournament, organiser, client_for):
    stage = drawn_stage(tournament, organiser)
    record_pod(stage.pods.get(), stage.rounds.get(number=1), organiser, (0, 1, 0))
    address = reverse("audit-log", args=[tournament.slug])
    page = text(client_for(organiser).get(address))
    assert f"{organiser.username} recorded a table result" in page
    assert f"{organiser.username} rang the bell for a round" in page
    assert "result.recorded" not in page and "round.started" not in page
    only = text(client_for(organiser).get(address, {"action": "result."}))
    assert "recorded a table result" in only and "rang the bell" not in only
    assert '<option value="result." selected>Table results</option>' in only
