"""Dice typed into a roll-off form that was refused, kept for the page it goes back to.

The roll-off view answers every post with a redirect to the page the form was on, so a
refusal ("a die shows 1 to 6", "ran out of entered dice") would come back to empty boxes:
the dice are put in the session for that one page view and drawn into the same tie's form.
"""

from __future__ import annotations

from django.http import HttpRequest

SESSION_KEY = "roll_off_typed"
MOST_DICE = 12  # more boxes than any tie has


def keep(request: HttpRequest) -> str:
    """Keeps what the refused form held; returns its form's id, the anchor to go back to."""
    form_id = (request.POST.get("form_id") or "")[:100]
    request.session[SESSION_KEY] = {
        "form_id": form_id,
        "first": [face[:1] for face in request.POST.getlist("first")[:MOST_DICE]],
        "rethrows": (request.POST.get("rethrows") or "")[:200],
    }
    return form_id


def take(request: HttpRequest) -> dict:
    """What `keep` kept, once: a reload shows the form empty again."""
    return request.session.pop(SESSION_KEY, None) or {}
