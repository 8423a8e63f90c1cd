"""The tournament's menu, grouped so thirteen pages fit one line of a 1366 px laptop.

Each group is a dropdown when the person may open two or more of its pages, a plain link when
only one; someone with four pages or fewer (staff) sees them all as plain links.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import template
from django.urls import reverse

register = template.Library()

# (group label, [(link label, url name, the permission code that shows it)]).
GROUPS = [
    (
        "Tonight",
        [
            ("Check-in", "checkin-desk", "checkin.manage"),
            ("Stages", "stage-control", "stages.run"),
            ("Advancement", "advancement", "stages.run"),
            ("Final table", "final-table", "results.enter"),
            ("My pods", "my-pods", "results.enter"),
            ("Standings", "standings", "tournament.view"),
        ],
    ),
    (
        "Prizes",
        [
            ("Prizes", "prizes", "prizes.award"),
            ("Prize table", "payouts", "payouts.pay"),
            ("Cash book", "cashbook", "money.view"),
            ("Printouts", "printouts", "printouts.make"),
        ],
    ),
    (
        "Set-up",
        [
            ("Players", "player-list", "registrations.view"),
            ("Staff & admins", "people", "people.manage"),
            ("Settings", "tournament-edit", "tournament.edit"),
            ("Audit log", "audit-log", "audit.view"),
        ],
    ),
]


# Few enough links (staff have three) fit the line as they are, one tap each on a phone.
FLAT_UP_TO = 4


@dataclass(frozen=True)
class Link:
    label: str
    url: str
    current: bool


@dataclass(frozen=True)
class Group:
    label: str
    links: list[Link]

    @property
    def current(self) -> bool:
        return any(link.current for link in self.links)


def groups_for(slug: str, perms: frozenset[str], path: str) -> list[Group]:
    shown = []
    for label, links in GROUPS:
        mine = []
        for text, name, code in links:
            if code in perms:
                address = reverse(name, args=[slug])
                mine.append(Link(text, address, path == address))
        if mine:
            shown.append(Group(label, mine))
    if sum(len(group.links) for group in shown) <= FLAT_UP_TO:
        return [Group(link.label, [link]) for group in shown for link in group.links]
    return shown


@register.inclusion_tag("partials/tournament_nav.html", takes_context=True)
def tournament_nav(context) -> dict:
    tournament = context["tournament"]
    request = context.get("request")
    path = request.path if request is not None else ""
    dashboard = reverse("tournament-dashboard", args=[tournament.slug])
    return {
        "tournament": tournament,
        "dashboard": dashboard,
        "dashboard_current": path == dashboard,
        "groups": groups_for(tournament.slug, context["perms_here"], path),
    }
