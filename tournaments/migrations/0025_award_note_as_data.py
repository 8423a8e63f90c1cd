"""An award's note becomes data (ids and numbers) instead of a sentence with player ids in it.

Notes stored before were sentences such as "Won 1st place in a roll-off with 18, 19", which
the winners page turned into names with regular expressions. New awards keep the engine's
note as data (`rules.prizes.note_data`) and the page words it. An existing note cannot be
turned back into data, so it is kept as the page showed it, names in place of the ids, under
"as_written"; the expressions below are the page's, frozen here for this one conversion.
"""

import re

from django.db import migrations, models

_ROLL_OFF_WITH = re.compile(r"(roll-off with )(\d+(?:, \d+)*)")
_ALREADY_WON = re.compile(r"(^|; )(\d+)( already won )")
_NOT_ELIGIBLE = re.compile(r"^(\d+)( is not eligible)")


def _named(text: str, names: dict[int, str]) -> str:
    def name(pid: str) -> str:
        return names.get(int(pid), pid)

    text = _ROLL_OFF_WITH.sub(lambda m: m[1] + ", ".join(name(p) for p in m[2].split(", ")), text)
    text = _ALREADY_WON.sub(lambda m: m[1] + name(m[2]) + m[3], text)
    return _NOT_ELIGIBLE.sub(lambda m: name(m[1]) + m[2], text)


def notes_as_written(apps, schema_editor):
    PrizeAward = apps.get_model("tournaments", "PrizeAward")
    Player = apps.get_model("tournaments", "Player")
    names: dict[int, dict[int, str]] = {}
    for award in PrizeAward.objects.exclude(note="").iterator():
        if award.tournament_id not in names:
            names[award.tournament_id] = dict(
                Player.objects.filter(tournament_id=award.tournament_id).values_list("pk", "name")
            )
        award.why = {"as_written": _named(award.note, names[award.tournament_id])}
        award.save(update_fields=["why"])


def notes_back(apps, schema_editor):
    """Only the notes kept as written go back; a note kept as data has no sentence to return."""
    PrizeAward = apps.get_model("tournaments", "PrizeAward")
    for award in PrizeAward.objects.filter(why__has_key="as_written").iterator():
        award.note = award.why["as_written"][:300]
        award.save(update_fields=["note"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0024_player_search_columns"),
    ]

    operations = [
        migrations.AddField(
            model_name="prizeaward",
            name="why",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(notes_as_written, notes_back),
        migrations.RemoveField(
            model_name="prizeaward",
            name="note",
        ),
    ]
