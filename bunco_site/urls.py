from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("django-admin/", admin.site.urls),
    path("", include("tournaments.urls")),
    path("", include("scoring.urls")),
]

# Error pages in the site's layout (bunco_site/errors.py); CSRF failures: settings.py.
handler400 = "bunco_site.errors.bad_request"
handler403 = "bunco_site.errors.permission_denied"
handler404 = "bunco_site.errors.page_not_found"
handler500 = "bunco_site.errors.server_error"
