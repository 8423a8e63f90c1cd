"""What the prize list pays if every place is paid, as the prize list's budget, the winners
page and the cash planner all show it: read here once, counted by `rules.budget`, so the
three never disagree about how many pods a per-pod prize is paid in."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from django.db.models import Count

from tournaments.foundation.errors import UserFacingError
from tournaments.rules.budget import ListedPrize, expected_pods, prize_list_cents

from ..models import Player, Pod, Tournament
from .advancement import advancement_rules
from .stages import DRAW_ALGORITHM, POD_SIZE, POD_SPLITS

CHECKED_IN, REGISTERED, PLACES = "checked_in", "registered", "places"


class Counted(NamedTuple):
    players: int
    basis: str  # CHECKED_IN, REGISTERED, or PLACES: the capacity, before anyone registers


def counted_players(tournament: Tournament) -> Counted:
    """The players the prizes are planned for and their fees counted from: those checked
    in; before the door opens, those registered; and while the prize list is set up before
    anyone registers, the places of a full event (planning for nobody warned of every
    prize)."""
    playing = tournament.players.playing().count()
    if playing:
        return Counted(playing, CHECKED_IN)
    registered = tournament.players.filter(status=Player.Status.REGISTERED).count()
    return Counted(registered, REGISTERED) if registered else Counted(tournament.capacity, PLACES)


def drawn_pods(tournament: Tournament) -> dict[str, int]:
    """The pods of each stage drawn so far, by stage kind."""
    return dict(
        Pod.objects.filter(stage__tournament=tournament)
        .values_list("stage__kind")
        .annotate(pods=Count("pk"))
        .order_by()
    )


def pods_by_stage(
    tournament: Tournament, players: int, drawn: dict[str, int] | None = None
) -> dict[str, int]:
    """Each stage's pods: those drawn, or those its draw would make (`expected_pods`)."""
    if drawn is None:
        drawn = drawn_pods(tournament)
    try:
        advancing = sum(c.places for c in advancement_rules(tournament).categories)
    except UserFacingError:  # nobody advances: there will be no semi-final
        advancing = 0
    split = POD_SPLITS[DRAW_ALGORITHM]
    return expected_pods(drawn, players, advancing, pod_size=POD_SIZE, split=split)


def list_total_cents(
    tournament: Tournament,
    categories: Iterable[ListedPrize] | None = None,
    *,
    pods: dict[str, int] | None = None,
) -> int:
    """Every place of the list paid (`categories` and `pods` when the page has them)."""
    if pods is None:
        pods = pods_by_stage(tournament, counted_players(tournament)[0])
    if categories is None:
        categories = tournament.prize_categories.all()
    return prize_list_cents(categories, pods)
