"""The stage page's long lists, written in Python: each pod's seating, its hostess picker and
the list of players who may leave. In the template language these lists (a loop, an `if`
and three lookups an option; an included template a seat) were most of what each pod cost,
so a full page of pods cost twice a page of two. The markup is what the template wrote
(`data-seat` and `data-token` are what the page's live updates find a seat by)."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from scoring.rules.table import partner_pairs

register = template.Library()

SELECTED = mark_safe(" selected")
HOSTESS_STAR = mark_safe(
    ' <span title="hostess" aria-hidden="true">★</span>'
    '<span class="visually-hidden">(hostess)</span>'
)


def seat(s, hostess_id: int | None, pod_number: int) -> SafeString:
    """The player in seat `s` (starred if they are the pod's hostess) or its ghost."""
    where = f"{pod_number}.{s.table}.{s.seat}"
    if s.player_id:
        star = HOSTESS_STAR if s.player_id == hostess_id else ""
        return format_html(
            '<span data-seat="{}" data-token="{}">{}{}</span>',
            where,
            s.player_id,
            s.player.name,
            star,
        )
    return format_html(
        '<span class="text-muted fst-italic" data-seat="{}" data-token="-{}">ghost {}</span>',
        where,
        s.ghost,
        s.ghost,
    )


@register.simple_tag
def pod_seating(row) -> SafeString:
    """One `<li>` a table: one pair of partners (`partner_pairs`) against the other."""
    hostess, number = row.pod.hostess_id, row.pod.number
    return format_html_join(
        "\n",
        '<li>{} &amp; {} <span class="text-muted">vs</span> {} &amp; {}</li>',
        (
            tuple(seat(table[n - 1], hostess, number) for pair in partner_pairs() for n in pair)
            for table in row.tables
        ),
    )


@register.simple_tag
def hostess_options(row) -> SafeString:
    """The pod's players as `<option>`s, its hostess selected."""
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        (
            (p.pk, SELECTED if p.pk == row.pod.hostess_id else "", p.name)
            for p in row.hostess_options
        ),
    )


@register.simple_tag
def leaver_options(leavers) -> SafeString:
    """Each seated player of the pods shown, with their code and pod, as `<option>`s."""
    return format_html_join(
        "",
        '<option value="{}">{} ({}) — pod {}</option>',
        ((p.pk, p.name, p.code, pod.number) for p, pod in leavers),
    )
