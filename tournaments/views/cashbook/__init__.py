"""The charity's cash book: the book itself, the cash boxes, and the summary for the charity.

Seeing any of it needs `money.view`; recording needs `money.record` (services/cashbook.py).
The desk's fee buttons are in views/checkin.py; the prize table's give-back in the payouts.
"""

from django.urls import path

from .book import CashBookView, DonationView, ExpenseView, PlannerView, ReceiptView, ReverseView
from .boxes import BoxView, FloatView
from .summary import CsvView, SummaryView

C = "t/<slug:slug>/manage/cashbook/"
urlpatterns = [
    path(C, CashBookView.as_view(), name="cashbook"),
    path(f"{C}donation/", DonationView.as_view(), name="cashbook-donation"),
    path(f"{C}expense/", ExpenseView.as_view(), name="cashbook-expense"),
    path(f"{C}planner/", PlannerView.as_view(), name="cashbook-planner"),
    path(f"{C}<int:entry_pk>/reverse/", ReverseView.as_view(), name="cashbook-reverse"),
    path(f"{C}<int:entry_pk>/receipt/", ReceiptView.as_view(), name="cashbook-receipt"),
    path(f"{C}box/<str:box>/", BoxView.as_view(), name="cash-box"),
    path(f"{C}box/<str:box>/float/", FloatView.as_view(), name="cash-box-float"),
    path(f"{C}summary/", SummaryView.as_view(), name="cashbook-summary"),
    path("t/<slug:slug>/manage/cashbook.csv", CsvView.as_view(), name="cashbook-csv"),
]
