"""For the charity: the night's summary page, the PDF (through the printout tasks) and the
CSV of every entry for the accountant."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.generic import View

from ...models import Printout
from ...services import cash_summary
from ...services.csv_io import to_csv
from .common import VIEW, CashBookMixin


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
        response = HttpResponse(
            to_csv(cash_summary.csv_rows(self.tournament)),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{slug}-cash-book.csv"'
        return response
