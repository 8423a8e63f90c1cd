"""The site's routes plus views that fail on purpose, for the error page tests."""

from django.core.exceptions import BadRequest, PermissionDenied
from django.urls import path

from bunco_site.urls import handler400, handler403, handler404, handler500, urlpatterns


def bad(request, slug=None):
    raise BadRequest("A field the site cannot read.")


def broken(request):
    raise RuntimeError("the site's own fault")


def forbidden(request):
    raise PermissionDenied


urlpatterns = [
    path("fail/400/", bad),
    path("fail/500/", broken),
    path("fail/403/", forbidden),
    *urlpatterns,
]
__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
