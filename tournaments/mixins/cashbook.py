"""The cash book's pages: who may see and record, and the tabs every page renders with."""

from __future__ import annotations

from django.template.response import TemplateResponse

from tournaments.rules import cashbook as book

from ..permissions import TournamentPermissionMixin, permissions_of

VIEW = "money.view"
RECORD = "money.record"


class CashBookMixin(TournamentPermissionMixin):
    def render(self, template: str, status: int = 200, **kwargs) -> TemplateResponse:
        codes = permissions_of(self.request.user, self.tournament)
        context = {
            "tournament": self.tournament,
            "perms_here": codes,
            "can_record": RECORD in codes,
            "box_keys": list(book.BOX_LABELS.items()),
            **kwargs,
        }
        return TemplateResponse(
            self.request, f"tournaments/cashbook/{template}", context, status=status
        )
