"""The shipped presets live in the database exactly as the engine defines them."""

import pytest
from django.urls import reverse

from scoring.rules import PRESETS, RuleSet
from tests.factories import OrganiserFactory
from tournaments.models import RulePreset

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_builtin_presets_round_trip_to_the_engine(slug):
    preset = RulePreset.objects.get(slug=slug, builtin=True)
    assert preset.to_ruleset() == PRESETS[slug]
    assert RuleSet.from_dict(preset.to_ruleset().to_dict()) == PRESETS[slug]


def test_four_presets_are_shipped():
    assert set(RulePreset.objects.filter(builtin=True).values_list("slug", flat=True)) == {
        "classic",
        "mingle",
        "mesquite",
        "rolling-for-pink",
    }


def test_organiser_copies_and_edits_a_preset(organiser, client_for):
    client = client_for(organiser)
    response = client.post(reverse("preset-copy", args=["mingle"]), {"label": "Our Mingle"})
    copy = RulePreset.objects.get(label="Our Mingle")
    assert response.url == reverse("preset-edit", args=[copy.slug])
    assert not copy.builtin and copy.owner == organiser
    assert copy.to_ruleset().targets == (2, 3, 4, 5, 6)

    form = {
        **RulePreset.fields_from_ruleset(copy.to_ruleset()),
        "label": "Our Mingle",
        "description": "",
        "targets": "1,2,3,4,5,6",
        "snake_eyes": "",
    }
    form = {k: v for k, v in form.items() if v is not False}
    assert client.post(reverse("preset-edit", args=[copy.slug]), form).status_code == 302
    copy.refresh_from_db()
    assert copy.to_ruleset().targets == (1, 2, 3, 4, 5, 6)
    assert not copy.snake_eyes
    # The built-in preset is untouched.
    assert RulePreset.objects.get(slug="mingle").to_ruleset() == PRESETS["mingle"]


def test_bad_targets_are_a_form_error_and_change_nothing(organiser, client_for):
    client = client_for(organiser)
    client.post(reverse("preset-copy", args=["classic"]), {"label": "Mine"})
    copy = RulePreset.objects.get(label="Mine")
    form = {**RulePreset.fields_from_ruleset(copy.to_ruleset()), "targets": "1,2,9"}
    response = client.post(reverse("preset-edit", args=[copy.slug]), form)
    assert response.status_code == 200
    assert "1 to 6" in response.content.decode()
    copy.refresh_from_db()
    assert copy.targets == "1,2,3,4,5,6"


def test_builtin_and_other_organisers_presets_cannot_be_edited(organiser, client_for):
    client = client_for(organiser)
    assert client.get(reverse("preset-edit", args=["classic"])).status_code == 404
    other = OrganiserFactory()
    client_for(other).post(reverse("preset-copy", args=["classic"]), {"label": "Theirs"})
    theirs = RulePreset.objects.get(label="Theirs")
    assert client.get(reverse("preset-edit", args=[theirs.slug])).status_code == 404
    assert client.get(reverse("preset-detail", args=[theirs.slug])).status_code == 404
