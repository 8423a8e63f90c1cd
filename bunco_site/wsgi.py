"""The WSGI entry point gunicorn loads in each of its workers.

Once the site is loaded (settings, apps, models, every URL and view), those objects live as
long as the worker: `gc.freeze()` moves them out of the garbage collector's sight, and a
higher first threshold lets a request's short-lived objects be freed by reference counting
before a collection looks at them. Each collection then walks a request's leftovers instead of
the whole site; measured on the staff save flow (bench/floor.py), a few per cent of CPU a
request. Only servers load this module: tests and management commands keep Python's defaults.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_site.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 - imports every URL module and view now, not on a request
gc.freeze()
gc.set_threshold(20_000, 50, 100)
