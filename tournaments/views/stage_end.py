"""Ending a stage early from the stage page (the hall must close): a reason is required."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import path

from ..forms.stages import EndStageForm, first_error
from ..services.errors import UserFacingError
from ..services.stage_end import end_stage_early
from .stages import StageControlView, latest_stage


class EndStageView(StageControlView):
    """POST only; a refusal shows the stage page again with the reason still typed."""

    http_method_names = ["post"]

    def post(self, request, slug):
        stage = latest_stage(self.tournament)
        form = EndStageForm(request.POST)
        try:
            if stage is None:
                raise UserFacingError("Draw the pods first.")
            if not form.is_valid():
                raise UserFacingError(first_error(form))
            end_stage_early(stage, form.cleaned_data["reason"], actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return self.render_to_response(self.get_context_data(end_form=form))
        messages.success(request, f"The {stage.get_kind_display().lower()} ended early.")
        return redirect(self.page_url())


urlpatterns = [
    path("t/<slug:slug>/manage/stage/end/", EndStageView.as_view(), name="stage-end"),
]
