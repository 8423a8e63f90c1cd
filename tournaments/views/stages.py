"""The organiser's stage page: draw the pods, staff them, seat late arrivals, ring the bell.

One page (`stage-control`) shows everything; every change is a POST to its own URL that
calls one service and redirects back with a message. Two GET fragments are for htmx: the
round control, polled every 5 s while the stage is played, and the replay check, loaded
after the page because replaying the draw costs a query per pod.

The page itself runs a fixed number of queries however many pods and players there are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.generic import TemplateView, View
from django_htmx.http import HttpResponseClientRedirect

from scoring.rules.ruleset import MOVEMENT_LABELS, TIE_BREAK_LABELS

from ..forms.stages import (
    CloseRoundForm,
    DrawForm,
    EndStageForm,
    HostessForm,
    LateArrivalForm,
    LeaveForm,
    ReplayForm,
    StaffForm,
    first_error,
    registered_players,
    staff_accounts,
)
from ..models import Player, Pod, RosterChange, Round, Seat, Stage
from ..permissions import TournamentPermissionMixin, permissions_of
from ..pods import PodPlan
from ..services import rounds as round_service
from ..services import stages as stage_service
from ..services.errors import UserFacingError
from ..services.seating import seating_by_pod
from ..services.tournaments import counts
from ..words import count

PERMISSION = "stages.run"
PAGE_TEMPLATE = "tournaments/stages/control.html"
ROUNDS_TEMPLATE = "tournaments/stages/_rounds.html"
REPLAY_TEMPLATE = "tournaments/stages/_replay.html"
CONFIRM_TEMPLATE = "tournaments/stages/draw_confirm.html"


# Page data -------------------------------------------------------------------------------


def draw_plan(players: int) -> PodPlan:
    """What a new draw of this many players makes (the pods `draw_pods` will fill)."""
    split = stage_service.POD_SPLITS[stage_service.DRAW_ALGORITHM]
    return PodPlan.of(players, stage_service.POD_SIZE, split)


@dataclass
class PodRow:
    pod: Pod
    tables: list[list[Seat]]
    # Who plays in the pod from the next round that can change on (pending changes applied).
    members: list[Player] = field(default_factory=list)
    staff_ids: set[int] = field(default_factory=set)

    @property
    def player_seats(self) -> int:
        return sum(1 for table in self.tables for seat in table if seat.player_id)

    @property
    def ghost_seats(self) -> int:
        return sum(1 for table in self.tables for seat in table if not seat.player_id)

    @property
    def hostess_options(self) -> list[Player]:
        """The pod's players, plus the hostess herself if she has left the pod."""
        hostess = self.pod.hostess
        if hostess is not None and all(p.pk != hostess.pk for p in self.members):
            return sorted([*self.members, hostess], key=lambda p: (p.name, p.pk))
        return self.members


def latest_stage(tournament) -> Stage | None:
    return tournament.stages.select_related("drawn_by").order_by("-drawn_at", "-pk").first()


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
    return {
        "stage": stage,
        "current_round": current,
        "round_open": is_open,
        "next_round": upcoming,
        "can_start": not is_open and upcoming is not None,
        "progress": pods,
        "reported": sum(p.reported for p in pods),
        "table_count": sum(p.tables for p in pods),
        "finished": stage.status == Stage.Status.FINISHED,
    }


def pod_rows(stage: Stage, shown: Round | None, changes: list[RosterChange]) -> list[PodRow]:
    pods = list(stage.pods.order_by("number").select_related("hostess").prefetch_related("staff"))
    seating = seating_by_pod(shown) if shown is not None else {}
    # Changes from a later round than the one shown are not in its seats yet.
    pending: dict[int, list[RosterChange]] = {}
    for change in changes:
        if shown is not None and change.from_round > shown.number:
            pending.setdefault(change.pod_id, []).append(change)
    rows = []
    for pod in pods:
        tables = seating.get(pod.pk, [])
        members = {s.player_id: s.player for table in tables for s in table if s.player_id}
        for change in pending.get(pod.pk, []):
            if change.kind == RosterChange.Kind.JOIN:
                members[change.player_id] = change.player
            else:
                members.pop(change.player_id, None)
        rows.append(
            PodRow(
                pod=pod,
                tables=tables,
                members=sorted(members.values(), key=lambda p: (p.name, p.pk)),
                staff_ids={u.pk for u in pod.staff.all()},
            )
        )
    return rows


# Views -----------------------------------------------------------------------------------


class StagePermissionMixin(TournamentPermissionMixin):
    permission = PERMISSION

    def handle_no_permission(self):
        # A poll from a page whose session expired would swap the login page into a card.
        if getattr(self.request, "htmx", False) and not self.request.user.is_authenticated:
            page = reverse("stage-control", args=[self.kwargs["slug"]])
            return HttpResponseClientRedirect(redirect_to_login(page).url)
        return super().handle_no_permission()

    def page_url(self) -> str:
        # No #anchor: the messages are at the top of the page.
        return reverse("stage-control", args=[self.tournament.slug])


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
            context["draw_form"] = DrawForm()
            return context

        rounds = round_context(stage)
        shown = rounds["current_round"]
        changes = list(
            RosterChange.objects.filter(pod__stage=stage).select_related("player", "pod", "by")
        )
        rows = pod_rows(stage, shown, changes)
        seated = {p.pk: row.pod for row in rows for p in row.members}
        registered = list(registered_players(tournament).order_by("name", "pk"))
        unseated = [p for p in registered if p.pk not in seated]
        unseated.sort(key=lambda p: (p.checked_in_at is None, p.name, p.pk))
        leavers = sorted(
            ((p, row.pod) for row in rows for p in row.members), key=lambda x: (x[0].name, x[0].pk)
        )
        context.update(
            rounds,
            rules=rules_summary(stage.rules),
            rows=rows,
            shown_round=shown,
            staff_accounts=list(staff_accounts(tournament)),
            unseated=unseated,
            leavers=leavers,
            changes=changes,
            total_players=sum(row.player_seats for row in rows),
            total_ghosts=sum(row.ghost_seats for row in rows),
        )
        return context


class RoundControlView(StagePermissionMixin, View):
    """The round control card for htmx polling; a plain visit goes to the stage page."""

    http_method_names = ["get"]

    def get(self, request, slug):
        stage = latest_stage(self.tournament)
        if not request.htmx or stage is None:
            return redirect(self.page_url())
        context = {"tournament": self.tournament, **round_context(stage)}
        return TemplateResponse(request, ROUNDS_TEMPLATE, context)


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

    http_method_names = ["post"]

    def post(self, request, slug):
        form = DrawForm(request.POST)
        if not form.is_valid():
            messages.error(request, first_error(form))
            return redirect(self.page_url())
        data = form.cleaned_data
        if not data["confirm"]:
            context = {
                "tournament": self.tournament,
                "perms_here": permissions_of(request.user, self.tournament),
                "form": form,
                "plan": draw_plan(counts(self.tournament).checked_in),
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


class StageActionView(StagePermissionMixin, View):
    """POST only: `act` calls one service and returns the success message."""

    http_method_names = ["post"]

    def post(self, request, slug, **kwargs):
        stage = latest_stage(self.tournament)
        try:
            if stage is None:
                raise UserFacingError("Draw the pods first.")
            message = self.act(stage, **kwargs)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, message)
        return redirect(self.page_url())

    def act(self, stage: Stage, **kwargs) -> str:
        raise NotImplementedError

    def valid(self, form):
        if not form.is_valid():
            raise UserFacingError(first_error(form))
        return form.cleaned_data

    def pod(self, stage: Stage, number: int) -> Pod:
        return get_object_or_404(Pod.objects.select_related("stage"), stage=stage, number=number)


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
