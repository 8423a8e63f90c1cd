"""The site's URLs and, for bench/floor.py only, a bare view: three small queries and a line
of text through the same middleware, the floor a page of the site is measured against."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from bunco_site.urls import (  # noqa: F401 - the site's error pages stay in place
    handler400,
    handler403,
    handler404,
    handler500,
)
from bunco_site.urls import urlpatterns as site_urls
from tournaments.models import Player, Stage, Tournament


def bare(request: HttpRequest) -> HttpResponse:
    tournament = Tournament.objects.only("pk", "name").order_by("pk").first()
    stages = Stage.objects.filter(tournament=tournament).count()
    first = Player.objects.filter(tournament=tournament).order_by("pk").values("name").first()
    return HttpResponse(f"{tournament.name}: {stages} stages, first player {first}")


urlpatterns = [path("bench/floor/", bare), *site_urls]
