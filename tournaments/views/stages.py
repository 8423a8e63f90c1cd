"""The organiser's stage page: draw the pods, staff them, seat late arrivals, ring the bell.

One page (`stage-control`) shows everything; every change is a POST to its own URL that
calls one service and redirects back with a message. Two GET fragments are for htmx: the
round control, fetched again whenever the room changes (live.js), and the replay check, loaded
after the page because replaying the draw costs a query per pod.

The page itself runs a fixed number of queries however many pods and players there are.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.views.generic import TemplateView, View

from scoring.rules.pods import PodPlan, draw_refusal
from scoring.rules.ruleset import MOVEMENT_LABELS, TIE_BREAK_LABELS
from scoring.services import rounds as round_service
from scoring.services.phones import pod_phones
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import first_error

from .. import http_cache
from ..forms.stages import (
    CloseRoundForm,
    DrawForm,
    EndStageForm,
    HostessForm,
    LateArrivalForm,
    LeaveForm,
    ReplayForm,
    StaffForm,
    staff_accounts,
)
from ..foundation.text import count, whole_number
from ..mixins.stages import StageActionView, StagePermissionMixin, latest_stage
from ..models import Draw, RosterChange, Round, Stage
from ..permissions import permissions_of
from ..presenters.pod_table import pod_rows, unseated_players
from ..rules.draws import pods_subject
from ..services import draws as draw_service
from ..services import stages as stage_service
from ..services.ghost_seats import seat_count
from ..services.stage_end import end_stage_early
from ..services.tournaments import counts

# A page of pods: "Pods 1-10, 11-20" reads at a glance, and a page costs about the same
# whatever the size of the room (bench/pages.py). The round card names the pods still
# playing once this many or fewer are left.
PODS_PER_PAGE = 10
PAGE_TEMPLATE = "tournaments/stages/control.html"
ROUNDS_TEMPLATE = "tournaments/stages/_rounds.html"
REPLAY_TEMPLATE = "tournaments/stages/_replay.html"
CONFIRM_TEMPLATE = "tournaments/stages/draw_confirm.html"


# Page data -------------------------------------------------------------------------------


def draw_plan(players: int) -> PodPlan:
    """What a new draw of this many players makes (the pods `draw_pods` will fill)."""
    split = stage_service.POD_SPLITS[stage_service.DRAW_ALGORITHM]
    return PodPlan.of(players, stage_service.POD_SIZE, split)


def rules_summary(rules: dict) -> dict:
    movement, tie_break = rules.get("movement"), rules.get("table_tie_break")
    return {
        **rules,
        "movement_label": MOVEMENT_LABELS.get(movement, movement),
        "tie_break_label": TIE_BREAK_LABELS.get(tie_break, tie_break),
    }


def round_context(stage: Stage) -> dict:
    """The round control card: a handful of queries whatever the size of the event."""
    current = round_service.current_round(stage)
    try:
        upcoming = stage_service.next_round_for_changes(stage)
    except UserFacingError:
        upcoming = None  # every round has started
    is_open = current is not None and current.status == Round.Status.OPEN
    pods = round_service.progress(current) if is_open else []
    # Which pods are still playing, by name, once few are left: at the start of a round of a
    # 100-pod room a badge a pod is a wall nobody reads, and the card is fetched on every save.
    playing = [p for p in pods if not p.complete]
    return {
        "stage": stage,
        "current_round": current,
        "round_open": is_open,
        "next_round": upcoming,
        "can_start": not is_open and upcoming is not None,
        "still_playing": playing if len(playing) <= PODS_PER_PAGE else [],
        "pods_playing": len(playing),
        "shown_playing": PODS_PER_PAGE,
        "pods_complete": len(pods) - len(playing),
        "pod_count": len(pods),
        "reported": sum(p.reported for p in pods),
        "table_count": sum(p.tables for p in pods),
        "finished": stage.status == Stage.Status.FINISHED,
    }


# Views -----------------------------------------------------------------------------------


class StageControlView(StagePermissionMixin, TemplateView):
    template_name = PAGE_TEMPLATE

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        tournament = self.tournament
        stage = latest_stage(tournament)
        context["stage"] = stage
        context.setdefault("end_form", EndStageForm())
        if stage is None:
            tally = counts(tournament)
            context["counts"] = tally
            context["plan"] = draw_plan(tally.checked_in)
            context["draw_refusal"] = draw_refusal(tally.checked_in)
            context["draw_form"] = DrawForm()
            return context

        rounds = round_context(stage)
        shown = rounds["current_round"]
        changes = list(
            RosterChange.objects.filter(pod__stage=stage).select_related("player", "pod", "by")
        )
        # A page of pods at a time, so the page costs the same in a room of 1,200.
        pods = stage.pods.count()
        pages = max(1, -(-pods // PODS_PER_PAGE))
        page = min(max(whole_number(self.request.GET.get("page", "")) or 1, 1), pages)
        low = (page - 1) * PODS_PER_PAGE + 1
        rows = pod_rows(stage, shown, changes, (low, low + PODS_PER_PAGE - 1))
        synced = pod_phones(stage)
        for row in rows:
            row.phones = synced.get(row.pod.pk)
        totals = seat_count(shown, changes)
        source = draw_service.code_source(tournament, pods_subject(stage.kind), stage.seed)
        leavers = sorted(
            ((p, row.pod) for row in rows for p in row.members), key=lambda x: (x[0].name, x[0].pk)
        )
        context.update(
            rounds,
            rules=rules_summary(stage.rules),
            rows=rows,
            pods=pods,
            pages=[
                (n, (n - 1) * PODS_PER_PAGE + 1, min(n * PODS_PER_PAGE, pods))
                for n in range(1, pages + 1)
            ]
            if pages > 1
            else [],
            page=page,
            shown_round=shown,
            staff_accounts=list(staff_accounts(tournament)),
            unseated=unseated_players(tournament, shown, changes),
            leavers=leavers,
            changes=changes,
            total_players=totals.players,
            total_ghosts=totals.ghosts,
            totals_from=totals.changes_from,
            code_origin=draw_service.origin_words(source),
            practice_draw=source == Draw.Source.PRACTICE,
        )
        return context


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


class RoundControlView(StagePermissionMixin, View):
    """The round control card for htmx polling; a plain visit goes to the stage page."""

    http_method_names = ["get"]

    def get(self, request, slug):
        if not request.htmx:
            return redirect(self.page_url())

        def render():
            stage = latest_stage(self.tournament)
            if stage is None:
                return redirect(self.page_url())
            context = {"tournament": self.tournament, **round_context(stage)}
            return TemplateResponse(request, ROUNDS_TEMPLATE, context)

        # Asked for again whenever the room changes; its buttons carry this browser's token.
        return http_cache.answer(request, self.tournament, render, private=True)


class ReplayCheckView(StagePermissionMixin, View):
    """Replays the stored inputs with the stored draw code, or with one typed in to compare
    (a code worked out from the published secret); loaded after the page (a query per pod).
    A GET that only compares: a typed code never draws or saves anything."""

    http_method_names = ["get"]

    def get(self, request, slug):
        stage = latest_stage(self.tournament)
        if stage is None:
            return redirect(self.page_url())
        form = ReplayForm(request.GET)
        if not form.is_valid():
            messages.error(request, first_error(form))
            return redirect(self.page_url())
        code = form.cleaned_data["code"]
        matches = stage_service.replay_matches(stage, code)
        if request.htmx and code is None:
            return TemplateResponse(request, REPLAY_TEMPLATE, {"replay": matches})
        code = stage.seed if code is None else code
        if matches:
            messages.success(request, f"Replay check: draw code {code} gives the same pods.")
        else:
            messages.error(request, f"Replay check: draw code {code} gives different pods.")
        return redirect(self.page_url())


class DrawView(StagePermissionMixin, View):
    """First POST shows what will happen; the confirmed POST closes check-in and draws."""

    http_method_names = ["get", "post"]

    def get(self, request, slug):
        """The confirmation's address opened again (back, reload, a bookmark): the stage
        page, where the draw is asked for, instead of a blank "not allowed"."""
        return redirect(self.page_url())

    def post(self, request, slug):
        form = DrawForm(request.POST)
        if not form.is_valid():
            messages.error(request, first_error(form))
            return redirect(self.page_url())
        data = form.cleaned_data
        if not data["confirm"]:
            checked_in = counts(self.tournament).checked_in
            if refusal := draw_refusal(checked_in):
                messages.error(request, refusal)
                return redirect(self.page_url())
            context = {
                "tournament": self.tournament,
                "perms_here": permissions_of(request.user, self.tournament),
                "form": form,
                "plan": draw_plan(checked_in),
                "already_drawn": self.tournament.stages.filter(kind=Stage.Kind.QUALIFYING).exists(),
            }
            return TemplateResponse(request, CONFIRM_TEMPLATE, context)
        try:
            stage = stage_service.draw_qualifying(
                self.tournament, actor=request.user, spread_groups=data["spread_groups"]
            )
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect(self.page_url())
        plan = draw_plan(len(stage.draw_input["players"]))
        messages.success(
            request,
            f"Drawn: {count(plan.players, 'player')} in {count(plan.pods, 'pod')}, "
            f"{count(plan.ghosts, 'ghost seat')}, "
            f"draw code {stage.seed}. Check-in is closed.",
        )
        return redirect(self.page_url())


class HostessView(StageActionView):
    def act(self, stage, number):
        pod = self.pod(stage, number)
        player = self.valid(HostessForm(self.request.POST, tournament=self.tournament))["player"]
        stage_service.set_hostess(pod, player, actor=self.request.user)
        return f"{player.name} is the hostess of {pod}."


class StaffView(StageActionView):
    def act(self, stage, number):
        pod = self.pod(stage, number)
        users = self.valid(StaffForm(self.request.POST, tournament=self.tournament))["staff"]
        stage_service.assign_staff(pod, users, actor=self.request.user)
        names = ", ".join(u.get_username() for u in users)
        return f"{pod}: staff {names}." if names else f"{pod} has no staff now."


class LateArrivalView(StageActionView):
    def act(self, stage):
        data = self.valid(LateArrivalForm(self.request.POST, stage=stage))
        round_ = stage_service.next_round_for_changes(stage)
        player = data["player"]
        pod = stage_service.seat_late_arrival(
            stage, player, actor=self.request.user, pod=data["pod"]
        )
        return f"{player.name} takes a ghost seat in {pod} from round {round_.number}."


class LeaveView(StageActionView):
    def act(self, stage):
        player = self.valid(LeaveForm(self.request.POST, tournament=self.tournament))["player"]
        round_ = stage_service.next_round_for_changes(stage)
        pod = stage_service.player_leaves(stage, player, actor=self.request.user)
        return f"{player.name} leaves {pod} from round {round_.number}; a ghost takes the seat."


class StartRoundView(StageActionView):
    def act(self, stage):
        round_ = round_service.start_next_round(stage, actor=self.request.user)
        return f"Round {round_.number} started: everyone rolls for {round_.target}s."


class CloseRoundView(StageActionView):
    def act(self, stage):
        number = self.valid(CloseRoundForm(self.request.POST))["round"]
        round_ = get_object_or_404(
            Round.objects.select_related("stage"), stage=stage, number=number
        )
        round_service.close_round(round_, actor=self.request.user)
        return f"Round {round_.number} closed."


urlpatterns = [
    path("t/<slug:slug>/manage/stage/end/", EndStageView.as_view(), name="stage-end"),
    path("t/<slug:slug>/manage/stage/", StageControlView.as_view(), name="stage-control"),
    path("t/<slug:slug>/manage/stage/draw/", DrawView.as_view(), name="stage-draw"),
    path("t/<slug:slug>/manage/stage/rounds/", RoundControlView.as_view(), name="stage-rounds"),
    path("t/<slug:slug>/manage/stage/replay/", ReplayCheckView.as_view(), name="stage-replay"),
    path("t/<slug:slug>/manage/stage/start/", StartRoundView.as_view(), name="stage-start"),
    path("t/<slug:slug>/manage/stage/close/", CloseRoundView.as_view(), name="stage-close"),
    path("t/<slug:slug>/manage/stage/join/", LateArrivalView.as_view(), name="stage-join"),
    path("t/<slug:slug>/manage/stage/leave/", LeaveView.as_view(), name="stage-leave"),
    path(
        "t/<slug:slug>/manage/stage/pods/<int:number>/hostess/",
        HostessView.as_view(),
        name="stage-hostess",
    ),
    path(
        "t/<slug:slug>/manage/stage/pods/<int:number>/staff/",
        StaffView.as_view(),
        name="stage-staff",
    ),
]
