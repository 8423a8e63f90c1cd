"""The final table's rules, step by step as the live page calls them, and `play_final`.

The sheet is rolling-for-pink-tournament.txt, lines 102-110: "There are four spots at the
final table", "These four players will roll a die to determine who goes first (lowest
number rolls first)", "If the person does not roll a BUNKO, the dice will move clockwise to
the next contestant." Seats are numbered clockwise, so clockwise is seat order.
"""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.errors import RuleError
from scoring.rules.final import is_win, next_thrower, order_of_play, play_final, roll_order
from scoring.rules.final import take_turn as take
from tournaments.rules.advancement import AdvancementRules, Standing, final_seats

SEATS = ("Ann", "Bea", "Cat", "Dee")  # seats 1 to 4, clockwise


def dice(*faces):
    """A staff member typing in physical dice, one face at a time."""
    return iter(faces).__next__


def test_lowest_die_throws_first_then_clockwise_by_seat():
    """Sheet line 107-109: lowest number rolls first, then the dice move clockwise: Cat (seat
    3) has the lowest die, so Dee, Ann and Bea follow in seat order, not in die order."""
    result = order_of_play(SEATS, [5, 2, 1, 6])
    assert result.decided and result.needed == ()
    assert result.order == ("Cat", "Dee", "Ann", "Bea")
    assert result.rounds == ({"Ann": 5, "Bea": 2, "Cat": 1, "Dee": 6},)
    assert result.faces == [5, 2, 1, 6]


def test_only_a_tie_for_lowest_is_thrown_again_among_the_tied_players():
    """Sheet line 107: only who goes first is decided by dice, so a tie for the lowest die
    is thrown again by the tied players alone, one die each in seat order."""
    first = order_of_play(SEATS, [4, 2, 5, 2])
    assert not first.decided and first.order == ()
    assert first.needed == ("Bea", "Dee")  # only the tied players are asked for a die
    again = order_of_play(SEATS, [4, 2, 5, 2, 3, 3])
    assert again.needed == ("Bea", "Dee")  # still tied: the same two throw again
    done = order_of_play(SEATS, [4, 2, 5, 2, 3, 3, 6, 1])
    assert done.order == ("Dee", "Ann", "Bea", "Cat")
    assert done.rounds[1:] == ({"Bea": 3, "Dee": 3}, {"Bea": 6, "Dee": 1})


def test_everyone_on_the_same_die_throws_again():
    """Sheet line 107: four equal dice leave the lowest shared by all four."""
    assert order_of_play(SEATS, [3, 3, 3, 3]).needed == SEATS
    assert order_of_play(SEATS, [3, 3, 3, 3, 2, 1, 4, 5]).order == ("Bea", "Cat", "Dee", "Ann")


def test_a_tie_for_second_is_not_thrown_again():
    """Sheet line 107-109: after the lowest, the order is clockwise by seat, so players
    tied on a higher die never throw again and no extra die is asked for."""
    result = order_of_play(SEATS, [4, 4, 1, 4])
    assert result.order == ("Cat", "Dee", "Ann", "Bea")
    with pytest.raises(RuleError, match="decided after 4 dice, but 6 were entered"):
        order_of_play(SEATS, [4, 4, 1, 4, 2, 3])


def test_dice_are_asked_for_by_whole_round_and_checked():
    with pytest.raises(RuleError, match="4 players throw now, one die each, but 3 dice"):
        order_of_play(SEATS, [1, 2, 3])
    with pytest.raises(RuleError, match="2 players throw now, one die each, but 1 die was"):
        order_of_play(SEATS, [2, 2, 5, 6, 4])
    with pytest.raises(RuleError, match="1 to 6"):
        order_of_play(SEATS, [1, 2, 7, 3])
    assert order_of_play(SEATS, []).needed == SEATS  # nothing thrown yet: everyone throws


@given(st.lists(st.integers(1, 6), min_size=4, max_size=4))
def test_the_order_is_always_a_rotation_of_the_seats_from_a_lowest_die(first):
    """Sheet lines 107-109 for any first throw: whoever starts, the rest follow clockwise."""
    result = roll_order(SEATS, dice(*first, *range(1, 5), *range(1, 5)))
    start = SEATS.index(result.order[0])
    assert result.order == SEATS[start:] + SEATS[:start]
    assert first[start] == min(first)


def test_throws_go_round_the_order_and_three_of_a_kind_wins():
    """Sheet lines 108-110: three of any number wins; otherwise the next contestant."""
    order = ("Cat", "Dee", "Ann", "Bea")
    assert [next_thrower(order, n) for n in range(6)] == [*order, "Cat", "Dee"]
    assert is_win((4, 4, 4)) and is_win([1, 1, 1])
    assert not is_win((4, 4, 5))
    turn = take(order, 5, [2, 2, 2])
    assert (turn.player, turn.dice, turn.wins) == ("Dee", (2, 2, 2), True)
    for bad in [(1, 2), (1, 2, 7), (1, 2, 3, 4), (True, 1, 1)]:
        with pytest.raises(RuleError, match="three dice, each 1 to 6"):
            take(order, 0, bad)
    with pytest.raises(RuleError, match="order of play first"):
        next_thrower((), 0)


def test_play_final_uses_the_same_steps_as_event_night():
    """Sheet lines 107-110 end to end: the tie for lowest is re-thrown by Bea and Cat only,
    Cat starts, and the dice go clockwise (Dee, then Ann) until a three of a kind."""
    faces = [
        *(4, 2, 2, 5),  # order: Bea and Cat tie on the lowest die
        *(6, 1),  # re-throw: Cat has the lowest, so Cat starts
        *(1, 2, 3),  # Cat
        *(2, 2, 3),  # Dee, clockwise from Cat
        *(5, 5, 5),  # Ann: three of a kind wins
    ]
    final = play_final(SEATS, dice(*faces))
    assert final.order == ["Cat", "Dee", "Ann", "Bea"]
    assert final.order_roll == order_of_play(SEATS, faces[:6])
    assert [(t.player, t.dice) for t in final.turns] == [
        ("Cat", (1, 2, 3)),
        ("Dee", (2, 2, 3)),
        ("Ann", (5, 5, 5)),
    ]
    assert final.winner == "Ann"


def test_seeded_final_ends_on_the_first_triple():
    for seed in range(20):
        final = play_final([1, 2, 3, 4], random.Random(seed))
        *before, last = final.turns
        assert len(set(last.dice)) == 1 and last.player == final.winner
        assert all(len(set(t.dice)) > 1 for t in before)
        assert [t.player for t in final.turns] == [
            next_thrower(final.order, i) for i in range(len(final.turns))
        ]


def test_final_table_errors():
    with pytest.raises(RuleError):
        play_final(["a"], random.Random(1))
    with pytest.raises(RuleError):
        play_final(["a", "b", "c", "d", "e"], random.Random(1))
    with pytest.raises(RuleError):
        play_final(["a", "a", "b", "c"], random.Random(1))


@pytest.mark.parametrize("top_both", ["next_in_line", "empty_seat"])
def test_four_seats_whatever_the_organiser_chose_for_a_player_topping_both_lists(top_both):
    """Sheet line 102: "There are four spots at the final table". Player 1 has the most wins
    and the most buncos; the buncos seat goes to the next on that list (player 3), never
    left empty, whichever `top_both` the pods use."""
    semi = [
        Standing(1, wins=6, buncos=3),
        Standing(2, wins=4, buncos=0),
        Standing(3, wins=2, buncos=2),
        Standing(4, wins=1, buncos=1),
    ]
    rules = AdvancementRules(top_both=top_both)
    for seed in range(30):
        table = final_seats(semi, rules, range(1, 10), random.Random(seed))
        assert len(table.seats) == 4 and len(set(table.players)) == 4
        assert table.players[:2] == [1, 3]
        assert table.semi_final.empty_seats == ()
        assert [s.reason for s in table.seats[:2]] == [
            "Most wins in the semi-final",
            "Most buncos in the semi-final",
        ]
