"""The game's pages: pods and their results, score cards and standings."""

from .views import cards, pods, results, standings

urlpatterns = [
    *pods.urlpatterns,
    *results.urlpatterns,
    *cards.urlpatterns,
    *standings.urlpatterns,
]
