"""The service worker script (static/sw.js), served from the site's root.

A service worker only controls pages under the folder its script is served from, so the copy
under /static/ could not keep /t/... pages; served from /sw.js it can. It is always fetched
fresh (the browser checks it for updates itself) and holds nothing secret: anyone may load it.
"""

from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse
from django.urls import path
from django.views.generic import View

from ..permissions import PUBLIC, PermissionMixin


class ServiceWorkerView(PermissionMixin, View):
    permission = PUBLIC
    http_method_names = ["get"]

    def get(self, request):
        found = finders.find("sw.js")
        if not found:
            raise Http404("No service worker.")
        response = HttpResponse(Path(found).read_bytes(), content_type="text/javascript")
        response["Cache-Control"] = "no-cache"
        response["Service-Worker-Allowed"] = "/"
        return response


urlpatterns = [path("sw.js", ServiceWorkerView.as_view(), name="service-worker")]
