"""PostgreSQL keeps the site's repeated statements prepared (settings.py, PREPARE_AFTER).

A staff request runs the same few statements all evening; prepared, PostgreSQL parses and
plans each once per connection. The parameters travel apart from the SQL, so these tests
also check that a value is never spliced into the statement's text.
"""

import pytest
from django.db import connection

from tests.support.factories import TournamentFactory
from tournaments.models import Tournament

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_a_statement_run_again_is_prepared_once_with_its_values_as_parameters():
    names = [TournamentFactory().name for _ in range(3)]
    for name in names:
        assert Tournament.objects.filter(name=name).count() == 1
    counts = [s for s in prepared() if "COUNT(*)" in s and "tournaments_tournament" in s]
    assert len(counts) == 1, counts  # one prepared statement serves the three names
    assert "$1" in counts[0]
    assert not any(name in counts[0] for name in names)


def test_a_value_that_looks_like_sql_stays_a_value():
    hostile = "x'); DROP TABLE tournaments_tournament; --"
    TournamentFactory(name=hostile)
    for _ in range(3):
        assert Tournament.objects.filter(name=hostile).count() == 1
    assert Tournament.objects.count() == 1
