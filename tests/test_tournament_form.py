"""The tournament settings form tells the organiser, beside the qualifying sets box, how many
sets each rule preset on offer allows, in the engine's own words."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.rules import PRESETS
from scoring.rules.presets import MINGLE
from tests.support.factories import OrganiserFactory
from tests.support.web import settings_data
from tournaments.forms.tournament import TournamentForm
from tournaments.models import RulePreset

pytestmark = pytest.mark.django_db


def copy_of_mingle(owner, label: str, most: int) -> RulePreset:
    fields = {**RulePreset.fields_from_ruleset(MINGLE), "label": label, "max_qualifying_sets": most}
    return RulePreset.objects.create(slug=label.lower().replace(" ", "-"), owner=owner, **fields)


def test_the_sets_hint_gives_each_offered_presets_limits(tournament, organiser, client_for):
    """A reviewer found the hint pointing at limits the presets "show", though no preset
    choice showed them. The hint now lists every preset the organiser may choose, with the
    numbers of sets from the preset's own definition (an organiser's copy included, another
    organiser's not), and each choice names them too."""
    copy_of_mingle(organiser, "Long Mingle", 5)
    copy_of_mingle(OrganiserFactory(), "Their Mingle", 4)
    form = TournamentForm(instance=tournament, user=organiser)
    hint = form.fields["qualifying_sets"].help_text
    for rules in PRESETS.values():
        assert f"{rules.label} · {rules.qualifying_sets_text}" in hint
    for said in (
        "Classic Bunco · 2 to 4 qualifying sets",
        "Mingle Event (pods of 12) · 3 qualifying sets",
        "Rolling for Pink Tournament · 3 qualifying sets",
        "Mesquite Gaming (staff verified) · 1 to 10 qualifying sets",
        "Long Mingle · 3 to 5 qualifying sets",
    ):
        assert said in hint
    assert "Their Mingle" not in hint
    labels = [label for _, label in form.fields["preset"].choices][1:]
    assert len(labels) == len(PRESETS) + 1 and all(label in hint for label in labels)
    # Shown right below the box on the page.
    page = client_for(organiser).get(reverse("tournament-create")).content.decode()
    after_box = page[page.index('name="qualifying_sets"') :]
    assert after_box.index("Classic Bunco · 2 to 4 qualifying sets") < after_box.index(
        'name="preset"'
    )


@pytest.mark.parametrize("capacity", ["-3", "0", "3"])
def test_a_capacity_below_four_gets_one_message_whatever_it_is(tournament, capacity):
    """A walk typed -3 and read "at least 0", then 0 and read "at least 4"."""
    form = TournamentForm(settings_data(tournament, capacity=capacity), instance=tournament)
    assert not form.is_valid()
    assert form.errors["capacity"] == ["Ensure this value is greater than or equal to 4."]
    assert 'min="4"' in str(form["capacity"])
