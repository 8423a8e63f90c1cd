"""`{% live_feed tournament %}`: makes a page's live parts follow the room (static/js/live.js).

The page says which count of the tournament's changes it was drawn at; the script asks for
the count every few seconds and, when it moved, has each part marked
`data-hx-trigger="room-changed from:body"` fetch itself again.
"""

from __future__ import annotations

from django import template

from tournaments.foundation import changes

register = template.Library()


@register.inclusion_tag("partials/live_feed.html")
def live_feed(tournament) -> dict:
    return {"tournament": tournament, "count": changes.seen(tournament)}
