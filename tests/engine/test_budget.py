"""The prize budget check: prizes against the money taken, in cents, with no database."""

from dataclasses import dataclass

import pytest

from tournaments.rules.budget import expected_pods, prize_budget, prize_list_cents


def test_prizes_within_the_fees_leave_the_rest_to_the_charity():
    budget = prize_budget(120_000, 45_000)
    assert not budget.over and budget.over_cents == 0
    assert budget.charity_cents == 75_000


def test_prizes_over_the_fees_warn_by_how_much():
    budget = prize_budget(40_000, 52_500)
    assert budget.over and budget.over_cents == 12_500
    assert budget.charity_cents == -12_500


def test_a_share_set_by_the_organiser_lowers_the_cap():
    budget = prize_budget(100_000, 45_000, share_percent=40)
    assert budget.cap_cents == 40_000 and budget.over_cents == 5_000
    assert budget.charity_cents == 55_000
    assert not prize_budget(100_000, 40_000, share_percent=40).over


@pytest.mark.parametrize("args", [(-1, 0, None), (0, -5, None), (100, 10, 0), (100, 10, 101)])
def test_nonsense_is_refused(args):
    with pytest.raises(ValueError):
        prize_budget(*args)


@dataclass
class Line:
    scope: str
    amounts_cents: tuple[int, ...]
    stage_kind: str = "qualifying"


PLAN = {"pod_size": 12, "split": "full"}


def test_a_per_pod_prize_is_paid_in_each_pod_of_its_own_stage():
    prizes = [
        Line("pod", (10_000, 5_000)),
        Line("pod", (2_000,), "semi_final"),
        Line("overall", (50_000,)),
        Line("pod_group", (1_000,)),
    ]
    pods = {"qualifying": 10, "semi_final": 2}
    assert prize_list_cents(prizes, pods) == 15_000 * 10 + 2_000 * 2 + 50_000 + 1_000


def test_drawn_stages_count_their_own_pods():
    pods = expected_pods({"qualifying": 7, "semi_final": 3}, 600, 2, **PLAN)
    assert pods == {"qualifying": 7, "semi_final": 3}


def test_undrawn_stages_count_what_their_draw_would_make():
    # 600 players: 50 pods of twelve; two advance from each, 100 players: 9 semi-final pods
    assert expected_pods({}, 600, 2, **PLAN) == {"qualifying": 50, "semi_final": 9}
    # the qualifying pods drawn (13 of them, some short) decide the semi-final's size
    assert expected_pods({"qualifying": 13}, 150, 2, **PLAN) == {
        "qualifying": 13,
        "semi_final": 3,
    }


def test_nobody_counted_means_no_pods_and_no_per_pod_money():
    pods = expected_pods({}, 0, 2, **PLAN)
    assert pods == {"qualifying": 0, "semi_final": 0}
    assert prize_list_cents([Line("pod", (10_000,)), Line("overall", (500,))], pods) == 500
