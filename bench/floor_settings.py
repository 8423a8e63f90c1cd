"""The site's settings plus one bench-only URL (bench/floor_urls.py): bench/floor.py serves
with these, so the bare view never exists in the deployed site."""

from bunco_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor_urls"
