"""The two teams at a table as the engine names them, for templates: `{{ 0|pair_label }}` is
`PAIR_LABELS[0]` and `{{ 1|pair_seats }}` the second pair's seat numbers
(`scoring.rules.table`, the one home of the wording)."""

from django import template

from scoring.rules import table

register = template.Library()


@register.filter
def pair_label(pair) -> str:
    return table.pair_label(int(pair))


@register.filter
def pair_seats(pair) -> str:
    return table.pair_seats(int(pair))
