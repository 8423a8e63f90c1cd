"""The shipped presets live in the database exactly as the engine defines them."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.rules import PRESETS, RuleSet
from tests.support.factories import OrganiserFactory
from tests.support.web import settings_data
from tournaments.models import RulePreset, Tournament

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


# --- qualifying sets: each sheet's number, enforced on the tournament form ------------------


def test_preset_page_says_how_many_sets_the_sheet_plays(organiser, client_for):
    client = client_for(organiser)
    page = client.get(reverse("preset-detail", args=["mingle"])).content.decode()
    assert '<dd class="col-sm-7" id="preset-sets">3 qualifying sets</dd>' in page
    assert "The head table stops at its bell" in page
    page = client.get(reverse("preset-detail", args=["classic"])).content.decode()
    assert "2 to 4 qualifying sets" in page and "at the head table too" in page


@pytest.mark.parametrize(("slug", "sets"), [("mingle", 4), ("mingle", 2), ("classic", 5)])
def test_tournament_form_refuses_sets_the_preset_does_not_allow(
    tournament, organiser, client_for, slug, sets
):
    preset = RulePreset.objects.get(slug=slug)
    before = (tournament.qualifying_sets, tournament.preset_id, tournament.name)
    form = settings_data(tournament, qualifying_sets=sets, preset=preset.pk, name="Renamed")
    response = client_for(organiser).post(reverse("tournament-edit", args=[tournament.slug]), form)
    assert response.status_code == 200
    page = response.content.decode()
    assert f"{preset.label} plays" in page and f"not {sets}" in page
    assert 'value="Renamed"' in page  # what was typed stays on the form
    tournament.refresh_from_db()
    assert (tournament.qualifying_sets, tournament.preset_id, tournament.name) == before


def test_a_new_tournament_is_refused_too(organiser, client_for):
    mingle = RulePreset.objects.get(slug="mingle")
    data = {
        "name": "Spring Fling",
        "charity": "Food bank",
        "date": (timezone.localdate() + timedelta(days=140)).isoformat(),
        "venue": "Elks Lodge",
        "entry_fee": "20.00",
        "capacity": "96",
        "qualifying_sets": "2",
        "preset": mingle.pk,
    }
    response = client_for(organiser).post(reverse("tournament-create"), data)
    assert response.status_code == 200
    assert "Mingle Event (pods of 12) plays 3 qualifying sets, not 2." in response.content.decode()
    assert not Tournament.objects.filter(name="Spring Fling").exists()
    # Said at the top of the long form too, linked to the box to change.
    page = response.content.decode()
    summary = page[
        page.index('id="error-summary"') : page.index("</div>", page.index('id="error-summary"'))
    ]
    assert "Nothing was saved yet: 1 thing to fix." in summary
    assert 'href="#id_qualifying_sets"' in summary and "plays 3 qualifying sets, not 2" in summary
    assert page.index('id="error-summary"') < page.index('name="name"')


def test_a_copy_may_change_the_number_of_sets(tournament, organiser, client_for):
    client = client_for(organiser)
    client.post(reverse("preset-copy", args=["mingle"]), {"label": "Long Mingle"})
    copy = RulePreset.objects.get(label="Long Mingle")
    form = {**RulePreset.fields_from_ruleset(copy.to_ruleset()), "max_qualifying_sets": 4}
    form = {k: v for k, v in form.items() if v is not False}
    assert client.post(reverse("preset-edit", args=[copy.slug]), form).status_code == 302
    copy.refresh_from_db()
    assert (copy.min_qualifying_sets, copy.max_qualifying_sets) == (3, 4)
    assert copy.head_table_stops_at_bell  # the copy keeps the sheet's bell rule
    form = settings_data(tournament, qualifying_sets=4, preset=copy.pk)
    response = client.post(reverse("tournament-edit", args=[tournament.slug]), form)
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.qualifying_sets, tournament.preset_id) == (4, copy.pk)
    # The built-in preset still plays three.
    assert RulePreset.objects.get(slug="mingle").to_ruleset().max_qualifying_sets == 3


def test_set_limits_out_of_order_are_a_preset_form_error(organiser, client_for):
    client = client_for(organiser)
    client.post(reverse("preset-copy", args=["classic"]), {"label": "Mine"})
    copy = RulePreset.objects.get(label="Mine")
    form = {
        **RulePreset.fields_from_ruleset(copy.to_ruleset()),
        "min_qualifying_sets": 4,
        "max_qualifying_sets": 2,
    }
    form = {k: v for k, v in form.items() if v is not False}
    response = client.post(reverse("preset-edit", args=[copy.slug]), form)
    assert response.status_code == 200
    assert "the fewest no more than the most" in response.content.decode()
    copy.refresh_from_db()
    assert (copy.min_qualifying_sets, copy.max_qualifying_sets) == (2, 4)
