"""The prize budget check: prizes against the money taken, in cents, with no database."""

import pytest

from tournaments.rules.budget import prize_budget


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
