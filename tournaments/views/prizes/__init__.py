"""Prize pages: the prize list, the winners (judges' picks, the traveling item, roll-offs and
awarding), the prize table where an admin pays cash, and the ledger with its CSV.

Views are thin: the selection is `tournaments.rules.prizes` through `tournaments.services.prizes`,
and every POST calls one service and redirects with its message. The prize list and the
winners need `prizes.award`; paying and voiding need `payouts.pay`; the ledger either.
No GET changes anything.

The engine gives ids, numbers and codes; `presenters/prizes.py` words them with the players'
names for the pages.
"""

from django.urls import path

from .categories import (
    CategoryDeleteView,
    CategoryFormView,
    OnePrizeView,
    PrizeCategoriesView,
    TemplateLoadView,
)
from .last_bunco import LastBuncoView
from .ledger import LedgerCsvView, LedgerView
from .payouts import PayoutsView, PayView, VoidView
from .winners import AwardView, NominateView, PrizeWinnersView, TravelingView

P = "t/<slug:slug>/manage/prizes/"
urlpatterns = [
    path(P, PrizeCategoriesView.as_view(), name="prizes"),
    path(f"{P}add/", CategoryFormView.as_view(), name="prize-category-add"),
    path(f"{P}<int:pk>/", CategoryFormView.as_view(), name="prize-category-edit"),
    path(f"{P}<int:pk>/delete/", CategoryDeleteView.as_view(), name="prize-category-delete"),
    path(f"{P}template/", TemplateLoadView.as_view(), name="prize-template"),
    path(f"{P}one-per-player/", OnePrizeView.as_view(), name="prize-one-per-player"),
    path(f"{P}winners/", PrizeWinnersView.as_view(), name="prize-winners"),
    path(f"{P}winners/nominate/", NominateView.as_view(), name="prize-nominate"),
    path(f"{P}winners/traveling/", TravelingView.as_view(), name="prize-traveling"),
    path(f"{P}winners/award/", AwardView.as_view(), name="prize-award"),
    path(f"{P}winners/last-bunco/", LastBuncoView.as_view(), name="prize-last-bunco"),
    path("t/<slug:slug>/manage/payouts/", PayoutsView.as_view(), name="payouts"),
    path("t/<slug:slug>/manage/payouts/<int:award_pk>/pay/", PayView.as_view(), name="payout-pay"),
    path(
        "t/<slug:slug>/manage/payouts/void/<int:payout_pk>/",
        VoidView.as_view(),
        name="payout-void",
    ),
    path("t/<slug:slug>/manage/ledger/", LedgerView.as_view(), name="ledger"),
    path("t/<slug:slug>/manage/ledger.csv", LedgerCsvView.as_view(), name="ledger-csv"),
]
