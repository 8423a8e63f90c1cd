"""The prize pages: who may award and pay, and the tabs every page renders with."""

from django.template.response import TemplateResponse

from ..permissions import TournamentPermissionMixin, permissions_of

AWARD = "prizes.award"
PAY = "payouts.pay"


class PrizePageMixin(TournamentPermissionMixin):
    """The tournament, the user's codes and the prize pages' tabs."""

    tab = ""

    def context(self, **kwargs):
        codes = permissions_of(self.request.user, self.tournament)
        return {
            "tournament": self.tournament,
            "perms_here": codes,
            "tab": self.tab,
            "can_award": AWARD in codes,
            "can_pay": PAY in codes,
            **kwargs,
        }

    def render(self, template: str, status: int = 200, **kwargs):
        return TemplateResponse(
            self.request, f"tournaments/prizes/{template}", self.context(**kwargs), status=status
        )
