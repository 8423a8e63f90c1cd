"""Which rows of an import file are people already registered: the same e-mail, or, for a
row without one, the same name and phone. Pure: it compares values, the caller reads them."""

from __future__ import annotations

import re
from collections.abc import Iterable

ALREADY = "is already registered for this tournament"


def _name(value: str) -> str:
    return " ".join(value.split()).casefold()


def _phone(value: str) -> str:
    """Digits only, so "(555) 867-5309" and "555.867.5309" are one number."""
    return re.sub(r"\D", "", value)


def already_registered(
    rows: Iterable[tuple[int, str, str, str]], registered: Iterable[tuple[str, str, str]]
) -> dict[int, str]:
    """For each (line, name, e-mail, phone) row matching a registered (name, e-mail, phone),
    its line and why, in words for the organiser."""
    emails, name_phones = set(), set()
    for name, email, phone in registered:
        if email:
            emails.add(email.lower())
        if _phone(phone):
            name_phones.add((_name(name), _phone(phone)))
    found: dict[int, str] = {}
    for line, name, email, phone in rows:
        if email and email.lower() in emails:
            found[line] = f"{email} {ALREADY}"
        elif not email and _phone(phone) and (_name(name), _phone(phone)) in name_phones:
            found[line] = f"{name} with phone {phone} {ALREADY}"
    return found
