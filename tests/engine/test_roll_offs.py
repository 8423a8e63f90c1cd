"""Which tie of a cut and which tie of a prize are one tie (rule 7: one tie, one roll-off)."""

from tournaments.rules.roll_offs import SEMI_GROUP, cut_key, cut_tied, prize_tied, settled_by


def test_a_pods_cut_and_its_per_pod_prize_on_the_same_count_are_one_tie():
    cut = cut_tied("qualifying", "3", "wins", [7, 4])
    prize = prize_tied("qualifying", "pod", "most_wins", 3, (4, 7))
    assert cut == prize and cut_key(prize) == ("3", "wins")
    assert settled_by(prize, [(cut, "the cut's dice")]) == "the cut's dice"


def test_the_semi_finals_cut_matches_an_overall_prize_of_the_semi_final():
    cut = cut_tied("semi_final", SEMI_GROUP, "buncos", [1, 2])
    assert prize_tied("semi_final", "overall", "most_buncos", "overall", [2, 1]) == cut
    # Counted over the qualifying stage, "overall" is every pod: no cut ranks them together.
    assert prize_tied("qualifying", "overall", "most_buncos", "overall", [2, 1]) is None


def test_other_players_another_count_pod_or_stage_are_other_ties():
    cut = cut_tied("qualifying", "3", "wins", [7, 4])
    recorded = [(cut, "the cut's dice")]
    for other in (
        prize_tied("qualifying", "pod", "most_wins", 3, [4, 7, 9]),  # a third player
        prize_tied("qualifying", "pod", "most_buncos", 3, [4, 7]),  # another count
        prize_tied("qualifying", "pod", "most_wins", 2, [4, 7]),  # another pod
        prize_tied("semi_final", "pod", "most_wins", 3, [4, 7]),  # another stage
    ):
        assert other is not None and settled_by(other, recorded) is None


def test_prizes_no_cut_ranks_by_have_no_twin():
    assert prize_tied("qualifying", "pod", "most_losses", 3, [4, 7]) is None
    assert prize_tied("qualifying", "pod_group", "most_buncos", "overall", [1, 2]) is None
    assert cut_tied("qualifying", "3", "minis", [4, 7]) is None
    assert settled_by(None, [(None, "anything")]) is None
