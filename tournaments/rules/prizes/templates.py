"""Each rule sheet's prize list, ready to copy into a tournament where the organiser edits it."""

from __future__ import annotations

from .categories import CategoryRule

MESQUITE: tuple[CategoryRule, ...] = (
    CategoryRule("buncos", "Most Buncos", "most_buncos", "pod", (10_000,), "roll_off", 10),
    CategoryRule("minis", "Most Minis", "most_minis", "pod", (5_000,), "roll_off", 20),
    CategoryRule("wins", "Most Wins", "most_wins", "pod", (4_000,), "roll_off", 30),
    CategoryRule("costume", "Best Costume", "judged", "pod", (2_500,), priority=40),
    CategoryRule(
        "team_buncos",
        "Team with Overall Most Buncos",
        "most_buncos",
        "pod_group",
        (10_000,),
        "roll_off",
        50,
    ),
    CategoryRule(
        "team_costume", "Team with Best Costume", "judged", "pod_group", (2_500,), priority=60
    ),
)
"""The Mesquite staff-verified sheet: each team (pod) pays four winners, then two team prizes.

The sheet settles every tie with dice, so ties for a counted prize are rolled off; the
costumes are judged, so no tie policy applies to them.
"""

CLASSIC: tuple[CategoryRule, ...] = (
    CategoryRule("buncos", "Most Buncos", "most_buncos", "overall", (2_000,), "split", 10),
    CategoryRule("minis", "Most Mini Buncos", "most_minis", "overall", (1_000,), "split", 20),
    CategoryRule("wins", "Most Wins", "most_wins", "overall", (1_500,), "split", 30),
    CategoryRule(
        "even_split", "Half Wins and Half Losses", "even_split", "overall", (1_000,), "split", 40
    ),
    CategoryRule("last_bunco", "Last Bunco", "last_bunco", "overall", (1_000,), "split", 50),
    CategoryRule("losses", "Most Losses", "most_losses", "overall", (1_000,), "split", 60),
    CategoryRule("traveling", "Traveling", "traveling_holder", "overall", (1_000,), priority=70),
)
"""The complete rules' "Optional rule: Prize categories", for the whole party.

The sheet suggests categories but no amounts or tie rule: the amounts are placeholders the
organiser edits, and ties are shared, which needs no dice at a home party.
"""

MINGLE: tuple[CategoryRule, ...] = (
    CategoryRule("wins", "Most Wins", "most_wins", "pod", (2_000,), "roll_off", 10),
    CategoryRule("losses", "Most Losses", "most_losses", "pod", (2_000,), "roll_off", 20),
    CategoryRule(
        "fuzzy_die", "Bunco Fuzzy Die holder", "traveling_holder", "overall", (2_000,), priority=30
    ),
)
"""The Mingle event sheet: most wins and most losses in each pod of 12, and whoever holds
the (one) Bunco Fuzzy Die at the end of the evening. Amounts are placeholders; ties are
settled as the sheet's TIES rule says, one die each, highest wins.
"""

ROLLING_FOR_PINK: tuple[CategoryRule, ...] = ()
"""The Rolling for Pink sheet names no prize categories: its only prize is the grand prize,
won at the final table (see `scoring.rules.final`), so its template is empty.
"""

TEMPLATES: dict[str, tuple[CategoryRule, ...]] = {
    "mesquite": MESQUITE,
    "classic": CLASSIC,
    "mingle": MINGLE,
    "rolling-for-pink": ROLLING_FOR_PINK,
}
"""Each rule sheet's prize list by preset name; tuples, so editing a copy leaves these intact."""
