"""Every phase of the evening, from plain numbers: what comes next and where admins land."""

from dataclasses import replace

import pytest

from tournaments.rules.phases import EventFacts, NextStep, Phase, StageFacts, next_step

NOBODY = EventFacts(registration_open=False, check_in_open=False, registered=0, checked_in=0)
ARRIVED = replace(NOBODY, registered=40, checked_in=38)


def stage(kind="qualifying", **changes) -> StageFacts:
    played = dict(
        kind=kind,
        finished=True,
        rounds=6,
        rounds_started=6,
        open_round=None,
        pods=5,
        pods_reported=0,
        players=40,
        cards_entered=40,
    )
    return StageFacts(**{**played, **changes})


QUALIFIED = replace(ARRIVED, qualifying=stage(), qualifiers_saved=True)
SEATED = replace(QUALIFIED, semi_final=stage("semi_final", players=12, cards_entered=12))
WON = replace(SEATED, final_seated=True, final_won=True)

CASES = {
    "nothing yet": (NOBODY, NextStep(Phase.SETUP, "tournament-edit")),
    "registration open": (
        replace(NOBODY, registration_open=True, registered=12),
        NextStep(Phase.REGISTRATION, "player-list", total=12),
    ),
    "registration closed": (
        replace(NOBODY, registered=40),
        NextStep(Phase.REGISTERED, "checkin-desk", total=40),
    ),
    "desk open": (
        replace(ARRIVED, check_in_open=True, registration_open=True),
        NextStep(Phase.CHECK_IN, "stage-control", done=38, total=40),
    ),
    "pods drawn": (
        replace(ARRIVED, qualifying=stage(finished=False, rounds_started=0)),
        NextStep(Phase.DRAWN, "stage-control", "qualifying", 1),
    ),
    "round 5 playing": (
        replace(
            ARRIVED,
            qualifying=stage(finished=False, rounds_started=5, open_round=5, pods_reported=3),
        ),
        NextStep(Phase.ROUND_PLAYING, "stage-control", "qualifying", 5, 3, 5),
    ),
    "between rounds": (
        replace(ARRIVED, qualifying=stage(finished=False, rounds_started=4)),
        NextStep(Phase.ROUND_CLOSED, "stage-control", "qualifying", 5),
    ),
    "qualifying cards": (
        replace(ARRIVED, qualifying=stage(cards_entered=31)),
        NextStep(Phase.CARDS, "my-pods", "qualifying", done=31, total=40),
    ),
    "qualifiers to save": (
        replace(ARRIVED, qualifying=stage()),
        NextStep(Phase.QUALIFIERS, "advancement", "qualifying"),
    ),
    "semi-final to draw": (QUALIFIED, NextStep(Phase.SEMI_TO_DRAW, "advancement")),
    "semi-final playing": (
        replace(
            QUALIFIED,
            semi_final=stage("semi_final", finished=False, rounds_started=1, open_round=1, pods=1),
        ),
        NextStep(Phase.ROUND_PLAYING, "stage-control", "semi_final", 1, 0, 1),
    ),
    "semi-final cards": (
        replace(QUALIFIED, semi_final=stage("semi_final", players=12, cards_entered=0)),
        NextStep(Phase.CARDS, "my-pods", "semi_final", done=0, total=12),
    ),
    "final to seat": (SEATED, NextStep(Phase.FINAL_TO_SEAT, "advancement")),
    "final throwing": (
        replace(SEATED, final_seated=True),
        NextStep(Phase.FINAL, "final-table"),
    ),
    "prizes to award": (WON, NextStep(Phase.PRIZES, "prize-winners")),
    "prizes to pay": (
        replace(WON, prizes_awarded=9, prizes_paid=4),
        NextStep(Phase.PAYING, "payouts", done=4, total=9),
    ),
    "all paid": (
        replace(WON, prizes_awarded=9, prizes_paid=9),
        NextStep(Phase.DONE, "ledger", total=9),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_phase_names_its_next_step(name):
    facts, expected = CASES[name]
    assert next_step(facts) == expected


def test_every_phase_is_reached():
    assert {expected.phase for _, expected in CASES.values()} == set(Phase)


def test_a_stage_whose_rounds_are_all_closed_goes_on_to_its_cards():
    facts = replace(ARRIVED, qualifying=stage(finished=False, cards_entered=0))
    assert next_step(facts).phase == Phase.CARDS


@pytest.mark.parametrize(
    ("name", "page"),
    [
        ("nothing yet", "printouts"),
        ("desk open", "printouts"),
        ("round 5 playing", "printouts"),
        ("qualifying cards", "prizes"),
        ("semi-final playing", "prizes"),
        ("prizes to pay", "prizes"),
    ],
)
def test_admins_print_until_qualifying_is_played_then_award_prizes(name, page):
    assert next_step(CASES[name][0]).admin_page == page
