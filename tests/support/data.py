"""The database as a whole: exports, row counts, and moving the schema for migration tests."""

import datetime
import json
from io import StringIO

from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def export_to(tmp_path, slug, name):
    """`export_tournament` to a file in `tmp_path`, read back."""
    out = tmp_path / name
    call_command("export_tournament", slug, "--out", str(out), stdout=StringIO())
    return json.loads(out.read_text())


def database_counts():
    """Every model's rows (many-to-many tables too): what a refused import must leave as is."""
    return {
        m._meta.label_lower: m._base_manager.count()
        for m in apps.get_models(include_auto_created=True)
    }


def migrate(target):
    """Moves the test database's schema to `target` (a list of (app, migration)) and gives
    the historical models there, for the tests of a data migration."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def newest_migrations():
    """Every app's newest migration: where the tests after a migration test expect the schema."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def old_tournament(apps, players: int = 0):
    """A tournament and its players made with the historical models of `apps` (from
    `migrate`): the factories use today's models, whose newer columns an older schema lacks."""
    Tournament = apps.get_model("tournaments", "Tournament")
    Player = apps.get_model("tournaments", "Player")
    n = Tournament.objects.count()
    tournament = Tournament.objects.create(
        name=f"Old Bunco Night {n}",
        slug=f"old-bunco-night-{n}",
        charity="Breast Cancer Research",
        date=datetime.date.today() + datetime.timedelta(days=30),
        venue="Grand Ballroom",
        capacity=120,
        qualifying_sets=3,
        preset=apps.get_model("tournaments", "RulePreset").objects.get(slug="classic"),
    )
    ids = [
        Player.objects.create(
            tournament=tournament, name=f"Player {i}", email=f"old{n}.{i}@example.org"
        ).pk
        for i in range(players)
    ]
    return tournament, ids
