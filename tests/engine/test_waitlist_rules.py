"""The waitlist's and parties' rules, without a database."""

from datetime import datetime, timedelta

import pytest

from tournaments.rules.waitlist import (
    ALL_OR_NONE,
    AS_MANY,
    Waiting,
    admit,
    positions,
    promotions,
    reminder_due,
)


@pytest.mark.parametrize(
    ("free", "size", "fit", "admitted"),
    [
        (5, 3, ALL_OR_NONE, 3),
        (2, 3, ALL_OR_NONE, 0),
        (2, 3, AS_MANY, 2),
        (0, 3, AS_MANY, 0),
        (-1, 1, AS_MANY, 0),  # over capacity (a ghost seat filled): nobody more
    ],
)
def test_admit(free, size, fit, admitted):
    assert admit(free, size, fit) == admitted


def test_promotions_in_order_and_no_more_than_free():
    queue = [Waiting(1), Waiting(2), Waiting(3)]
    assert promotions(2, queue, ALL_OR_NONE) == [1, 2]
    assert promotions(0, queue, ALL_OR_NONE) == []


def test_a_party_moves_up_together_or_lets_the_next_one_fit():
    queue = [Waiting(1, 9), Waiting(2, 9), Waiting(3, 9), Waiting(4), Waiting(5)]
    assert promotions(3, queue, ALL_OR_NONE) == [1, 2, 3]
    assert promotions(2, queue, ALL_OR_NONE) == [4, 5]  # the party keeps its turn
    assert promotions(2, queue, AS_MANY) == [1, 2]


def test_positions_moves_one_and_clamps():
    assert positions([1, 2, 3, 4], 4, 1) == [4, 1, 2, 3]
    assert positions([1, 2, 3, 4], 1, 99) == [2, 3, 4, 1]
    assert positions([1, 2, 3], 2, 0) == [2, 1, 3]
    with pytest.raises(ValueError):
        positions([1, 2], 7, 1)


NOW = datetime(2026, 11, 24, 18, 0)


@pytest.mark.parametrize(
    ("hours", "left", "due"),
    [
        (24, timedelta(hours=6), True),  # the last quarter starts
        (24, timedelta(hours=6, minutes=1), False),
        (2, timedelta(minutes=30), True),
        (2, timedelta(minutes=31), False),
        (24, timedelta(seconds=1), True),
        (24, timedelta(0), False),  # lapsed: the sweep passes it on instead
        (24, -timedelta(hours=1), False),
    ],
)
def test_a_reminder_falls_in_the_offers_last_quarter(hours, left, due):
    assert reminder_due(NOW + left, NOW, hours) is due
