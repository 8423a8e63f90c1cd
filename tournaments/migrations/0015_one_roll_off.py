"""One roll-off model for cuts and prizes; every stored roll-off is copied into it.

The cut's `RollOffRecord` rows and the prizes' `PrizeRollOff` rows become `RollOff` rows
(version 1; a prize roll-off was replaced in place before, so only its last throw exists),
and audit entries that pointed at the old rows point at the copies. Backwards, the copies
go back into the two old tables; a prize roll-off keeps only its newest version there,
since the old table held one row per tie.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CUT_MEASURES = {"wins": "most_wins", "buncos": "most_buncos"}
CUT = "tournaments.rolloffrecord"
PRIZE = "tournaments.prizerolloff"
NEW = "tournaments.rolloff"


def _replay(players, faces, places):
    """Who won and each throw, from the stored faces of an old prize roll-off."""
    from scoring.rules import RuleError
    from scoring.rules.tiebreak import roll_off

    try:
        rolled = roll_off(list(players), iter(faces).__next__, places=max(places, 1))
    except (RuleError, StopIteration):
        return [], []
    rounds = [{str(p): face for p, face in throw.items()} for throw in rolled.rounds]
    return list(rolled.order[:places]), rounds


def _retarget(AuditEntry, old_type, new_type, ids):
    for old_id, new_id in ids.items():
        AuditEntry.objects.filter(target_type=old_type, target_id=str(old_id)).update(
            target_type=new_type, target_id=str(new_id)
        )


def _copy(model, fields, recorded_at):
    made = model.objects.create(**fields)
    model.objects.filter(pk=made.pk).update(recorded_at=recorded_at)
    return made


def forwards(apps, schema_editor):
    RollOff = apps.get_model("tournaments", "RollOff")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    PrizeCategory = apps.get_model("tournaments", "PrizeCategory")
    Stage = apps.get_model("tournaments", "Stage")
    cut_ids, prize_ids = {}, {}
    for r in apps.get_model("tournaments", "RollOffRecord").objects.select_related("stage"):
        cut_ids[r.pk] = _copy(
            RollOff,
            {
                "tournament_id": r.stage.tournament_id,
                "kind": "cut",
                "subject": f"roll-off:{r.stage.kind}:{r.group}:{r.category_key}",
                "version": 1,
                "stage_id": r.stage_id,
                "group": r.group,
                "key": r.category_key,
                "category_key": r.category_key,
                "category_label": r.category_label,
                "measure": CUT_MEASURES.get(r.category_key, ""),
                "players": r.players,
                "faces": r.faces,
                "winners": r.winners,
                "rounds": r.rounds,
                "source": r.source,
                "seed": r.seed,
                "recorded_by_id": r.recorded_by_id,
            },
            r.recorded_at,
        ).pk
    for r in apps.get_model("tournaments", "PrizeRollOff").objects.all():
        category_key, group, place = (r.key.split(":") + ["", "", "1"])[:3]
        category = PrizeCategory.objects.filter(
            tournament_id=r.tournament_id, key=category_key
        ).first()
        stage_kind = category.stage_kind if category else "qualifying"
        places = min(
            len(r.players),
            (len(category.amounts_cents) - int(place) + 1) if category else 1,
        )
        winners, rounds = _replay(r.players, r.faces, places)
        prize_ids[r.pk] = _copy(
            RollOff,
            {
                "tournament_id": r.tournament_id,
                "kind": "prize",
                "subject": f"prize-roll-off:{r.key}",
                "version": 1,
                "stage": Stage.objects.filter(
                    tournament_id=r.tournament_id, kind=stage_kind
                ).first(),
                "group": group,
                "key": r.key,
                "category_key": category_key,
                "category_label": category.label if category else category_key,
                "measure": category.measure if category else "",
                "scope": category.scope if category else "",
                "players": r.players,
                "faces": r.faces,
                "winners": winners,
                "rounds": rounds,
                "source": "entered" if r.seed is None else "site",
                "seed": r.seed,
                "recorded_by_id": r.recorded_by_id,
            },
            r.recorded_at,
        ).pk
    _retarget(AuditEntry, CUT, NEW, cut_ids)
    _retarget(AuditEntry, PRIZE, NEW, prize_ids)


def backwards(apps, schema_editor):
    RollOffRecord = apps.get_model("tournaments", "RollOffRecord")
    PrizeRollOff = apps.get_model("tournaments", "PrizeRollOff")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    newest = {}
    for r in apps.get_model("tournaments", "RollOff").objects.order_by("version"):
        newest[(r.tournament_id, r.subject)] = r
    for r in newest.values():
        common = {
            "players": r.players,
            "faces": r.faces,
            "seed": r.seed,
            "recorded_by_id": r.recorded_by_id,
        }
        if r.kind == "cut":
            made = _copy(
                RollOffRecord,
                {
                    **common,
                    "stage_id": r.stage_id,
                    "group": r.group,
                    "category_key": r.category_key,
                    "category_label": r.category_label,
                    "winners": r.winners,
                    "rounds": r.rounds,
                    "source": r.source,
                },
                r.recorded_at,
            )
            _retarget(AuditEntry, NEW, CUT, {r.pk: made.pk})
        else:
            made = _copy(
                PrizeRollOff,
                {**common, "tournament_id": r.tournament_id, "key": r.key},
                r.recorded_at,
            )
            _retarget(AuditEntry, NEW, PRIZE, {r.pk: made.pk})


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0014_last_bunco"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RollOff",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("cut", "Who advances"), ("prize", "A prize")], max_length=10
                    ),
                ),
                (
                    "subject",
                    models.CharField(
                        help_text="What it settles, as in the draw list.", max_length=120
                    ),
                ),
                ("version", models.PositiveSmallIntegerField(default=1)),
                (
                    "group",
                    models.CharField(
                        help_text='Pod number, "semi-final" or "overall".', max_length=30
                    ),
                ),
                (
                    "key",
                    models.CharField(
                        help_text="The key its dice are entered under.", max_length=80
                    ),
                ),
                ("category_key", models.CharField(max_length=40)),
                ("category_label", models.CharField(max_length=80)),
                ("measure", models.CharField(blank=True, max_length=20)),
                ("scope", models.CharField(blank=True, max_length=20)),
                (
                    "players",
                    models.JSONField(
                        help_text="The tied players' ids (pods, for a best pod), in roll order."
                    ),
                ),
                ("faces", models.JSONField(help_text="Every die thrown, in order.")),
                ("winners", models.JSONField(help_text="Who the dice put through, best first.")),
                (
                    "rounds",
                    models.JSONField(help_text="Each simultaneous throw: player id -> face."),
                ),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("entered", "Physical dice entered by staff"),
                            ("site", "Rolled on screen by the site"),
                        ],
                        max_length=10,
                    ),
                ),
                ("seed", models.BigIntegerField(blank=True, null=True)),
                ("recorded_at", models.DateTimeField(auto_now_add=True)),
                (
                    "recorded_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "stage",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="roll_offs",
                        to="tournaments.stage",
                    ),
                ),
                (
                    "tournament",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="roll_offs",
                        to="tournaments.tournament",
                    ),
                ),
            ],
            options={
                "ordering": ["tournament", "subject", "version"],
            },
        ),
        migrations.AddConstraint(
            model_name="rolloff",
            constraint=models.UniqueConstraint(
                fields=("tournament", "subject", "version"), name="one_roll_off_version"
            ),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.DeleteModel(
            name="PrizeRollOff",
        ),
        migrations.DeleteModel(
            name="RollOffRecord",
        ),
    ]
