"""The hidden idempotency key of a form that a phone may send twice (services/idempotency.py).

A fresh key each time the form is drawn: the same drawn form sent twice is one write, and a
form drawn again (after a save, or after a refusal) is a new one.
"""

from __future__ import annotations

import uuid

from django import template
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def idempotency_key() -> str:
    return format_html('<input type="hidden" name="idempotency_key" value="{}">', uuid.uuid4())


@register.filter
def at(values, index: int) -> str:
    """The `index`th of `values` (typed dice drawn back into their boxes), or "" past the end."""
    if isinstance(values, list | tuple) and 0 <= index < len(values):
        return values[index]
    return ""
