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
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError, TimeoutError

log = logging.getLogger(__name__)
UNREACHABLE = (ConnectionError, TimeoutError)


class OneClientPerPool(RedisCacheClient):
    """Django's Redis cache client, keeping one redis-py client per connection pool.

    Django builds a new redis-py client for every cache call, and every signed-in request
    makes one (its session); building it cost more CPU than the call itself. A redis-py
    client is safe to share between threads (each command takes a connection from the pool
    and gives it back), so each pool keeps the one it first made."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients.setdefault(pool, self._client(connection_pool=pool))
        return client


class SharedCache(RedisCache):
    """Django's Redis cache, reading as a miss and writing nothing while Redis is away."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = OneClientPerPool

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
