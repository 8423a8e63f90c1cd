"""Celery application; settings come from Django's CELERY_* settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_site.settings")

app = Celery("bunco_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
