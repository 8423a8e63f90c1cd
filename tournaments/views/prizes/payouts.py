"""The prize table: find a winner, the confirm step (here in person, photo ID checked; never
paid twice), and voiding a payment with a reason.
"""

from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urlencode

from django.contrib import messages
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.generic import View

from scoring.queue import already
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error
from tournaments.rules import cashbook as book

from ...forms.prizes import PayForm, VoidForm
from ...forms.search import SearchForm
from ...foundation.search import player_matches
from ...foundation.text import money, ordinal
from ...mixins.prizes import PAY, PrizePageMixin
from ...models import Payout, PrizeAward
from ...services import cash_boxes, cashbook
from ...services import payouts as payout_service


@dataclass(frozen=True)
class ShareRow:
    award: PrizeAward
    live: Payout | None
    voided: list[Payout]

    @property
    def amount(self) -> str:
        return money(self.award.amount_cents)

    @property
    def prize(self) -> str:
        return f"{self.award.category.label} · {self.award.where_won}"

    @property
    def place(self) -> str:
        return ordinal(self.award.place)


def share_rows(awards) -> list[ShareRow]:
    rows = []
    for award in awards:
        payouts = list(award.payouts.all())
        live = next((p for p in payouts if p.voided_at is None), None)
        rows.append(ShareRow(award, live, [p for p in payouts if p.voided_at is not None]))
    return rows


def awards_with_payouts(tournament):
    return (
        tournament.awards.current()
        .select_related("player", "category")
        .prefetch_related(
            Prefetch(
                "payouts",
                queryset=Payout.objects.select_related("paid_by", "voided_by").order_by(
                    "paid_at", "id"
                ),
            )
        )
    )


def payouts_url(slug: str, q: str = "") -> str:
    base = reverse("payouts", args=[slug])
    return f"{base}?{urlencode({'q': q})}" if q else base


class PayoutsView(PrizePageMixin, View):
    permission = PAY
    http_method_names = ["get"]
    tab = "payouts"

    def get(self, request, slug):
        search = SearchForm(request.GET)
        q = search.query
        awards = awards_with_payouts(self.tournament)
        if q:
            awards = awards.filter(player_matches(q, prefix="player__"))
        rows = share_rows(awards)
        unpaid = [r for r in rows if r.live is None]
        return self.render(
            "payouts.html",
            search=search,
            q=q,
            rows=rows,
            unpaid_count=len(unpaid),
            unpaid_total=money(sum(r.award.amount_cents for r in unpaid)),
            paid_count=len(rows) - len(unpaid),
            paid_total=money(sum(r.live.amount_cents for r in rows if r.live)),
            any_awards=bool(rows) or (bool(q) and self.tournament.awards.current().exists()),
            void_form=VoidForm(),
            box_note=(note := cash_boxes.payout_note(self.tournament)),
            payable=note != book.NO_BOX_TO_PAY_FROM,
        )


class PayView(PrizePageMixin, View):
    """The confirm step: the winner, their code and the amount, big; two boxes to tick."""

    permission = PAY
    tab = "payouts"

    @cached_property
    def award(self) -> PrizeAward:
        return get_object_or_404(
            self.tournament.awards.current().select_related("player", "category"),
            pk=self.kwargs["award_pk"],
        )

    def page(self, form, *, error: str = "", status: int = 200):
        live = self.award.payouts.filter(voided_at__isnull=True).select_related("paid_by").first()
        note = cash_boxes.payout_note(self.tournament)
        return self.render(
            "pay.html",
            status,
            award=self.award,
            amount=money(self.award.amount_cents),
            where=self.award.where_won,
            place=ordinal(self.award.place),
            live=live,
            form=form,
            error=error,
            box_note=note,
            payable=note != book.NO_BOX_TO_PAY_FROM,
            back=payouts_url(self.tournament.slug, form["q"].value() or ""),
        )

    def get(self, request, slug, award_pk):
        return self.page(PayForm(initial={"q": request.GET.get("q", "")[:100]}))

    def post(self, request, slug, award_pk):
        form = PayForm(request.POST)
        if not form.is_valid():
            if "give_back" in form.errors:
                return self.page(form, error=f"Not paid: {form.errors['give_back'][0]}")
            return self.page(
                form,
                error="Not paid. Tick both boxes: the winner must be here in person, "
                "with a photo ID you checked.",
            )
        back = form.cleaned_data["give_back"]
        try:
            payout = payout_service.pay(
                self.award,
                actor=request.user,
                present=form.cleaned_data["present"],
                id_checked=form.cleaned_data["id_checked"],
                give_back_cents=back,
                idempotency_key=request.POST.get("idempotency_key"),
            )
        except UserFacingError as exc:
            return self.page(form, error=exc.message, status=409)
        player = self.award.player
        text = (
            f"Paid {money(payout.amount_cents)} to {player.name} ({player.code}) for "
            f"{self.award.category.label}, {self.award.where_won.lower()}."
            + (f" {money(back)} given back to the charity: thank you!" if back else "")
        )
        if cash_boxes.paid_from(self.award) == book.DESK:
            text += " The cash came out of the desk's box: the prize table's was counted."
        messages.success(request, already(payout.replayed, text))
        return redirect(payouts_url(slug, form.cleaned_data["q"]))


class VoidView(PrizePageMixin, View):
    permission = PAY
    http_method_names = ["post"]

    def post(self, request, slug, payout_pk):
        payout = get_object_or_404(
            Payout.objects.filter(award__tournament=self.tournament).select_related(
                "award__player"
            ),
            pk=payout_pk,
        )
        form = VoidForm(request.POST)
        back = payouts_url(slug, (request.POST.get("q") or "")[:100])
        if not form.is_valid():
            messages.error(
                request,
                f"Not voided: {form.errors['reason'][0]}"
                if "reason" in form.errors
                else first_error(form),
            )
            return redirect(back)
        try:
            payout_service.void(payout, actor=request.user, reason=form.cleaned_data["reason"])
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            closed = cashbook.closed_boxes(self.tournament)
            again = (
                book.NO_BOX_TO_PAY_FROM
                if book.payout_box(closed) == ""
                else "The prize can be paid again."
            )
            if cash_boxes.paid_from(payout.award) in closed:
                again += (
                    " Its box was counted, so the cash handed back is recorded outside the "
                    "boxes: keep it apart for the treasurer."
                )
            messages.success(
                request,
                f"Payment of {money(payout.amount_cents)} to {payout.award.player.name} "
                f"voided. {again}",
            )
        return redirect(back)
