from django.contrib import messages
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import path
from django.views.generic import DetailView, FormView, ListView, UpdateView

from ..forms.tournament import CopyPresetForm, PresetForm
from ..models import RulePreset
from ..permissions import OrganiserRequiredMixin
from ..services.presets import copy_preset


def visible_presets(user):
    return RulePreset.objects.filter(Q(builtin=True) | Q(owner=user))


class PresetListView(OrganiserRequiredMixin, ListView):
    template_name = "tournaments/preset_list.html"
    context_object_name = "presets"

    def get_queryset(self):
        return visible_presets(self.request.user)


class PresetDetailView(OrganiserRequiredMixin, DetailView):
    template_name = "tournaments/preset_detail.html"
    context_object_name = "preset"

    def get_queryset(self):
        return visible_presets(self.request.user)

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            copy_form=CopyPresetForm(initial={"label": f"{self.object.label} (my rules)"}), **kwargs
        )


class PresetCopyView(OrganiserRequiredMixin, FormView):
    form_class = CopyPresetForm
    template_name = "tournaments/preset_detail.html"
    http_method_names = ["post"]

    def form_valid(self, form):
        source = get_object_or_404(visible_presets(self.request.user), slug=self.kwargs["slug"])
        preset = copy_preset(source, form.cleaned_data["label"], self.request.user)
        messages.success(self.request, f"Copied. Adjust {preset.label} below.")
        return redirect("preset-edit", preset.slug)

    def form_invalid(self, form):
        messages.error(self.request, "Give the copy a name.")
        return redirect("preset-detail", self.kwargs["slug"])


class PresetEditView(OrganiserRequiredMixin, UpdateView):
    """Only an organiser's own copies are editable: the shipped presets are the rule sheets."""

    form_class = PresetForm
    template_name = "tournaments/preset_form.html"
    context_object_name = "preset"

    def get_object(self, queryset=None):
        preset = get_object_or_404(RulePreset, slug=self.kwargs["slug"])
        if preset.builtin or preset.owner_id != self.request.user.pk:
            raise Http404("Only your own presets can be edited; copy a built-in one first.")
        return preset

    def form_valid(self, form):
        messages.success(self.request, "Preset saved.")
        return super().form_valid(form)

    def get_success_url(self):
        return self.object.get_absolute_url()


urlpatterns = [
    path("presets/", PresetListView.as_view(), name="preset-list"),
    path("presets/<slug:slug>/", PresetDetailView.as_view(), name="preset-detail"),
    path("presets/<slug:slug>/copy/", PresetCopyView.as_view(), name="preset-copy"),
    path("presets/<slug:slug>/edit/", PresetEditView.as_view(), name="preset-edit"),
]
