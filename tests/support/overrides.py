"""The settings every test runs with, whether a per-test fixture or a module's scenario
applies them: kept in one place so a scenario is built exactly as a test would build it."""

FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
PLAIN_STATIC_FILES = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}


def settings_for_tests(settings, media_root) -> dict:
    """The overrides for `settings` (Django's, or pytest-django's fixture): the fast hasher
    (factories create many users), media in `media_root`, static files without a manifest
    (tests render templates without running collectstatic first)."""
    return {
        "PASSWORD_HASHERS": FAST_PASSWORD_HASHERS,
        "MEDIA_ROOT": media_root,
        "STORAGES": {**settings.STORAGES, "staticfiles": PLAIN_STATIC_FILES},
    }
