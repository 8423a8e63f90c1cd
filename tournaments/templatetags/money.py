"""`{{ tournament.entry_fee|money }}`: an amount of dollars as foundation/text.py words money,
so a template never writes "$" before a number itself ("$1,000.00", not "$1000.00")."""

from decimal import Decimal

from django import template

from ..foundation.text import money

register = template.Library()


@register.filter(name="money")
def dollars_as_money(value: Decimal) -> str:
    return money(int(Decimal(value) * 100))
