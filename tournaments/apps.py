from django.apps import AppConfig
from django.db.models.signals import post_migrate


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from .services.presets import sync_builtin_presets

        # After every migrate (and every test-database flush) the built-in presets are
        # rewritten from the engine, so the database can never drift from the rule code.
        post_migrate.connect(sync_builtin_presets, sender=self)
