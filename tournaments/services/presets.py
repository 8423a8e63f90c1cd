"""Keeps the built-in presets in the database equal to the engine's, and copies presets."""

from __future__ import annotations

from django.db import transaction
from django.utils.text import slugify

from scoring.rules import PRESETS

from ..models import RulePreset

DESCRIPTIONS = {
    "classic": "The classic rules with the worked example: rounds 1–6, ties rolled off "
    "with one more turn around the table, progressive movement.",
    "mingle": "Mingle event, pods of 12: rounds 2–6, snake eyes wipe a team's points, "
    "every player rolls at least once, ties by one die each.",
    "mesquite": "Mesquite Gaming, staff-verified cards: rounds 1–6, losers walk A→B→C→A, "
    "ties go to the first to roll the target.",
    "rolling-for-pink": "Rolling for Pink tournament: rounds 1–6, progressive movement, "
    "ties by one die per team, semi-final and final table.",
}


def sync_builtin_presets(**kwargs) -> None:
    for slug, rules in PRESETS.items():
        fields = RulePreset.fields_from_ruleset(rules)
        fields["description"] = DESCRIPTIONS.get(slug, "")
        RulePreset.objects.update_or_create(slug=slug, builtin=True, defaults=fields)


def unique_preset_slug(label: str) -> str:
    base = slugify(label)[:50] or "preset"
    slug, n = base, 2
    while RulePreset.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


@transaction.atomic
def copy_preset(source: RulePreset, label: str, owner) -> RulePreset:
    """An organiser's editable copy; built-in presets stay as their rule sheets say."""
    fields = RulePreset.fields_from_ruleset(source.to_ruleset())
    fields.update(label=label, description=f"Copied from {source.label}.")
    return RulePreset.objects.create(
        slug=unique_preset_slug(label), owner=owner, based_on=source, **fields
    )
