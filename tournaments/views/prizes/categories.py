"""The prize list: load a rule sheet's prizes, add, edit and delete a category, and the one
prize per player switch. Once a prize is paid the list is fixed.
"""

from dataclasses import dataclass
from functools import cached_property

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.views.generic import View

from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from ...forms.prizes import CategoryForm, SwitchForm, TemplateForm
from ...foundation.text import money
from ...mixins.prizes import AWARD, PrizePageMixin
from ...models import PrizeCategory, RulePreset, Tournament
from ...presenters.prize_budget import budget_context, list_line
from ...rules.prizes import TEMPLATES
from ...services import prize_categories as category_service
from ...services import prize_list
from ...services import prizes as service
from ...services.prize_categories import LOCKED, paid_started


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
        return [money(c) for c in self.category.amounts_cents]

    @property
    def total(self) -> str:
        return money(sum(self.category.amounts_cents))


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
        counted, drawn = prize_list.counted_players(t), prize_list.drawn_pods(t)
        pods = prize_list.pods_by_stage(t, counted[0], drawn)
        total = prize_list.list_total_cents(t, categories, pods=pods)
        line = list_line(categories, counted, drawn, pods, total)
        budget = budget_context(t, total, counted)
        return self.render(
            "categories.html",
            rows=[CategoryRow(c, c.pk in awarded) for c in categories],
            locked=paid_started(t),
            template_form=TemplateForm(
                initial={"name": suggested_template(t)}, templates=template_choices()
            ),
            suggested=suggested_template(t),
            **line,
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
        try:
            category = category_service.category_save(
                tournament=self.tournament,
                category=self.instance,
                key=form.key,
                fields=form.values(),
                actor=request.user,
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect("prizes", slug)
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
        get_object_or_404(self.tournament.prize_categories, pk=pk)
        try:
            label = category_service.category_delete(
                tournament=self.tournament, pk=pk, actor=request.user
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect("prizes", slug)
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
        try:
            category_service.one_prize_per_player_set(
                tournament=self.tournament, on=form.on, actor=request.user
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect("prizes", slug)
        if form.on:
            messages.success(
                request, "One prize per player: a winner is passed over by later prizes."
            )
        else:
            messages.success(request, "A player may now win more than one prize.")
        return redirect("prizes", slug)
