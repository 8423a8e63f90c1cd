"""Printout pages: pick a document, watch its progress bar, download it; and the page a score
card's QR code opens.

An admin (`printouts.make`) asks for a document on the printouts page; the request is saved
and the Celery task sent after commit (`services.printouts.request_printout`). Each printout
on the page polls its own row every second through htmx until it is done or failed, so the
bar fills without a reload, then shows the download link, or the error and a "Try again"
button (also shown on a printout queued for long: its message may have been lost). Files
are only ever served by `PrintoutDownloadView`, which checks the permission: MEDIA_ROOT is
never published. A request the broker did not take (Redis down) waits on the
page, which sends it again while it is viewed (`service.send_waiting`): when Redis is back,
the printout starts without anyone asking twice.

The QR code of a score card opens `CardCheckView` with a signed token: staff who may verify
that card are sent to its verification page; anyone else sees the card read-only.
"""

from __future__ import annotations

from functools import cached_property
from urllib.parse import urlencode

from celery import current_app
from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.views.generic import View
from django_htmx.http import HttpResponseClientRedirect

from scoring.presenters.cards import card_layout, with_stage
from scoring.services.cards import load_stage, may_verify
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.site import is_loopback, site_url

from ..models import Player, Printout, Seat
from ..permissions import PUBLIC, TournamentPermissionMixin, permissions_of
from ..services import printouts as service

MAKE = "printouts.make"
PAGE_TEMPLATE = "tournaments/printouts/page.html"
ROW_TEMPLATE = "tournaments/printouts/_printout.html"
SHOWN = 20  # printouts listed on the page
# The documents whose QR codes open the site: score cards, alone or in the packet.
WITH_QR = frozenset({Printout.Kind.SCORE_CARDS, Printout.Kind.PACKET})

WHAT_EACH_IS = {
    Printout.Kind.SCORE_CARDS: "One per player, six to a page to cut apart, with a QR code "
    "that opens the card on the site.",
    Printout.Kind.TALLY_SHEETS: "One per table per set, two to a page.",
    Printout.Kind.SEATING_CHARTS: "A page per pod: starting seats, hostess, staff and the "
    "movement guide, for running a pod on paper.",
    Printout.Kind.PACKET: "Score cards, tally sheets and seating charts in one PDF, for the "
    "night before.",
    Printout.Kind.RESULTS: "Standings per pod, who goes on and why, roll-offs, the final "
    "table and the winner.",
    Printout.Kind.PAYOUT_SHEET: "Every prize with its winner and amount, and boxes for "
    '"ID checked" and "paid by".',
    Printout.Kind.CHARITY_SUMMARY: "The night's money for the charity: money in by method, "
    "donations, prizes paid and given back, expenses and the net raised.",
}


def tasks_in_process() -> bool:
    """True when Celery runs tasks eagerly (no REDIS_URL): the request renders the PDF."""
    return bool(current_app.conf.task_always_eager)


class PrintoutForm(forms.Form):
    kind = forms.ChoiceField(
        label="Document", choices=Printout.Kind.choices, widget=forms.RadioSelect
    )
    stage = forms.ChoiceField(label="Stage", required=False)
    pod = forms.TypedChoiceField(label="Pods", required=False, coerce=int, empty_value=None)
    pagesize = forms.ChoiceField(
        label="Paper",
        choices=Printout.PageSize.choices,
        initial=Printout.PageSize.LETTER,
        widget=forms.RadioSelect,
    )
    print_anyway = forms.BooleanField(
        label="Print anyway: these cards are only for trying out the site on this computer",
        required=False,
    )

    def __init__(self, *args, stages, base_url: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.base_url = base_url
        self.stages = {stage.kind: stage for stage in stages}
        self.fields["stage"].choices = [(s.kind, s.get_kind_display()) for s in stages]
        most = max((s.pod_count for s in stages), default=0)
        self.fields["pod"].choices = [("", "All pods")] + [
            (n, f"Pod {n}") for n in range(1, most + 1)
        ]
        if stages:
            self.fields["stage"].initial = stages[0].kind

    def clean(self):
        data = super().clean()
        stage = self.stages.get(data.get("stage") or "")
        data["stage_obj"], data["pod_obj"] = stage, None
        if (
            data.get("kind") in WITH_QR
            and is_loopback(self.base_url)
            and not data.get("print_anyway")
        ):
            self.add_error(
                "print_anyway",
                f"The QR codes would open {self.base_url}, which only this computer can "
                "reach: players' phones could not open them. Serve the site on the venue's "
                "network first (see the warning above), or tick this box to print anyway.",
            )
        number = data.get("pod")
        if number is not None:
            if stage is None:
                raise forms.ValidationError("Choose the stage the pod belongs to.")
            data["pod_obj"] = stage.pods.filter(number=number).first()
            if data["pod_obj"] is None:
                self.add_error(
                    "pod", f"The {stage.get_kind_display().lower()} has no pod {number}."
                )
        return data


class PrintoutPermissionMixin(TournamentPermissionMixin):
    permission = MAKE

    def handle_no_permission(self):
        # A poll from a page whose session expired would swap the login page into a row.
        if getattr(self.request, "htmx", False) and not self.request.user.is_authenticated:
            page = reverse("printouts", args=[self.kwargs["slug"]])
            return HttpResponseClientRedirect(redirect_to_login(page).url)
        return super().handle_no_permission()

    def page_url(self, printout: Printout | None = None) -> str:
        url = reverse("printouts", args=[self.tournament.slug])
        return f"{url}#printout-{printout.pk}" if printout is not None else url


def row_context(printout: Printout) -> dict:
    for_queue = service.waiting_for_queue(printout)
    stuck = service.stuck(printout)
    return {
        "p": printout,
        "description": service.describe(printout),
        "waiting_for_queue": for_queue,
        "waiting_long": stuck and not for_queue,
        "stuck": stuck,
        "in_process": tasks_in_process(),
    }


class PrintoutsView(PrintoutPermissionMixin, View):
    """The form, and the recent printouts with their progress."""

    http_method_names = ["get", "post"]

    def stages(self):
        stages = service.printable_stages(self.tournament)
        for stage in stages:
            stage.pod_count = stage.pods.count()
        return stages

    def render(self, form, status=200):
        printouts = (
            self.tournament.printouts.filter(expires_at__gt=timezone.now())
            .select_related("stage", "pod", "requested_by")
            .order_by("-requested_at", "-pk")[:SHOWN]
        )
        context = {
            "tournament": self.tournament,
            "perms_here": permissions_of(self.request.user, self.tournament),
            "form": form,
            "kinds": [
                (value, label, WHAT_EACH_IS[value], value in service.TAKES_POD)
                for value, label in Printout.Kind.choices
            ],
            "has_stages": bool(form.stages),
            "needs_stage": sorted(service.NEEDS_STAGE),
            "rows": [row_context(p) for p in printouts],
            "in_process": tasks_in_process(),
            "keep_hours": int(service.KEEP_FOR.total_seconds() // 3600),
            "base_url": form.base_url,
            "loopback": is_loopback(form.base_url),
        }
        return TemplateResponse(self.request, PAGE_TEMPLATE, context, status=status)

    def get(self, request, slug):
        # After a request the page keeps the choices made (kind, stage, paper).
        chosen = {k: request.GET[k] for k in ("kind", "stage", "pagesize") if request.GET.get(k)}
        form = PrintoutForm(stages=self.stages(), base_url=site_url(request))
        for name, value in chosen.items():
            if value in {str(v) for v, _ in form.fields[name].choices}:
                form.initial[name] = value
        service.send_waiting(self.tournament)
        return self.render(form)

    def post(self, request, slug):
        form = PrintoutForm(request.POST, stages=self.stages(), base_url=site_url(request))
        if not form.is_valid():
            return self.render(form, status=400)
        data = form.cleaned_data
        try:
            printout = service.request_printout(
                self.tournament,
                data["kind"],
                request.user,
                stage=data["stage_obj"],
                pod=data["pod_obj"],
                pagesize=data["pagesize"],
                base_url=form.base_url,
            )
        except UserFacingError as exc:
            form.add_error(None, exc.message)
            return self.render(form, status=400)
        printout.refresh_from_db()
        if service.waiting_for_queue(printout):
            messages.warning(request, f"{service.describe(printout)}: {service.QUEUE_DOWN}")
        elif printout.status == Printout.Status.QUEUED:
            messages.info(
                request, f"{service.describe(printout)}: queued; the bar shows its progress."
            )
        kept = urlencode({k: request.POST.get(k, "") for k in ("kind", "stage", "pagesize")})
        url = reverse("printouts", args=[slug])
        return redirect(f"{url}?{kept}#printout-{printout.pk}")


class PrintoutMixin(PrintoutPermissionMixin):
    @cached_property
    def printout(self) -> Printout:
        return get_object_or_404(
            Printout.objects.select_related("tournament", "stage", "pod", "requested_by"),
            pk=self.kwargs["pk"],
            tournament=self.tournament,
        )


class PrintoutStatusView(PrintoutMixin, View):
    """One printout's row, polled by htmx every second until it is done or failed."""

    http_method_names = ["get"]

    def get(self, request, slug, pk):
        if not request.htmx:
            return redirect(self.page_url(self.printout))
        printout = self.printout
        if service.waiting_for_queue(printout) and service.send_waiting(
            self.tournament, printout.pk
        ):
            printout.refresh_from_db()
        return TemplateResponse(request, ROW_TEMPLATE, row_context(printout))


class PrintoutRetryView(PrintoutMixin, View):
    http_method_names = ["post"]

    def post(self, request, slug, pk):
        try:
            printout = service.retry_printout(self.printout, request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
            return redirect(self.page_url(self.printout))
        printout.refresh_from_db()
        if service.waiting_for_queue(printout):
            messages.warning(request, f"{service.describe(printout)}: {service.QUEUE_DOWN}")
        else:
            messages.info(request, f"{service.describe(printout)}: trying again.")
        return redirect(self.page_url(printout))


class PrintoutDownloadView(PrintoutMixin, View):
    """The PDF, to admins of its tournament only, while it has not expired."""

    http_method_names = ["get"]

    def get(self, request, slug, pk):
        printout = self.printout
        if printout.expired:
            return HttpResponse(
                "This printout has expired and been thrown away; make it again.",
                status=410,
                content_type="text/plain; charset=utf-8",
            )
        if printout.status != Printout.Status.DONE or not printout.file.name:
            raise Http404("This printout is not ready.")
        try:
            handle = printout.file.open("rb")
        except FileNotFoundError as exc:
            raise Http404("This printout's file is gone; make it again.") from exc
        response = FileResponse(
            handle,
            as_attachment=True,
            filename=service.file_name(printout),
            content_type="application/pdf",
        )
        response["Cache-Control"] = "private, no-store"
        return response


class CardCheckView(TournamentPermissionMixin, View):
    """Where a score card's QR code leads: staff who may verify the card get its verification
    page; anyone else sees the card as recorded, read-only (like "My score card")."""

    permission = PUBLIC
    http_method_names = ["get"]

    def get(self, request, slug, token):
        found = service.read_card_token(token)
        if found is None:
            raise Http404("This QR code is not one of this tournament's score cards.")
        player_pk, stage_kind = found
        player = get_object_or_404(
            Player.objects.only("pk", "name", "tournament_id"),
            tournament=self.tournament,
            pk=player_pk,
        )
        stage = get_object_or_404(self.tournament.stages, kind=stage_kind)
        seat = (
            Seat.objects.filter(round__stage=stage, player=player)
            .select_related("pod")
            .order_by("-round__number")
            .first()
        )
        if seat is None:
            raise Http404("This player has no card in that stage.")
        pod = seat.pod
        pod.stage, stage.tournament = stage, self.tournament
        if may_verify(request.user, pod):
            url = reverse("card-detail", args=[slug, pod.number, player.pk])
            return redirect(with_stage(url, stage.kind))
        state = load_stage(stage, pod=pod).states[player.pk]
        context = {
            "tournament": self.tournament,
            "player": player,
            "stage": stage,
            "pod": pod.number,
            "state": state,
            "layout": card_layout(stage, state.official, highlighted=state.verified),
        }
        return TemplateResponse(request, "tournaments/printouts/card_check.html", context)


P = "t/<slug:slug>/manage/printouts/"
urlpatterns = [
    path(P, PrintoutsView.as_view(), name="printouts"),
    path(f"{P}<int:pk>/status/", PrintoutStatusView.as_view(), name="printout-status"),
    path(f"{P}<int:pk>/retry/", PrintoutRetryView.as_view(), name="printout-retry"),
    path(f"{P}<int:pk>/download/", PrintoutDownloadView.as_view(), name="printout-download"),
    path("t/<slug:slug>/card/<str:token>/", CardCheckView.as_view(), name="card-check"),
]
