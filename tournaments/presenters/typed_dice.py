"""Dice typed into a form that was refused, kept for the page it goes back to.

The roll-off view and the final table's forms answer every post with a redirect to the page
the form was on, so a refusal ("a die shows 1 to 6", "ran out of entered dice") would come
back to empty boxes: the dice are put in the session for that one page view and drawn into
the same form (`form_id`), each field as the list of what was typed in its boxes.
"""

from __future__ import annotations

from django.http import HttpRequest

SESSION_KEY = "roll_off_typed"
DICE_FIELDS = ("first", "rethrows", "dice", "die1", "die2", "die3")
MOST_BOXES = 12  # more boxes than any form has
LONGEST = 200  # a re-throw line


def keep(request: HttpRequest) -> str:
    """Keeps what the refused form held; returns its form's id, the anchor to go back to."""
    form_id = (request.POST.get("form_id") or "")[:100]
    request.session[SESSION_KEY] = {
        "form_id": form_id,
        **{
            name: [value[:LONGEST] for value in request.POST.getlist(name)[:MOST_BOXES]]
            for name in DICE_FIELDS
        },
    }
    return form_id


def take(request: HttpRequest) -> dict:
    """What `keep` kept, once: a reload shows the form empty again."""
    return request.session.pop(SESSION_KEY, None) or {}
