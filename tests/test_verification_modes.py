"""Verification as each event does it: one staff member checking each card against the table
results (the Mesquite sheet), or a second person confirming (every other sheet). The rule is
enforced by the card services, so a forged form gets the same answer as the page."""

import importlib
from dataclasses import dataclass, replace

import pytest
from django.apps import apps
from django.urls import reverse

from scoring.models import CardEntry
from scoring.rules import ONE_STAFF, PRESETS, SECOND_PERSON
from scoring.rules.cards import Card, Status
from scoring.services import cards as service
from tests.support.factories import UserFactory, grant
from tests.test_card_pages import card_url, enter_data, pod_cards_url, text
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, RulePreset, Stage, Tournament
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


@dataclass
class Event:
    stage: Stage
    sam: object  # the pod's staff member
    kim: object  # a second staff member of the same pod

    @property
    def tournament(self) -> Tournament:
        return self.stage.tournament

    def player(self, i=0):
        cards = service.load_stage(self.stage)
        return cards.players[cards.in_pod(1)[i]]

    def record(self, player) -> Card:
        return service.load_stage(self.stage).records[player.pk]

    def state(self, player):
        return service.current_state(self.stage, player)


def two_rounds_played(preset: str, seed: int = 5) -> Event:
    """Twelve players, two rounds reported, no card entered yet."""
    r = rehearse(players=12, preset=preset, seed=seed, stop_after_round=2)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    pod = stage.pods.get()
    (sam,) = pod.staff.all()
    kim = UserFactory(username="kim")
    grant(stage.tournament, kim, "staff")
    pod.staff.add(kim)
    return Event(stage, sam, kim)


@pytest.fixture
def one_staff():
    event = two_rounds_played("mesquite")
    assert event.stage.verification == ONE_STAFF
    return event


@pytest.fixture
def second_person():
    event = two_rounds_played("classic")
    assert event.stage.verification == SECOND_PERSON
    return event


# --- the services -----------------------------------------------------------------------------


def test_one_staff_a_matching_card_is_verified_by_one_person(one_staff):
    player = one_staff.player()
    record = one_staff.record(player)
    service.enter_card(one_staff.stage, player, record, actor=one_staff.sam, base_version=0)
    state = one_staff.state(player)
    assert state.verified and state.checked_by == one_staff.sam.pk
    entry = CardEntry.objects.get(player=player)
    assert entry.confirmed_by is None  # nobody confirmed, and nobody needs to
    # A confirmation on top is refused: there is nothing left to check.
    with pytest.raises(UserFacingError, match="one staff member's check is enough"):
        service.confirm_card(one_staff.stage, player, actor=one_staff.kim, version=1)
    entry.refresh_from_db()
    assert entry.confirmed_by is None
    assert not AuditEntry.objects.filter(action="card.confirmed").exists()


def test_one_staff_a_mismatching_card_waits_for_a_resolution_with_a_reason(one_staff):
    stage, sam = one_staff.stage, one_staff.sam
    player = one_staff.player()
    record = one_staff.record(player)
    paper = replace(record, buncos=record.buncos + 1)
    service.enter_card(stage, player, paper, actor=sam, base_version=0)
    state = one_staff.state(player)
    assert state.status == Status.DIFFERS and not state.verified
    with pytest.raises(UserFacingError, match="resolve the difference first"):
        service.confirm_card(stage, player, actor=one_staff.kim, version=1)
    with pytest.raises(UserFacingError, match="Say why"):
        service.resolve_card(stage, player, choice="tables", reason="  ", actor=sam, version=1)
    assert not one_staff.state(player).verified

    service.resolve_card(
        stage, player, choice="tables", reason="Miscounted tally", actor=sam, version=1
    )
    state = one_staff.state(player)
    assert state.verified and state.official == record and state.checked_by == sam.pk
    # Every version is kept, with who entered it and when.
    versions = list(CardEntry.objects.filter(player=player).order_by("version"))
    assert [(v.version, v.kind, v.entered_by, v.is_current) for v in versions] == [
        (1, "paper", sam, False),
        (2, "resolution", sam, True),
    ]
    assert versions[0].buncos == paper.buncos and versions[1].reason == "Miscounted tally"
    assert all(v.entered_at is not None and v.confirmed_by is None for v in versions)


def test_second_person_refuses_the_submitter_and_keeps_both_names(second_person):
    stage, sam, kim = second_person.stage, second_person.sam, second_person.kim
    player = second_person.player()
    service.enter_card(stage, player, second_person.record(player), actor=sam, base_version=0)
    assert second_person.state(player).status == Status.TO_CONFIRM
    with pytest.raises(UserFacingError, match="someone else must confirm it"):
        service.confirm_card(stage, player, actor=sam, version=1)
    assert not second_person.state(player).verified
    service.confirm_card(stage, player, actor=kim, version=1)
    state = second_person.state(player)
    assert state.verified and state.checked_by == kim.pk
    entry = CardEntry.objects.get(player=player)
    assert (entry.entered_by, entry.confirmed_by) == (sam, kim)
    assert entry.confirmed_at >= entry.entered_at


def test_second_person_a_resolution_needs_someone_else_too(second_person):
    stage, sam, kim = second_person.stage, second_person.sam, second_person.kim
    player = second_person.player()
    record = second_person.record(player)
    service.enter_card(
        stage, player, replace(record, minis=record.minis + 1), actor=sam, base_version=0
    )
    service.resolve_card(stage, player, choice="tables", reason="Tally", actor=sam, version=1)
    assert second_person.state(player).status == Status.TO_CONFIRM
    with pytest.raises(UserFacingError, match="someone else must confirm it"):
        service.confirm_card(stage, player, actor=sam, version=2)
    service.confirm_card(stage, player, actor=kim, version=2)
    assert second_person.state(player).verified


def pod_verified(stage) -> bool:
    (check,) = service.verify_pods(service.load_stage(stage), list(stage.pods.all()))
    return check.verified_pod


def test_one_staff_the_pod_is_verified_once_every_card_matches(one_staff):
    stage, sam = one_staff.stage, one_staff.sam
    cards = service.load_stage(stage)
    members = cards.in_pod(1)
    for pid in members[:-1]:
        service.enter_card(stage, cards.players[pid], cards.records[pid], actor=sam, base_version=0)
    assert not pod_verified(stage)
    last = cards.players[members[-1]]
    record = cards.records[last.pk]
    service.enter_card(
        stage, last, replace(record, buncos=record.buncos + 1), actor=sam, base_version=0
    )
    assert not pod_verified(stage)  # one card still differs
    service.resolve_card(stage, last, choice="tables", reason="Recounted", actor=sam, version=1)
    assert pod_verified(stage)


def test_second_person_the_pod_is_verified_once_every_card_is_confirmed(second_person):
    stage, sam, kim = second_person.stage, second_person.sam, second_person.kim
    cards = service.load_stage(stage)
    members = cards.in_pod(1)
    for pid in members:
        service.enter_card(stage, cards.players[pid], cards.records[pid], actor=sam, base_version=0)
    assert not pod_verified(stage)  # every card matches, but nobody else has checked
    for pid in members[:-1]:
        service.confirm_card(stage, cards.players[pid], actor=kim, version=1)
    assert not pod_verified(stage)
    service.confirm_card(stage, cards.players[members[-1]], actor=kim, version=1)
    assert pod_verified(stage)


# --- the pages --------------------------------------------------------------------------------


def test_one_staff_pages_say_the_mode_and_verify_with_one_person(one_staff, client_for):
    sam = client_for(one_staff.sam)
    player = one_staff.player()
    record = one_staff.record(player)
    pod_page = text(sam.get(pod_cards_url(one_staff.tournament, 1)))
    assert "How cards are verified here: one staff member checks each card." in pod_page
    url = card_url(one_staff.tournament, 1, player)
    assert sam.post(url, enter_data(record)).status_code == 302
    page = text(sam.get(url))
    assert f"Verified: matches the tables, checked by {one_staff.sam.username} ." in page
    assert one_staff.state(player).verified
    # A forged confirmation changes nothing.
    response = client_for(one_staff.kim).post(url, {"action": "confirm", "version": 1})
    assert "Already verified: in this event one staff member's check is enough." in text(response)
    assert CardEntry.objects.get(player=player).confirmed_by is None


def test_one_staff_pages_resolve_a_difference_with_a_reason(one_staff, client_for):
    sam = client_for(one_staff.sam)
    player = one_staff.player(1)
    record = one_staff.record(player)
    url = card_url(one_staff.tournament, 1, player)
    sam.post(url, enter_data(record, buncos=record.buncos + 2))
    page = text(sam.get(url))
    assert "Not verified until the difference is resolved with a reason." in page
    assert "with its reason it verifies the card" in page
    resolve = {"action": "resolve", "version": 1, "choice": "tables", "reason": ""}
    assert sam.post(url, resolve).status_code == 200
    assert CardEntry.objects.filter(player=player).count() == 1  # nothing saved
    response = sam.post(url, {**resolve, "reason": "Recounted the tally"}, follow=True)
    assert "card resolved (version 2): verified." in text(response)
    assert one_staff.state(player).verified
    name = one_staff.sam.username
    assert f"Verified: difference resolved with a reason by {name} ." in text(sam.get(url))


def test_second_person_pages_refuse_a_forged_self_confirmation(second_person, client_for):
    sam, kim = client_for(second_person.sam), client_for(second_person.kim)
    player = second_person.player()
    url = card_url(second_person.tournament, 1, player)
    pod_page = text(sam.get(pod_cards_url(second_person.tournament, 1)))
    assert "How cards are verified here: a second person confirms each card." in pod_page
    sam.post(url, enter_data(second_person.record(player)))
    page = sam.get(url).content.decode()
    assert 'id="confirm-button"' not in page
    assert "Needs a second person to confirm:" in text(sam.get(url))
    response = sam.post(url, {"action": "confirm", "version": 1})  # no button, forged
    assert "You entered this version yourself; someone else must confirm it." in text(response)
    assert CardEntry.objects.get(player=player).confirmed_by is None
    assert kim.post(url, {"action": "confirm", "version": 1}).status_code == 302
    name = second_person.sam.username
    assert f"Verified: Entered by {name} · confirmed by kim ." in text(kim.get(url))


# --- presets ----------------------------------------------------------------------------------


def test_builtin_presets_show_their_mode_on_the_new_tournament_page(organiser, client_for):
    for slug, rules in PRESETS.items():
        assert RulePreset.objects.get(slug=slug).verification == rules.verification
    page = client_for(organiser).get(reverse("tournament-create")).content.decode()
    notes = page.split('id="preset-notes"')[1].split("</dl>")[0]
    mesquite = notes.split('data-preset="mesquite">')[1].split("</dd>")[0]
    assert "Cards: one staff member checks each card against the table results." in mesquite
    classic = notes.split('data-preset="classic">')[1].split("</dd>")[0]
    assert "Cards: a second person confirms each card." in classic


def test_a_copy_switches_mode_and_its_event_follows_it(organiser, client_for):
    client = client_for(organiser)
    client.post(reverse("preset-copy", args=["mesquite"]), {"label": "Our Mesquite"})
    copy = RulePreset.objects.get(label="Our Mesquite")
    assert copy.verification == ONE_STAFF  # copied as the sheet says
    form = {**RulePreset.fields_from_ruleset(copy.to_ruleset()), "description": ""}
    form = {k: v for k, v in form.items() if v is not False}
    form["verification"] = SECOND_PERSON
    assert client.post(reverse("preset-edit", args=[copy.slug]), form).status_code == 302
    copy.refresh_from_db()
    assert copy.to_ruleset().verification == SECOND_PERSON
    assert RulePreset.objects.get(slug="mesquite").verification == ONE_STAFF  # untouched
    detail = text(client.get(copy.get_absolute_url()))
    assert "Card verification A second person confirms each card" in detail
    # An unknown mode is a form error and changes nothing.
    response = client.post(reverse("preset-edit", args=[copy.slug]), {**form, "verification": "x"})
    assert response.status_code == 200
    copy.refresh_from_db()
    assert copy.verification == SECOND_PERSON

    # An event drawn with the copy checks cards the copy's way.
    event = two_rounds_played(copy.slug, seed=6)
    assert event.stage.verification == SECOND_PERSON
    player = event.player()
    service.enter_card(event.stage, player, event.record(player), actor=event.sam, base_version=0)
    assert event.state(player).status == Status.TO_CONFIRM


def test_the_migration_gives_drawn_stages_the_mode_of_their_sheet(one_staff, second_person):
    migration = importlib.import_module("tournaments.migrations.0013_verification_mode")
    for event in (one_staff, second_person):
        rules = dict(event.stage.rules)
        del rules["verification"]
        Stage.objects.filter(pk=event.stage.pk).update(rules=rules)
    migration.follow_the_sheets(apps, None)
    assert Stage.objects.get(pk=one_staff.stage.pk).verification == ONE_STAFF
    assert Stage.objects.get(pk=second_person.stage.pk).rules["verification"] == SECOND_PERSON


# --- the rehearsal ----------------------------------------------------------------------------


def cards_of(tournament) -> list[tuple]:
    """Every card version of an event, by player registration order, without ids or times."""
    order = {
        pk: n for n, pk in enumerate(tournament.players.order_by("pk").values_list("pk", flat=True))
    }
    return sorted(
        (
            e.stage.kind,
            order[e.player_id],
            e.version,
            e.kind,
            e.entered_by.username,
            e.confirmed_by.username if e.confirmed_by else None,
            e.wins,
            e.buncos,
            e.minis,
        )
        for e in CardEntry.objects.filter(stage__tournament=tournament).select_related(
            "stage", "entered_by", "confirmed_by"
        )
    )


def test_rehearsal_verifies_one_staff_cards_alone_and_replays_identically():
    first = rehearse(players=24, preset="mesquite", seed=5)
    report = first.stages["qualifying"]
    assert report.cards_verified == 24 and report.discrepancies_resolved == 24 // 13
    entries = CardEntry.objects.filter(stage__tournament=first.tournament)
    assert entries.exists() and not entries.filter(confirmed_by__isnull=False).exists()
    before = cards_of(first.tournament)
    assert {kind for kind, *_ in before} == {"qualifying", "semi_final"}
    again = rehearse(players=24, preset="mesquite", seed=5)  # the same event, purged and replayed
    assert cards_of(again.tournament) == before
