"""Each views module owns its routes; this file only lists the modules."""

from .views import accounts, audit, checkin, home, people, players, presets, registration
from .views import tournaments as tournament_views

urlpatterns = [
    *home.urlpatterns,
    *accounts.urlpatterns,
    *presets.urlpatterns,
    *tournament_views.urlpatterns,
    *people.urlpatterns,
    *registration.urlpatterns,
    *players.urlpatterns,
    *checkin.urlpatterns,
    *audit.urlpatterns,
]
