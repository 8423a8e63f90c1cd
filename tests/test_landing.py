"""After signing in each role lands on its work, and the dashboard says what comes next."""

import datetime
from collections import Counter

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from tests.support.events import played_qualifying
from tests.support.factories import (
    PASSWORD,
    TournamentFactory,
    drawn_stage,
    grant,
    member,
    record_pod,
)
from tests.support.web import sign_in, text, url
from tournaments.rules.phases import NextStep, Phase
from tournaments.services import advancement, phase
from tournaments.services.phase import current_events, event_facts, step_of
from tournaments.services.rehearsal import rehearse, settle_roll_offs

pytestmark = pytest.mark.django_db


def landed(user) -> str:
    client, response = sign_in(user.username, PASSWORD)
    assert response.status_code == 302 and response["Location"] == reverse("landing")
    return client.get(reverse("landing"))["Location"]


def test_staff_land_on_my_pods_of_the_event_they_staff(tournament, staff_user):
    assert landed(staff_user) == url("my-pods", tournament)


def test_staff_of_two_current_events_choose_one(tournament, staff_user):
    other = TournamentFactory(name="Spring Bunco", date=tournament.date)
    grant(other, staff_user, "staff")
    client, _ = sign_in(staff_user.username, PASSWORD)
    page = text(client.get(reverse("landing")))
    assert "Which event are you working at?" in page
    assert url("my-pods", tournament) in page and url("my-pods", other) in page
    # The way to every other tournament; a new one only for those who may create one.
    assert f'href="{reverse("home")}">All your tournaments' in page
    assert reverse("tournament-create") not in page


def test_an_organiser_choosing_between_events_can_also_start_a_new_one(organiser):
    for n in range(2):
        grant(TournamentFactory(name=f"Night {n}"), organiser, "organiser")
    client, _ = sign_in(organiser.username, PASSWORD)
    page = text(client.get(reverse("landing")))
    assert "Which event are you working at?" in page
    assert reverse("tournament-create") in page


def test_tonights_event_wins_over_last_months():
    today = datetime.date(2026, 11, 24)
    last = TournamentFactory.build(date=today - datetime.timedelta(days=30))
    tonight = TournamentFactory.build(date=today)
    later = TournamentFactory.build(date=today + datetime.timedelta(days=7))
    assert current_events([last, later, tonight], today) == [tonight]
    assert current_events([last, later], today) == [later]
    assert current_events([last], today) == [last]


def test_an_event_finished_earlier_today_gives_way_to_the_one_still_running(client_for):
    """A reviewer signing in on the demo was asked to choose between tonight's event and one
    already played to the end (every prize paid). The running one is where the work is; the
    finished one stays on the home page's list."""
    finished = rehearse(players=24, preset="mesquite", seed=3).tournament
    assert step_of(finished).phase == Phase.DONE
    organiser = finished.created_by
    tonight = TournamentFactory(name="Tonight's Bunco", date=finished.date)
    grant(tonight, organiser, "organiser")
    client = client_for(organiser)
    assert client.get(reverse("landing"))["Location"] == url("tournament-dashboard", tonight)
    # Two events still running: the chooser lists both, not the finished one.
    later = TournamentFactory(name="Late Bunco", date=finished.date)
    grant(later, organiser, "organiser")
    page = text(client.get(reverse("landing")))
    assert "Tonight's Bunco" in page and "Late Bunco" in page
    assert finished.name not in page
    assert finished.name in text(client.get(reverse("home")))


def test_the_organiser_lands_on_the_dashboard_with_the_round_in_play(
    tournament, organiser, client_for
):
    stage = drawn_stage(tournament, organiser, players=24)
    assert landed(organiser) == url("tournament-dashboard", tournament)
    record_pod(stage.pods.get(number=1), stage.rounds.get(number=1), organiser, (0, 0, 0))
    page = text(client_for(organiser).get(url("tournament-dashboard", tournament)))
    assert "Round 1 is being played: 1 of 2 pods reported." in page
    assert f'href="{url("stage-control", tournament)}">Stages</a>' in page


def test_staff_see_no_next_step_on_the_dashboard(tournament, staff_user, client_for):
    page = text(client_for(staff_user).get(url("tournament-dashboard", tournament)))
    assert 'id="next-step"' not in page


def test_an_admin_prints_before_the_draw_and_awards_prizes_after_the_event(admin_user):
    tournament = admin_user.tournament_roles.get().tournament
    assert landed(admin_user) == url("printouts", tournament)
    event = rehearse(players=24, preset="mesquite", seed=3, slug="landing-admin")
    admin = member(event.tournament, "admin", "landing-admin")
    tournament.delete()
    assert landed(admin) == url("prizes", event.tournament)
    assert step_of(event.tournament).phase == Phase.DONE


def test_an_admin_choosing_between_events_reads_each_events_phase_once(admin_user, monkeypatch):
    """Which events are still running and which page an admin lands on both follow the
    event's phase, a dozen queries each: the landing reads it once per event."""
    tonight = admin_user.tournament_roles.get().tournament
    other = TournamentFactory(name="Second room", date=tonight.date)
    grant(other, admin_user, "admin")
    asked = Counter()
    read = phase.step_of
    monkeypatch.setattr(phase, "step_of", lambda t: asked.update([t.pk]) or read(t))
    found = phase.landings(admin_user, tonight.date)
    assert {(landing.tournament, landing.url_name) for landing in found} == {
        (tonight, "printouts"),
        (other, "printouts"),
    }
    assert asked == {tonight.pk: 1, other.pk: 1}


def test_a_finished_event_counts_every_stage_and_prize():
    facts = event_facts(rehearse(players=24, preset="mesquite", seed=3).tournament)
    assert facts.qualifying.finished and facts.qualifying.cards_entered == 24
    assert facts.semi_final.finished and facts.final_won and facts.qualifiers_saved
    assert facts.prizes_awarded == facts.prizes_paid > 0


def test_the_dashboard_counts_in_a_fixed_number_of_queries(
    tournament, organiser, client_for, django_assert_max_num_queries
):
    drawn_stage(tournament, organiser, players=48)
    client = client_for(organiser)
    with django_assert_max_num_queries(22):
        client.get(url("tournament-dashboard", tournament))


@pytest.mark.parametrize("phase", list(Phase))
def test_every_phase_reads_as_a_sentence_with_a_link(phase, tournament):
    links = {
        Phase.SETUP: "tournament-edit",
        Phase.REGISTRATION: "player-list",
        Phase.REGISTERED: "checkin-desk",
        Phase.CARDS: "my-pods",
        Phase.FINAL: "final-table",
        Phase.PRIZES: "prize-winners",
        Phase.PAYING: "payouts",
        Phase.DONE: "ledger",
    }
    link = links.get(phase, "stage-control")
    step = NextStep(phase, link, "semi_final", 5, 3, 5)
    html = render_to_string("tournaments/_next_step.html", {"step": step, "tournament": tournament})
    sentence = html.split("<strong>", 1)[1].split("</a>")[0]
    assert "{" not in sentence and "_" not in sentence
    assert url(link, tournament) in html


def test_my_pods_in_the_semi_final_shows_it_first_and_folds_qualifying(client_for):
    event = played_qualifying(24, 2, slug="landing-semi")
    settle_roll_offs(event.stage, organiser=event.organiser)
    advancement.save_qualifiers(event.stage, actor=event.organiser)
    semi = advancement.draw_semi_final(event.tournament, actor=event.organiser)
    staff = event.staff[0]
    semi.pods.get().staff.add(staff)
    page = text(client_for(staff).get(url("my-pods", event.tournament)))
    semi_at = page.index("Semi-final · round 1")
    folded = page.split('<details class="mt-3 finished-stage" id="finished-qualifying">')[1]
    assert semi_at < page.index('id="finished-qualifying"')
    assert "Qualifying · finished</summary>" in folded and "Pod 1" in folded
    assert "<details" not in page[:semi_at]


def test_staff_without_a_pod_at_a_finished_event_are_not_sent_to_the_organiser(
    tournament, staff_user, client_for
):
    """A reviewer, as staff of the finished demo event, read "You are not assigned to any pod.
    Ask the organiser to assign you one." Nothing is left to assign there."""
    finished = rehearse(players=24, preset="mesquite", seed=3).tournament
    grant(finished, staff_user, "staff")
    client = client_for(staff_user)
    page = text(client.get(url("my-pods", finished)))
    assert "there is nothing left to record here" in page
    assert "Ask the organiser" not in page
    # Mid-game, an unassigned staff member is still told whom to ask.
    drawn_stage(tournament, tournament.created_by)
    page = text(client.get(url("my-pods", tournament)))
    assert "Ask the organiser to assign you one." in page
