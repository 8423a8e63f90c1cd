"""With Redis every process reads the same cache; without it, the pages it speeds up still work.

The cache holds numbers derived from the database for a few seconds (the board's and the
public standings'), so several gunicorn processes must share one copy, and a Redis that is
down must cost a recomputation, never a server error.
"""

import os
import uuid

import pytest

from bunco_site.cache import SharedCache
from tests.test_settings import run_manage

NOBODY_LISTENS = "redis://127.0.0.1:1/0"
PRINT_BACKEND = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"


def shared_cache(location: str, prefix: str = "bunco-test") -> SharedCache:
    options = {"socket_connect_timeout": 1, "socket_timeout": 1}
    return SharedCache(location, {"KEY_PREFIX": prefix, "OPTIONS": options})


def test_an_unreachable_redis_reads_as_a_miss_and_computes_afresh():
    cache = shared_cache(NOBODY_LISTENS)
    computed = []

    def standings():
        computed.append(1)
        return [("Ann", 3)]

    assert cache.get_or_set("standings", standings, 20) == [("Ann", 3)]
    assert cache.get_or_set("standings", standings, 20) == [("Ann", 3)]
    assert computed == [1, 1]
    assert cache.get("standings", "missing") == "missing"
    assert cache.add("standings", 1) is False
    cache.set("standings", 1)


@pytest.mark.redis
def test_two_processes_share_one_reading():
    prefix = f"bunco-test-{uuid.uuid4().hex}"
    first = shared_cache(os.environ["REDIS_URL"], prefix)
    second = shared_cache(os.environ["REDIS_URL"], prefix)
    try:
        assert first.get_or_set("standings", lambda: "first reading", 20) == "first reading"
        assert second.get_or_set("standings", lambda: "second reading", 20) == "first reading"
    finally:
        first.delete("standings")


def test_settings_share_the_cache_through_redis_only_when_it_is_configured(tmp_path):
    with_redis = run_manage(
        ["shell", "-v", "0", "-c", PRINT_BACKEND], {"REDIS_URL": NOBODY_LISTENS}, tmp_path
    )
    assert with_redis.stdout.strip() == "bunco_site.cache.SharedCache", with_redis.stderr
    without = run_manage(["shell", "-v", "0", "-c", PRINT_BACKEND], {"REDIS_URL": ""}, tmp_path)
    assert without.returncode == 0, without.stderr
    assert without.stdout.strip() == "django.core.cache.backends.locmem.LocMemCache"


@pytest.mark.redis
def test_calls_share_one_redis_client_and_still_work_across_threads():
    """Django's backend built a redis-py client for every call; one per pool is kept now, and
    threads (gunicorn's gthread workers) use it at once without mixing their answers."""
    from concurrent.futures import ThreadPoolExecutor

    prefix = f"bunco-test-{uuid.uuid4().hex}"
    cache = shared_cache(os.environ["REDIS_URL"], prefix)
    assert cache._cache.get_client() is cache._cache.get_client()
    try:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: cache.set(f"k{n}", n, 20), range(64)))
            assert list(pool.map(lambda n: cache.get(f"k{n}"), range(64))) == list(range(64))
    finally:
        cache.delete_many([f"k{n}" for n in range(64)])
