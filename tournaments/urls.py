"""Each views module owns its routes; this file only lists the modules."""

from scoring.views import board as scoring_board
from scoring.views import cards as scoring_cards
from scoring.views import public as scoring_public
from scoring.views import results as scoring_results
from scoring.views import results_public as scoring_results_public
from scoring.views import standings as scoring_standings

from .views import (
    accounts,
    advancement,
    audit,
    cashbook,
    checkin,
    final_undo,
    home,
    invitations,
    landing,
    mail,
    people,
    player_page,
    players,
    pod_staff,
    presets,
    printouts,
    prizes,
    registration,
    roll_offs,
    stage_end,
    stages,
    waitlist,
)
from .views import tournaments as tournament_views

urlpatterns = [
    *home.urlpatterns,
    *landing.urlpatterns,
    *accounts.urlpatterns,
    *presets.urlpatterns,
    *tournament_views.urlpatterns,
    *people.urlpatterns,
    *invitations.urlpatterns,
    *registration.urlpatterns,
    *player_page.urlpatterns,
    *mail.urlpatterns,
    *players.urlpatterns,
    *checkin.urlpatterns,
    *waitlist.urlpatterns,
    *audit.urlpatterns,
    *stages.urlpatterns,
    *pod_staff.urlpatterns,
    *stage_end.urlpatterns,
    *advancement.urlpatterns,
    *final_undo.urlpatterns,
    *prizes.urlpatterns,
    *roll_offs.urlpatterns,
    *cashbook.urlpatterns,
    *printouts.urlpatterns,
    *scoring_results.urlpatterns,
    *scoring_public.urlpatterns,
    *scoring_board.urlpatterns,
    *scoring_cards.urlpatterns,
    *scoring_standings.urlpatterns,
    *scoring_results_public.urlpatterns,
]
