from django.contrib import messages
from django.shortcuts import redirect
from django.urls import path
from django.views.generic import CreateView, TemplateView, UpdateView, View

from tournaments.foundation.errors import UserFacingError

from ..forms.tournament import TournamentForm
from ..foundation.text import count
from ..models import Tournament
from ..permissions import OrganiserRequiredMixin, TournamentPermissionMixin, has_permission
from ..services import mail
from ..services import tournaments as service
from ..services.phase import step_of
from ..services.registration import online_closed_reason


class TournamentCreateView(OrganiserRequiredMixin, CreateView):
    model = Tournament
    form_class = TournamentForm
    template_name = "tournaments/tournament_form.html"

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "user": self.request.user}

    def form_valid(self, form):
        tournament = service.create_tournament(form.instance, actor=self.request.user)
        messages.success(
            self.request, f"{tournament.name} is set up. Open registration when ready."
        )
        return redirect(tournament)


class TournamentEditView(TournamentPermissionMixin, UpdateView):
    permission = "tournament.edit"
    form_class = TournamentForm
    template_name = "tournaments/tournament_form.html"

    def get_object(self, queryset=None):
        return self.tournament

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "user": self.request.user}

    def form_valid(self, form):
        try:
            updated = service.update_tournament(
                form.instance, form.changed_data, actor=self.request.user
            )
        except UserFacingError as exc:
            form.add_error(None, exc.message)
            return self.form_invalid(form)
        self.object, promoted = updated.tournament, updated.promoted
        got = f" {count(len(promoted), 'waitlisted player')} got a place." if promoted else ""
        messages.success(self.request, "Saved." + got)
        return redirect(self.get_success_url())


# How each switch's two states read: (on, off, verb to switch on, verb to switch off).
SWITCH_WORDS = {"standings": ("published", "hidden", "Publish", "Hide")}
DEFAULT_WORDS = ("open", "closed", "Open", "Close")


class DashboardView(TournamentPermissionMixin, TemplateView):
    permission = "tournament.view"
    template_name = "tournaments/dashboard.html"

    def get_context_data(self, **kwargs):
        t = self.tournament
        # Ticked but closed all the same (the pods are drawn, the closing time has passed):
        # the switch says so, as the public form does, instead of "open" beside a button.
        overruled = {"registration": online_closed_reason(t)} if t.registration_open else {}
        switches = [
            (
                key,
                getattr(t, field) and not overruled.get(key),
                label,
                SWITCH_WORDS.get(key, DEFAULT_WORDS),
                overruled.get(key, ""),
            )
            for key, (field, label) in service.SWITCHES.items()
        ]
        # The next step is the organiser's: it links to pages only they may open.
        step = step_of(t) if has_permission(self.request.user, t, "stages.run") else None
        return super().get_context_data(
            counts=service.counts(t),
            switches=switches,
            step=step,
            email_on=mail.enabled(),
            **kwargs,
        )


class SwitchView(TournamentPermissionMixin, View):
    """Opens or closes registration or check-in; POST only, so a link can't flip it."""

    permission = "tournament.edit"
    http_method_names = ["post"]

    def post(self, request, slug, switch):
        value = request.POST.get("value") == "on"
        try:
            service.set_switch(self.tournament, switch, value, actor=request.user)
        except UserFacingError as exc:
            messages.error(request, exc.message)
        else:
            label = service.SWITCHES[switch][1]
            on, off = SWITCH_WORDS.get(switch, DEFAULT_WORDS)[:2]
            verb = "are" if label.endswith("s") else "is"
            messages.success(request, f"{label} {verb} now {on if value else off}.")
        return redirect("tournament-dashboard", slug)


urlpatterns = [
    path("new/", TournamentCreateView.as_view(), name="tournament-create"),
    path("t/<slug:slug>/manage/", DashboardView.as_view(), name="tournament-dashboard"),
    path("t/<slug:slug>/manage/edit/", TournamentEditView.as_view(), name="tournament-edit"),
    path(
        "t/<slug:slug>/manage/switch/<str:switch>/",
        SwitchView.as_view(),
        name="tournament-switch",
    ),
]
