from django.contrib import admin

from .foundation.search import player_matches
from .models import (
    AuditEntry,
    Player,
    RulePreset,
    SignInFailure,
    Tournament,
    TournamentRole,
    UserProfile,
)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "date", "venue", "registration_open", "check_in_open"]
    search_fields = ["name", "slug"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "tournament", "status", "checked_in_at"]
    list_filter = ["tournament", "status"]
    search_fields = ["search_text"]  # shows the box; the matching is the site's one rule

    def get_search_results(self, request, queryset, search_term):
        return queryset.filter(player_matches(search_term)), False


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ["at", "tournament", "actor", "action", "summary"]
    list_filter = ["tournament", "action"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


admin.site.register(RulePreset)
admin.site.register(TournamentRole)
admin.site.register(UserProfile)


@admin.register(SignInFailure)
class SignInFailureAdmin(admin.ModelAdmin):
    """A superuser unlocks an organiser's account here by deleting its rows."""

    list_display = ["at", "username", "address"]
    search_fields = ["username", "address"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
