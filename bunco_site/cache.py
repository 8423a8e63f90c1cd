"""The shared cache when Redis is configured: one copy for every gunicorn process.

With several processes (or machines) a per-process cache would compute the board's and the
public standings' numbers once per process, and each would serve its own reading. Redis holds
one. What is cached is only ever derived from the database for a few seconds, so an
unreachable Redis must not take those pages down with it: a failed read is a miss and a failed
write is skipped, and the page computes its numbers from the database as on a cold cache.
"""

from __future__ import annotations

import logging
from contextlib import suppress

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError, TimeoutError

log = logging.getLogger(__name__)
UNREACHABLE = (ConnectionError, TimeoutError)


class SharedCache(RedisCache):
    """Django's Redis cache, reading as a miss and writing nothing while Redis is away."""

    def get(self, key, default=None, version=None):
        try:
            return super().get(key, default, version)
        except UNREACHABLE as exc:
            log.warning("Cache unreachable, computing afresh: %s", exc)
            return default

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().add(key, value, timeout, version)
        except UNREACHABLE:
            return False

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with suppress(UNREACHABLE):
            super().set(key, value, timeout, version)
