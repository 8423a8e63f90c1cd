"""What the game's pages share above the presenters: which pod a staff page is about, and
whether this person may act on it; who may see the standings.

Pods are numbered within a stage, so a pod URL means the latest stage's pod unless
`?stage=<kind>` names an earlier stage (correcting a qualifying result after the semi-final
was drawn). Staff open these pages all evening, once or twice a save: the pod, its stage,
tournament and rules, the person's roles there, whether they are assigned to the pod and the
round the URL names all come in one statement (`scoring/services/pod_lookup.py`), and the
permission checks read that row instead of asking again.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse

from scoring.presenters.cards import MODE_NOTES, MODE_TITLES, with_stage
from scoring.presenters.stages import pick_stage, stages_newest_first
from scoring.services.cards import (
    may_verify,
)
from scoring.services.pod_lookup import pod_for_request
from scoring.services.results import may_record
from tournaments.models import Pod, Round, Stage
from tournaments.permissions import (
    TournamentPermissionMixin,
    has_permission,
    permissions_of,
    remember_roles,
)

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
            # Named with its stage: staff of the qualifying stage's pod 1 are not the
            # semi-final's pod 1 staff, and "not assigned to Pod 1" alone read as a mistake.
            stage = "semi-final" if self.stage.kind == Stage.Kind.SEMI_FINAL else "qualifying stage"
            raise PermissionDenied(f"You are not assigned to {self.pod} of the {stage}.")

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
