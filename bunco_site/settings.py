"""Settings read from the environment, with defaults that suit a laptop at the venue.

Without any variable set the site runs on SQLite in the data folder, runs Celery tasks
in-process and generates its own secret key, so `make demo` needs nothing else. Production
sets DATABASE_URL, REDIS_URL, SECRET_KEY, ALLOWED_HOSTS and BUNCO_HTTPS.
"""

import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
import dj_email_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DATA_DIR = Path(os.environ.get("BUNCO_DATA_DIR") or BASE_DIR / "data").resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    """A key generated once per data folder, readable only by its owner.

    Generating it (instead of shipping one) means no two laptops share a key, and keeping
    it in the data folder means sessions survive a restart.
    """
    if key := os.environ.get("SECRET_KEY"):
        return key
    path = DATA_DIR / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        key = secrets.token_urlsafe(64)
        handle.write(key)
    return key


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
# Shows the entry again with a fresh token instead of Django's page about cookies.
CSRF_FAILURE_VIEW = "bunco_site.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "crispy_forms",
    "crispy_bootstrap5",
    "bootstrap",
    "django_htmx",
    "csp",
    "tournaments",
    "scoring",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "bunco_site.outages.DatabaseOutageMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "tournaments.middleware.ForcePasswordChangeMiddleware",
    "scoring.queue.QueueAnswerMiddleware",
    "bunco_site.errors.FormAddressMiddleware",
]

ROOT_URLCONF = "bunco_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournaments.context_processors.site",
            ],
        },
    },
]

# Plain inputs written in Python, the rest from Django's widget templates (renderers.py).
FORM_RENDERER = "bunco_site.renderers.FastInputs"

WSGI_APPLICATION = "bunco_site.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A venue laptop has several request threads; WAL and a busy timeout keep a burst of
    # result entries from failing with "database is locked".
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # The tests' database is a file as well, locked as the venue laptop's is. An in-memory
    # one has Django hand every request thread of the browser tests' server a single shared
    # connection, and a page read while another request saved failed the save with
    # "database table is locked" (a 503, about one browser test run in fifteen).
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"bunco-test-{os.getpid()}.sqlite3")
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters sent apart from the SQL, and a statement a connection has run PREPARE_AFTER
    # times kept prepared: PostgreSQL then parses and plans it once per connection instead of
    # every time. Measured on the save flow (bench/floor.py), that halves PostgreSQL's CPU a
    # request; a pod page's own statement alone took 0.8 ms to plan. PREPARE_AFTER=0 turns it
    # off, for a pooler that cannot keep prepared statements (docs/deployment.md).
    prepare_after = int(os.environ.get("PREPARE_AFTER", "2"))
    DATABASES["default"]["OPTIONS"] = {
        "server_side_binding": prepare_after > 0,
        "prepare_threshold": prepare_after or None,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Django's password check behind the sign-in limits (tournaments/lockout.py): failures are
# counted per account and per account-and-address, so one phone's typos never lock the
# venue's other phones, which share its address. Within SIGN_IN_WINDOW: 5 failures for an
# account from one address pause it from there, 20 from anywhere pause it everywhere, and
# past 100 from one address an account with a failure of its own from there is paused at once
# (one with none still signs in). The organiser unlocks a staff or admin account on *Staff &
# admins*; on the server `manage.py unlock_sign_ins` does.
AUTHENTICATION_BACKENDS = ["tournaments.lockout.SignInLimitBackend"]
SIGN_IN_WINDOW = timedelta(minutes=15)
SIGN_IN_PAIR_LIMIT = 5
SIGN_IN_ACCOUNT_LIMIT = 20
SIGN_IN_ADDRESS_LIMIT = 100

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "landing"  # each role lands on its work (tournaments/views/landing.py)
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "America/Chicago")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or DATA_DIR / "static")
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or DATA_DIR / "media")
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or env_bool("BUNCO_PLAIN_STATIC")
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# E-mail to players is optional: with EMAIL_URL (e.g. smtp://user:pass@host:587/?tls=True)
# the site sends confirmations, promotions and receipts through a Celery task; without it
# nothing is sent and the organiser's pages say so.
EMAIL_URL = os.environ.get("EMAIL_URL", "")
EMAIL_ENABLED = bool(EMAIL_URL)
if EMAIL_URL:
    globals().update(dj_email_url.parse(EMAIL_URL))
    EMAIL_TIMEOUT = EMAIL_TIMEOUT or 20  # noqa: F821 - set by the line above
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Bunco night <bunco@localhost>")

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# Celery: with REDIS_URL a worker renders printouts; without it tasks run in-process so a
# laptop without Redis still prints (the printouts page says so).
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_TRACK_STARTED = True
# With acks_late, a task whose worker died stays unacknowledged in Redis and is delivered again
# once this many seconds have passed since it was first delivered: longer than any printout
# takes. Workers look for such tasks every tenth of it (at most every minute). Tests set it low.
_visibility_timeout = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT") or 3600)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _visibility_timeout,
    "unacked_restore_interval": max(1, min(60, _visibility_timeout // 10)),
    "unacked_restore_throttle": 1,
    # A request that queues a printout should not hang on an unreachable Redis host, nor on
    # one that stopped answering (every reply is far below a second; a BRPOP waits 1 s).
    "socket_connect_timeout": 2,
    "socket_timeout": 2,
}
# Sending a task tries once (a Redis restarted since the last send is reconnected without a
# retry): a stopped Redis refuses at once, a hung one fails after socket_timeout. The printout
# then waits for the queue and its page sends it again later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 0}
# Printouts expire after a day; celery beat (`make beat`) runs the clean-up every hour. A
# laptop without beat can run `manage.py purge_printouts`. Every half minute beat sends again
# the printouts whose message a Redis restarted empty lost (a sweep message not run within
# its half minute is dropped, so a worker back after a while runs one, not hundreds).
CELERY_BEAT_SCHEDULE = {
    "purge-expired-printouts": {
        "task": "tournaments.tasks.purge_expired_printouts",
        "schedule": 3600.0,
    },
    "resend-stuck-printouts": {
        "task": "tournaments.tasks.resend_stuck_printouts",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    # A waitlist offer not accepted in time passes to the next in line.
    "lapse-waitlist-offers": {
        "task": "tournaments.tasks.lapse_waitlist_offers",
        "schedule": 300.0,
        "options": {"expires": 300.0},
    },
}
# With REDIS_URL every gunicorn process shares one cache (the board's and public standings'
# numbers) instead of each keeping its own; without it a laptop's single server keeps it in
# memory. CACHE_URL puts the cache in another Redis database than the print queue.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "bunco_site.cache.SharedCache",
            "LOCATION": os.environ.get("CACHE_URL") or REDIS_URL,
            "KEY_PREFIX": "bunco",
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
    # Sessions are read from the shared cache (written to both): every signed-in request
    # saves a database query. Only a shared cache may hold them: a per-process one would
    # keep a signed-out session alive in the other processes.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# The address printed in the score cards' QR codes when there is no request to take it from
# (the print_packet command, the rehearsal), or to override the one the admin used.
SITE_URL = os.environ.get("SITE_URL", "").rstrip("/")

# HTTPS hardening is switched on as a whole: a venue laptop serves plain HTTP on the local
# network, a public deployment sits behind TLS.
BUNCO_HTTPS = env_bool("BUNCO_HTTPS")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = BUNCO_HTTPS
CSRF_COOKIE_SECURE = BUNCO_HTTPS
SECURE_SSL_REDIRECT = BUNCO_HTTPS and env_bool("BUNCO_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = 31536000 if BUNCO_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = BUNCO_HTTPS
SECURE_HSTS_PRELOAD = BUNCO_HTTPS
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Behind nginx every request comes from the proxy's address: the sign-in limits then count
# the client's, the last X-Forwarded-For entry (tournaments/lockout.py).
BUNCO_BEHIND_PROXY = env_bool("BUNCO_BEHIND_PROXY")
if BUNCO_BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Scripts and styles only from our own static files: no inline script, no eval, no <style>
# block or style="" attribute (a nonce could not follow an htmx fragment swapped in later;
# scripts may still set styles through the DOM). Bootstrap's icons are data: images. Always
# on, so the browser tests run under the same policy.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

if not DEBUG and SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured("SECRET_KEY must not be an insecure development key.")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
