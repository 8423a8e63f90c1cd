"""A draw secret for every tournament, and the list of draws checked against it.

Tournaments made before this migration get their own secret here. Their earlier draws were
not derived from it, so they are listed as made before the site sealed its draws: the
verification shows them as such instead of as failures.
"""

import secrets

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import tournaments.rules.draws


def backfill(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Draw = apps.get_model("tournaments", "Draw")
    Stage = apps.get_model("tournaments", "Stage")
    RollOffRecord = apps.get_model("tournaments", "RollOffRecord")
    FinalTable = apps.get_model("tournaments", "FinalTable")
    PrizeRollOff = apps.get_model("tournaments", "PrizeRollOff")
    for tournament in Tournament.objects.filter(draw_secret__isnull=True):
        tournament.draw_secret = secrets.token_hex(32)
        tournament.save(update_fields=["draw_secret"])
    earlier = []
    for stage in Stage.objects.all():
        earlier.append((stage.tournament_id, f"pods:{stage.kind}", stage.seed, stage.drawn_at))
    for r in RollOffRecord.objects.filter(seed__isnull=False).select_related("stage"):
        subject = f"roll-off:{r.stage.kind}:{r.group}:{r.category_key}"
        earlier.append((r.stage.tournament_id, subject, r.seed, r.recorded_at))
    for final in FinalTable.objects.all():
        earlier.append((final.tournament_id, "final:seats", final.seed, final.seated_at))
        if final.dice_seed is not None:
            earlier.append((final.tournament_id, "final:dice", final.dice_seed, final.seated_at))
    for r in PrizeRollOff.objects.filter(seed__isnull=False):
        earlier.append((r.tournament_id, f"prize-roll-off:{r.key}", r.seed, r.recorded_at))
    for tournament_id, subject, seed, at in earlier:
        made = Draw.objects.create(
            tournament_id=tournament_id, subject=subject, attempt=1, seed=seed, source="earlier"
        )
        Draw.objects.filter(pk=made.pk).update(drawn_at=at)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_sets_and_bell"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="draw_secret",
            field=models.CharField(editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="tournament",
            name="draws_published_at",
            field=models.DateTimeField(
                blank=True,
                editable=False,
                help_text="When the organiser published the secret.",
                null=True,
            ),
        ),
        migrations.CreateModel(
            name="Draw",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("subject", models.CharField(max_length=120)),
                ("attempt", models.PositiveSmallIntegerField(default=1)),
                ("seed", models.BigIntegerField()),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("secret", "Drawn from the draw secret"),
                            ("practice", "Set by a practice run so it replays the simulator"),
                            ("earlier", "Made before the site sealed its draws"),
                        ],
                        default="secret",
                        max_length=10,
                    ),
                ),
                ("drawn_at", models.DateTimeField(auto_now_add=True)),
                (
                    "drawn_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "tournament",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="draws",
                        to="tournaments.tournament",
                    ),
                ),
            ],
            options={
                "ordering": ["tournament_id", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("tournament", "subject", "attempt"), name="one_draw_per_attempt"
                    )
                ],
            },
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="tournament",
            name="draw_secret",
            field=models.CharField(
                default=tournaments.rules.draws.new_secret,
                editable=False,
                help_text="Every draw code is derived from it; only its fingerprint is public "
                "until the draws are over (see tournaments/draws.py).",
                max_length=64,
            ),
        ),
    ]
