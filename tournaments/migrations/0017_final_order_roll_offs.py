"""The final table's roll for throwing order becomes `RollOff` rows of kind "order".

Every stored `FinalTable.order_faces` is converted before the field goes: one version per
time the dice were recorded, each holding every face so far in throw order. The versions
follow the "final.order" audit entries when they tell them (each entry kept the faces as
they stood), which also give who recorded them and when, and the entries are pointed at
the new rows; without such entries each round of the roll (a re-throw of a tie for the
lowest die) is one version. A site roll, whose dice replay from the final's dice code, is
one version with that code. `FinalTable.order`, the result the final plays by, stays.
Backwards, the newest version's faces go back into `order_faces` and the rows are removed.
"""

import random

from django.db import migrations, models

ORDER_SUBJECT = "final:order"
FINAL = "tournaments.finaltable"
ROLL_OFF = "tournaments.rolloff"


def _read(players, faces):
    """The engine's reading of the stored dice, or None for dice that do not read as an
    order roll (a final played before the order rule was settled)."""
    from scoring.rules import RuleError
    from scoring.rules.final import order_of_play

    try:
        return order_of_play(players, faces)
    except RuleError:
        return None


def _site_rolled(players, faces, seed):
    from scoring.rules.final import roll_order

    if seed is None:
        return False
    rng = random.Random(f"{seed}:order")
    return list(roll_order(players, lambda: rng.randint(1, 6)).faces) == list(faces)


def _versions(players, faces, entries, site):
    """The faces as they stood each time dice were recorded, in order."""
    told = [list((e.data or {}).get("faces") or []) for e in entries]
    if told and told[-1] == list(faces) and all(a == b[: len(a)] for a, b in zip(told, told[1:])):
        return told
    result = _read(players, faces)
    if site or result is None:
        return [list(faces)]
    versions, so_far = [], []
    for throw in result.rounds:
        so_far = [*so_far, *throw.values()]
        versions.append(so_far)
    return versions


def forwards(apps, schema_editor):
    FinalTable = apps.get_model("tournaments", "FinalTable")
    RollOff = apps.get_model("tournaments", "RollOff")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    for final in FinalTable.objects.order_by("pk"):
        faces = list(final.order_faces or [])
        if not faces:
            continue
        players = list(final.seats.order_by("seat").values_list("player_id", flat=True))
        entries = list(
            AuditEntry.objects.filter(
                action="final.order", target_type=FINAL, target_id=str(final.pk)
            ).order_by("at", "pk")
        )
        site = _site_rolled(players, faces, final.dice_seed)
        by_faces = {tuple((e.data or {}).get("faces") or []): e for e in entries}
        for version, so_far in enumerate(_versions(players, faces, entries, site), 1):
            result = _read(players, so_far)
            entry = by_faces.get(tuple(so_far))
            made = RollOff.objects.create(
                tournament_id=final.tournament_id,
                kind="order",
                subject=ORDER_SUBJECT,
                version=version,
                group="final",
                key="order",
                category_key="order",
                category_label="Throwing order at the final table",
                players=players,
                faces=so_far,
                winners=list(result.order) if result is not None else list(final.order or []),
                rounds=[{str(p): f for p, f in t.items()} for t in result.rounds]
                if result is not None
                else [],
                source="site" if site else "entered",
                seed=final.dice_seed if site else None,
                recorded_by_id=entry.actor_id if entry is not None else None,
            )
            when = entry.at if entry is not None else final.seated_at
            RollOff.objects.filter(pk=made.pk).update(recorded_at=when)
            if entry is not None:
                AuditEntry.objects.filter(pk=entry.pk).update(
                    target_type=ROLL_OFF, target_id=str(made.pk)
                )


def backwards(apps, schema_editor):
    FinalTable = apps.get_model("tournaments", "FinalTable")
    RollOff = apps.get_model("tournaments", "RollOff")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    rows = RollOff.objects.filter(kind="order").order_by("tournament_id", "version")
    newest = {}
    for row in rows:
        newest[row.tournament_id] = row
        AuditEntry.objects.filter(target_type=ROLL_OFF, target_id=str(row.pk)).update(
            target_type=FINAL,
            target_id=str(
                FinalTable.objects.filter(tournament_id=row.tournament_id)
                .values_list("pk", flat=True)
                .first()
                or ""
            ),
        )
    for tournament_id, row in newest.items():
        FinalTable.objects.filter(tournament_id=tournament_id).update(order_faces=list(row.faces))
    rows.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0016_award_versions"),
    ]

    operations = [
        migrations.AlterField(
            model_name="rolloff",
            name="kind",
            field=models.CharField(
                choices=[
                    ("cut", "Who advances"),
                    ("prize", "A prize"),
                    ("order", "Throwing order at the final table"),
                ],
                max_length=10,
            ),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(
            model_name="finaltable",
            name="order_faces",
        ),
    ]
