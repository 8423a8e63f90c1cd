"""For the charity: the night's summary page, the PDF (through the printout tasks) and the
CSV of every entry for the accountant."""

from __future__ import annotations

from django.views.generic import View

from ...foundation.csv_files import csv_response, to_csv
from ...mixins.cashbook import VIEW, CashBookMixin
from ...models import Printout
from ...services import cash_summary


class SummaryView(CashBookMixin, View):
    permission = VIEW
    http_method_names = ["get"]

    def get(self, request, slug):
        s = cash_summary.summary(self.tournament)
        return self.render(
            "summary.html",
            summary=s,
            figures=s.figures(),
            pdf_kind=Printout.Kind.CHARITY_SUMMARY,
        )


class CsvView(CashBookMixin, View):
    permission = VIEW
    http_method_names = ["get"]

    def get(self, request, slug):
        return csv_response(to_csv(cash_summary.csv_rows(self.tournament)), f"{slug}-cash-book.csv")
