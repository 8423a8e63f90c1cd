"""The organiser's player pages: list, add, edit, withdraw, reinstate, import and export.

Admins (registrations.view) may list and export; every change needs registrations.manage.
"""

from functools import cached_property

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import path
from django.views.generic import FormView, ListView, TemplateView, View

from tournaments.foundation.errors import UserFacingError

from ..forms.players import ImportForm, PlayerForm, PlayerSearchForm, StatusChangeForm
from ..foundation.csv_files import csv_response
from ..models import Player
from ..permissions import TournamentPermissionMixin, has_permission
from ..services import csv_export, csv_import, csv_io, registration
from ..services import players as service
from ..services.tournaments import counts

VIEW = "registrations.view"
MANAGE = "registrations.manage"


def _places_left(tournament) -> int:
    return max(tournament.capacity - registration.active_players(tournament).count(), 0)


class PlayerListView(TournamentPermissionMixin, ListView):
    """A fixed number of queries per page: counts, the page's count and the page's rows."""

    permission = VIEW
    template_name = "tournaments/players/list.html"
    context_object_name = "players"
    paginate_by = 50

    def get_queryset(self):
        self.search = PlayerSearchForm(self.request.GET)
        self.search.is_valid()  # an invalid part is ignored; the valid parts still filter
        return service.search_players(
            self.tournament,
            self.search.cleaned_data.get("q", ""),
            self.search.cleaned_data.get("status", ""),
        )

    def paginate_queryset(self, queryset, page_size):
        # A stale page number (after a search narrowed the list) shows the last page, not 404.
        paginator = self.get_paginator(queryset, page_size)
        page = paginator.get_page(self.request.GET.get("page"))
        return paginator, page, page.object_list, page.has_other_pages()

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            search=self.search,
            counts=counts(self.tournament),
            can_manage=has_permission(self.request.user, self.tournament, MANAGE),
            **kwargs,
        )


class PlayerAddView(TournamentPermissionMixin, FormView):
    """Works while public registration is closed; capacity still applies."""

    permission = MANAGE
    form_class = PlayerForm
    template_name = "tournaments/players/form.html"

    def form_valid(self, form):
        try:
            player = registration.register(
                self.tournament,
                form.registrant(),
                source=Player.Source.ORGANISER,
                actor=self.request.user,
            )
        except UserFacingError as exc:
            form.add_error(exc.field, exc.message)
            return self.form_invalid(form)
        messages.success(self.request, f"{player.name} added with code {player.code}.")
        if "another" in self.request.POST:
            return redirect("player-add", self.tournament.slug)
        return redirect("player-list", self.tournament.slug)

    def get_context_data(self, **kwargs):
        return super().get_context_data(places_left=_places_left(self.tournament), **kwargs)


class PlayerMixin(TournamentPermissionMixin):
    """The player named in the URL, looked up only after the permission check passed."""

    template_name = "tournaments/players/form.html"

    @cached_property
    def player(self) -> Player:
        return get_object_or_404(self.tournament.players, pk=self.kwargs["pk"])

    def get_context_data(self, **kwargs):
        kwargs.setdefault("form", PlayerForm(initial=PlayerForm.initial_for(self.player)))
        kwargs.setdefault("status_form", StatusChangeForm())
        return super().get_context_data(player=self.player, **kwargs)


class PlayerEditView(PlayerMixin, FormView):
    permission = MANAGE
    form_class = PlayerForm

    def get_initial(self):
        return PlayerForm.initial_for(self.player)

    def form_valid(self, form):
        try:
            player, changed = service.update_player(
                self.player, form.registrant(), actor=self.request.user
            )
        except UserFacingError as exc:
            form.add_error(exc.field, exc.message)
            return self.form_invalid(form)
        if changed:
            messages.success(self.request, f"{player.name} saved: {', '.join(changed)} changed.")
        else:
            messages.info(self.request, f"Nothing changed for {player.name}.")
        return redirect("player-list", self.tournament.slug)


class PlayerStatusView(PlayerMixin, TemplateView):
    """Withdraw or reinstate; POST only so a link or a prefetch cannot change a registration."""

    permission = MANAGE
    http_method_names = ["post"]
    # Subclasses set `change`, a service (player, *, actor, reason), and the `done` message.
    done = ""

    def post(self, request, slug, pk):
        form = StatusChangeForm(request.POST)
        if form.is_valid():
            try:
                player = self.change(
                    self.player, actor=request.user, reason=form.cleaned_data["reason"]
                )
            except UserFacingError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, self.done.format(name=player.name))
                return redirect("player-list", slug)
        return self.render_to_response(self.get_context_data(status_form=form))


class PlayerWithdrawView(PlayerStatusView):
    change = staticmethod(service.withdraw)
    done = "{name} is withdrawn: the place and the e-mail address are free again."


class PlayerReinstateView(PlayerStatusView):
    change = staticmethod(service.reinstate)
    done = "{name} is registered again."


class PlayerImportView(TournamentPermissionMixin, FormView):
    permission = MANAGE
    form_class = ImportForm
    template_name = "tournaments/players/import.html"

    def form_valid(self, form):
        upload = form.cleaned_data["file"]
        try:
            result = csv_import.import_players(
                self.tournament,
                csv_io.read_upload(upload),
                filename=upload.name,
                actor=self.request.user,
                skip_registered=form.cleaned_data["skip_registered"],
            )
        except csv_io.ImportRefused as exc:
            return self.render_to_response(
                self.get_context_data(
                    form=form,
                    problem=exc.message,
                    errors=exc.errors,
                    filename=upload.name,
                    offer_skip=exc.registered,
                )
            )
        except UserFacingError as exc:
            form.add_error("file", exc.message)
            return self.form_invalid(form)
        note = (
            f" {result.skipped_withdrawn} row{'s' if result.skipped_withdrawn != 1 else ''} "
            "marked withdrawn were skipped."
            if result.skipped_withdrawn
            else ""
        )
        skipped = result.skipped_registered
        if skipped:
            note += (
                f" {len(skipped)} row{'s' if len(skipped) != 1 else ''} already registered "
                f"{'were' if len(skipped) != 1 else 'was'} skipped: "
                + "; ".join(str(e) for e in skipped)
                + "."
            )
        messages.success(
            self.request,
            f"Imported {result.count} player{'s' if result.count != 1 else ''}.{note}",
        )
        return redirect("player-list", self.tournament.slug)

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            places_left=_places_left(self.tournament),
            columns=csv_io.TEMPLATE_COLUMNS,
            sample_rows=csv_io.SAMPLE_ROWS,
            max_rows=csv_io.MAX_ROWS,
            max_mb=csv_io.MAX_BYTES // (1024 * 1024),
            **kwargs,
        )


class PlayerImportTemplateView(TournamentPermissionMixin, View):
    permission = MANAGE

    def get(self, request, slug):
        return csv_response(csv_io.template_csv(), "players-template.csv")


class PlayerExportView(TournamentPermissionMixin, View):
    """Everyone who may see the list may export it; phones only for those who manage it."""

    permission = VIEW

    def get(self, request, slug):
        text = csv_export.export_players(
            self.tournament,
            actor=request.user,
            include_phone=has_permission(request.user, self.tournament, MANAGE),
        )
        return csv_response(text, csv_export.export_filename(self.tournament))


P = "t/<slug:slug>/manage/players/"
urlpatterns = [
    path(P, PlayerListView.as_view(), name="player-list"),
    path(f"{P}add/", PlayerAddView.as_view(), name="player-add"),
    path(f"{P}import/", PlayerImportView.as_view(), name="player-import"),
    path(
        f"{P}import/template.csv",
        PlayerImportTemplateView.as_view(),
        name="player-import-template",
    ),
    path(f"{P}export.csv", PlayerExportView.as_view(), name="player-export"),
    path(f"{P}<int:pk>/", PlayerEditView.as_view(), name="player-edit"),
    path(f"{P}<int:pk>/withdraw/", PlayerWithdrawView.as_view(), name="player-withdraw"),
    path(f"{P}<int:pk>/reinstate/", PlayerReinstateView.as_view(), name="player-reinstate"),
]
