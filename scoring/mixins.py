"""What the game's pages share above the presenters: which pod a staff page is about, and
whether this person may act on it; who may see the standings.

Pods are numbered within a stage, so a pod URL means the latest stage's pod unless
`?stage=<kind>` names an earlier stage (correcting a qualifying result after the semi-final
was drawn). Staff open these pages all evening, once or twice a save: the pod, its stage,
tournament and rules, the person's roles there, whether they are assigned to the pod and the
round the URL names all come in one query (`pod_for_request`), and the permission checks
read that row instead of asking again.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, F, OuterRef, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse

from scoring.presenters.cards import MODE_NOTES, MODE_TITLES, with_stage
from scoring.presenters.stages import pick_stage, stages_newest_first
from scoring.services.cards import (
    may_verify,
)
from scoring.services.results import may_record
from scoring.services.rounds import join_round, joined_round
from tournaments.models import Pod, Round, Stage
from tournaments.permissions import (
    TournamentPermissionMixin,
    has_permission,
    permissions_of,
    remember_roles,
    role_flags,
)


def pod_for_request(
    user, slug: str, number: int, kind: str | None, round_number: int | None = None
) -> Pod | None:
    """The pod with its stage, tournament, preset and hostess, the user's roles at the
    tournament (`remember_roles`), `assigned` (the user is on its staff), `latest_stage` (the
    pk of the tournament's latest stage) and, given `round_number`, that round (`url_round`,
    None when there is none): one query. None when the URL names no such pod; the caller then
    takes the long way, which says why (no tournament, no permission, no stage, no pod)."""
    latest = Stage.objects.filter(tournament=OuterRef("stage__tournament")).order_by(
        "-drawn_at", "-pk"
    )
    pods = (
        Pod.objects.select_related(
            "stage__tournament__preset", "stage__tournament__change_counter", "hostess"
        )
        .filter(stage__tournament__slug=slug, number=number)
        .annotate(latest_stage=Subquery(latest.values("pk")[:1]))
        .annotate(**role_flags(user, "stage__tournament"))
    )
    if user.is_authenticated:
        on_staff = Pod.staff.through.objects.filter(pod=OuterRef("pk"), user_id=user.pk)
        pods = pods.annotate(assigned=Exists(on_staff))
    # `?stage=` names a stage kind; anything else (a typo, a crafted link) means the latest,
    # as `pick_stage` reads it, and never reaches the database.
    if kind in Stage.Kind.values:
        pods = pods.filter(stage__kind=kind)
    else:
        pods = pods.filter(stage_id=F("latest_stage"))
    if round_number is not None:
        pods = join_round(pods, rounds="stage__rounds", number=round_number, as_="url_round")
    pod = pods.order_by("-stage__drawn_at", "-stage__pk").first()
    if pod is None:
        return None
    if user.is_authenticated:
        pod.assigned_to = (user.pk, pod.assigned)
    pod.url_round = None
    if round_number is not None and (url_round := joined_round(pod, "url_round")) is not None:
        pod.url_round = url_round
        url_round.stage = pod.stage
    return pod


# Recording results: the code of the pod and table pages (cards use `cards.verify`).
ENTER = "results.enter"


class PodAccessMixin(TournamentPermissionMixin):
    """The tournament permission check, then the pod from the URL and `pod_permission`
    (recording results here; verifying cards in the card views), checked before GET and POST
    alike. Sets `pod`, `stage`, `stage_query` ("" for the latest stage's pod) and, for URLs
    naming a round, `url_round`."""

    pod_permission = staticmethod(may_record)

    def load_tournament(self, request, **kwargs):
        self.pod = pod_for_request(
            request.user,
            kwargs["slug"],
            kwargs["number"],
            request.GET.get("stage"),
            kwargs.get("round_number"),
        )
        if self.pod is None:
            return super().load_tournament(request, **kwargs)
        self.stage = self.pod.stage
        self.stage_query = "" if self.stage.pk == self.pod.latest_stage else self.stage.kind
        self.url_round = self.pod.url_round
        tournament = self.stage.tournament
        remember_roles(request.user, tournament, self.pod)
        return tournament

    def check_target(self, request, **kwargs) -> None:
        if self.pod is None:
            self.find_pod(request, kwargs)
        if not self.pod_permission(request.user, self.pod):
            raise PermissionDenied(f"You are not assigned to {self.pod}.")

    def find_pod(self, request, kwargs) -> None:
        """The long way, when `pod_for_request` found nothing: 404 with the reason."""
        stages = stages_newest_first(self.tournament)
        self.stage = pick_stage(stages, request.GET.get("stage"))
        if self.stage is None:
            raise Http404("No pods have been drawn yet.")
        # Links keep ?stage= only when it is not the latest stage's pod.
        self.stage_query = "" if self.stage is stages[0] else self.stage.kind
        self.pod = get_object_or_404(
            Pod.objects.select_related("hostess"), stage=self.stage, number=kwargs["number"]
        )
        self.pod.stage = self.stage
        self.stage.tournament = self.tournament
        self.url_round = None
        if "round_number" in kwargs:
            self.url_round = Round.objects.filter(
                stage=self.stage, number=kwargs["round_number"]
            ).first()


class CardPodAccessMixin(PodAccessMixin):
    """The pod from the URL, for people who may verify its cards (`may_verify`)."""

    pod_permission = staticmethod(may_verify)

    def pod_cards_url(self, anchor: str = "") -> str:
        url = reverse("pod-cards", args=[self.tournament.slug, self.pod.number])
        return with_stage(url, self.stage_query, anchor)

    def card_url(self, player_id: int) -> str:
        url = reverse("card-detail", args=[self.tournament.slug, self.pod.number, player_id])
        return with_stage(url, self.stage_query)

    def base_context(self) -> dict:
        return {
            "tournament": self.tournament,
            "perms_here": permissions_of(self.request.user, self.tournament),
            "stage": self.stage,
            "pod": self.pod,
            "stage_query": self.stage_query,
            "snake_eyes": bool(self.stage.rules.get("snake_eyes")),
            "verification": self.stage.verification,
            "mode_title": MODE_TITLES[self.stage.verification],
            "mode_note": MODE_NOTES[self.stage.verification],
        }


class StandingsAccessMixin:
    """Public once published; before that, anyone who may see the tournament's dashboard."""

    def dispatch(self, request, *args, **kwargs):
        self.insider = has_permission(request.user, self.tournament, VIEW)
        if not (self.tournament.standings_public or self.insider):
            # A player's shared link: say so, instead of the staff sign-in page.
            return TemplateResponse(
                request,
                "scoring/not_published.html",
                {"tournament": self.tournament},
                status=403,
            )
        return super().dispatch(request, *args, **kwargs)


VIEW = "tournament.view"
