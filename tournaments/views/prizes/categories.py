"""The prize list: load a rule sheet's prizes, add, edit and delete a category, and the one
prize per player switch. Once a prize is paid the list is fixed.
"""

from dataclasses import dataclass
from functools import cached_property

from django.contrib import messages
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect
from django.views.generic import View

from ...forms.prizes import CategoryForm, SwitchForm, TemplateForm, dollars
from ...forms.stages import first_error
from ...models import Payout, Pod, PrizeCategory, RulePreset, Stage, Tournament
from ...prizes import TEMPLATES
from ...services import audit
from ...services import prizes as service
from ...services.errors import UserFacingError
from .common import AWARD, LOCKED, PrizePageMixin, budget_context, list_total_cents, paid_started


def suggested_template(tournament: Tournament) -> str:
    preset = tournament.preset
    if preset.slug in TEMPLATES:
        return preset.slug
    based_on = preset.based_on
    return based_on.slug if based_on is not None and based_on.slug in TEMPLATES else "mesquite"


def template_choices() -> list[tuple[str, str]]:
    labels = dict(RulePreset.objects.filter(slug__in=TEMPLATES).values_list("slug", "label"))
    return [
        (name, f"{labels.get(name, name)} ({len(cats)} categor{'y' if len(cats) == 1 else 'ies'})")
        for name, cats in TEMPLATES.items()
        if cats
    ]


@dataclass(frozen=True)
class CategoryRow:
    category: PrizeCategory
    awarded: bool

    @property
    def amounts(self) -> list[str]:
        return [dollars(c) for c in self.category.amounts_cents]

    @property
    def total(self) -> str:
        return dollars(sum(self.category.amounts_cents))


class PrizeCategoriesView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["get"]
    tab = "prizes"

    def get(self, request, slug):
        t = self.tournament
        categories = list(t.prize_categories.all())
        awarded = set(
            t.awards.current().order_by().values_list("category_id", flat=True).distinct()
        )
        per_pod = sum(sum(c.amounts_cents) for c in categories if c.scope == "pod")
        once = sum(sum(c.amounts_cents) for c in categories if c.scope != "pod")
        pods = Pod.objects.filter(stage__tournament=t, stage__kind=Stage.Kind.QUALIFYING).count()
        budget = budget_context(t, list_total_cents(t, categories, pods))
        return self.render(
            "categories.html",
            rows=[CategoryRow(c, c.pk in awarded) for c in categories],
            locked=paid_started(t),
            template_form=TemplateForm(
                initial={"name": suggested_template(t)}, templates=template_choices()
            ),
            suggested=suggested_template(t),
            per_pod=dollars(per_pod),
            once=dollars(once),
            pods=pods,
            full=dollars(per_pod * pods + once) if pods else "",
            **budget,
        )


class CategoryFormView(PrizePageMixin, View):
    """Adds a category, or edits the one in the URL; refused once prizes are being paid."""

    permission = AWARD
    tab = "prizes"

    @cached_property
    def instance(self) -> PrizeCategory | None:
        pk = self.kwargs.get("pk")
        return get_object_or_404(self.tournament.prize_categories, pk=pk) if pk else None

    def page(self, form, status=200):
        return self.render("category_form.html", status, form=form, category=self.instance)

    def get(self, request, slug, pk=None):
        if paid_started(self.tournament):
            messages.error(request, LOCKED)
            return redirect("prizes", slug)
        return self.page(CategoryForm(tournament=self.tournament, instance=self.instance))

    def post(self, request, slug, pk=None):
        form = CategoryForm(request.POST, tournament=self.tournament, instance=self.instance)
        if paid_started(self.tournament):
            messages.error(request, LOCKED)
            return redirect("prizes", slug)
        if not form.is_valid():
            return self.page(form)
        category = form.save(actor=request.user)
        done = "added" if self.instance is None else "saved"
        note = ""
        if self.tournament.awards.current().exists():
            note = " Award the prizes again on the winners page to apply it."
        messages.success(request, f"{category.label} {done}.{note}")
        return redirect("prizes", slug)


class CategoryDeleteView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        with transaction.atomic():
            Tournament.objects.select_for_update().get(pk=self.tournament.pk)
            category = get_object_or_404(self.tournament.prize_categories, pk=pk)
            if category.awards.current().exists():
                messages.error(
                    request,
                    f"{category.label} has been awarded, so it cannot be deleted. "
                    "Award the prizes again without it first (possible until the first payment).",
                )
                return redirect("prizes", slug)
            if category.awards.exists():
                # Earlier awards are kept (never deleted), and they name this category.
                messages.error(
                    request,
                    f"{category.label} was in earlier awards, which are kept, so it cannot be "
                    "deleted; the current awards no longer include it.",
                )
                return redirect("prizes", slug)
            label = category.label
            audit.record(
                "prizes.category_deleted",
                f"Prize category {label} deleted",
                actor=request.user,
                tournament=self.tournament,
                data={"key": category.key, "amounts_cents": category.amounts_cents},
            )
            category.delete()
        messages.success(request, f"{label} deleted.")
        return redirect("prizes", slug)


class TemplateLoadView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["post"]

    def post(self, request, slug):
        form = TemplateForm(request.POST, templates=template_choices())
        if not form.is_valid():
            messages.error(request, first_error(form))
            return redirect("prizes", slug)
        try:
            made = service.load_template(
                self.tournament, form.cleaned_data["name"], actor=request.user
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"{len(made)} prize categories loaded: edit them below.")
        return redirect("prizes", slug)


class OnePrizeView(PrizePageMixin, View):
    permission = AWARD
    http_method_names = ["post"]

    def post(self, request, slug):
        form = SwitchForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Choose on or off.")
            return redirect("prizes", slug)
        with transaction.atomic():
            t = Tournament.objects.select_for_update().get(pk=self.tournament.pk)
            if Payout.objects.filter(award__tournament=t).exists():
                messages.error(request, LOCKED)
                return redirect("prizes", slug)
            t.one_prize_per_player = form.on
            t.save(update_fields=["one_prize_per_player"])
            state = "on" if form.on else "off"
            audit.record(
                f"prizes.one_per_player_{state}",
                f"One prize per player turned {state}",
                actor=request.user,
                tournament=t,
            )
        if form.on:
            messages.success(
                request, "One prize per player: a winner is passed over by later prizes."
            )
        else:
            messages.success(request, "A player may now win more than one prize.")
        return redirect("prizes", slug)
