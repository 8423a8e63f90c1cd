"""The four rule sheets we were given, each turned into a `RuleSet`.

Every field is traced to a sentence of its sheet in /work/shared/rules/ (quoted below), so a
reviewer can check the preset against the paper without running anything. Where a sheet is
silent or ambiguous the comment says which reading we chose and why.
"""

from __future__ import annotations

from .errors import RuleError
from .ruleset import ONE_STAFF, SECOND_PERSON, RuleSet

# complete-rules-with-examples.txt
#  targets 1..6: "In round 1, each 1 rolled ... In round 6, each 6 rolled is worth 1 point."
#  no snake eyes: the sheet never mentions three 1s outside round 1.
#  bell_points 21: "The round ends when the head table accumulates at least 21 points."
#  bell_on_bunco: "...unless the player is sitting at the head table in which case she rings
#    the bell"; a bunco is 21 points anyway, so both readings agree.
#  finish_turn_after_bell: "all players who are taking their turn when the round ends,
#    including the player who rang the bell, continue rolling until one of their rolls earns
#    them no points" (and Hannah rolls again in the worked example), so the head table
#    does not stop at its own bell.
#  qualifying sets 2 to 4: "A game of Bunco consists of two to four sets".
#  everyone_rolls_once False: nothing says players who have not rolled get a turn.
#  movement progressive: "The winning team at the head table ... stays"; "The losing team
#    from the head table should move to the middle table"; "The losing team at table #3 stays".
#  tie-break turn_around_table: "Each player is allowed to roll the dice again for one session
#    ... additional roll-off session(s) are repeated until the tie is broken."
#  verification second_person: the sheet is for a home game and says nothing about checking
#    cards; a tournament using it keeps the site's default, a second person confirms.
CLASSIC = RuleSet(
    name="classic",
    label="Classic Bunco",
    targets=(1, 2, 3, 4, 5, 6),
    snake_eyes=False,
    bell_on_bunco=True,
    finish_turn_after_bell=True,
    everyone_rolls_once=False,
    movement="progressive",
    table_tie_break="turn_around_table",
    min_qualifying_sets=2,
    max_qualifying_sets=4,
    verification=SECOND_PERSON,
)

# mingle-event-pods-of-12.txt
#  targets 2..6: "played in 5 ROUNDS (2s, 3s, 4s, 5s, 6s) per SET".
#  snake eyes: "Rolling three 1s is a snake eyes. The team loses all of its points and loses
#    its turn." (1 is never a target here, so three 1s are always snake eyes.)
#  bell at 21 and on a bunco: "If the head table gets a Bunco, they yell out "Bunco", ring the
#    bell and the round ends."
#  finish_turn_after_bell: "When the round ends, players at the lower tables get to finish
#    their roll."
#  head_table_stops_at_bell: only the *lower* tables finish; the head table stops: "If the
#    head table gets a Bunco, they yell out "Bunco", ring the bell and the round ends" and
#    "The HIGH table rings the bell and the round is over for everyone".
#  qualifying sets 3: "There will be three sets played for the Mingle Event."
#  everyone_rolls_once: "Every player gets at least one roll per round."
#  movement winners_up: "the winning team from the Middle and Low tables move up to a higher
#    table. The losing team from the High table moves to the Low table."
#  tie-break high_die_player: "each person rolls one dice - highest score wins".
#  verification second_person: the sheet names no staff and no check of the personal score
#    sheets, so the default holds: a second person confirms each card.
MINGLE = RuleSet(
    name="mingle",
    label="Mingle Event (pods of 12)",
    targets=(2, 3, 4, 5, 6),
    snake_eyes=True,
    bell_on_bunco=True,
    finish_turn_after_bell=True,
    head_table_stops_at_bell=True,
    everyone_rolls_once=True,
    movement="winners_up",
    table_tie_break="high_die_player",
    min_qualifying_sets=3,
    max_qualifying_sets=3,
    verification=SECOND_PERSON,
)

# mesquite-gaming-staff-verified.txt
#  targets 1..6: "There are six rounds in each session"; "rolling a '3' in Round 3".
#  no snake eyes: not mentioned.
#  bell_points 21: "The Round is over when the HEAD table reaches 21 points."
#  bell_on_bunco: not stated, but a BUNCO is worth 21 so it always reaches the bell anyway.
#  finish_turn_after_bell: "the player rolling the dice finishes their turn, rolling until they
#    do not hit a target number." That is "the player rolling" at ALL tables, the head table
#    included, so it does not stop at its own bell.
#  qualifying sets: NOT STATED ("six rounds in each session", "At the end of all BUNCO
#    Sessions"), so any number the site allows (1 to 10).
#  everyone_rolls_once False: "Play at ALL tables stops as soon as the bell sounds".
#  movement losers_walk: "the winner's stay and the losers walk to the next table clockwise
#    from A to B, from B to C and from C to A ... one winner must move seats".
#  tie-break roll_to_target: "Ties in the round will be decided by continuing to roll. The
#    first person to roll the target number wins the Round for their team."
#  verification one_staff: "Each Team will have (1) Staff Member Assigned to them. Assigned
#    Staff will highlight to verify each of the following on your score cards: Bunco, Mini
#    Bunco, Wins"; "all sheets will be collected by your Teams Assigned Staff and will be
#    retabulated for accuracy". One assigned person checks; nobody confirms after them.
MESQUITE = RuleSet(
    name="mesquite",
    label="Mesquite Gaming (staff verified)",
    targets=(1, 2, 3, 4, 5, 6),
    snake_eyes=False,
    bell_on_bunco=True,
    finish_turn_after_bell=True,
    everyone_rolls_once=False,
    movement="losers_walk",
    table_tie_break="roll_to_target",
    verification=ONE_STAFF,
)

# rolling-for-pink-tournament.txt
#  targets 1..6: "trying to roll "ones""; "Each player rolls for "twos" in the second round";
#    "3 complete sets (6 rounds per set)".
#  no snake eyes: not mentioned.
#  bell: "When one team at the "Head" table scores 21 points, or gets a BUNKO".
#  everyone_rolls_once: "Play continues until every one at the table has had their turn."
#    AMBIGUOUS: could also mean "finish the current rotation so everyone rolled equally
#    often"; we read it as "anyone who has not rolled yet this round gets a turn".
#  finish_turn_after_bell: not stated. "A player continues rolling until no points are rolled"
#    and "every one ... has had their turn" suggest turns are completed, so True; nothing
#    sets the head table apart, so it finishes its turn too.
#  qualifying sets 3: "Play continues for 3 complete sets (6 rounds per set)" before the
#    semi-final.
#  movement progressive: "The winning teams stays at Table 1 ... The losing team from Table 1
#    goes down to Table 2 ... the losing team from Table 3 stays".
#  tie-break high_die_pair: "One player from each team will roll one die simultaneously. The
#    person who rolls the highest number wins" (equal dice are rolled again).
#  verification second_person: the sheet is silent on checking cards; with a semi-final and a
#    final table riding on the counts, the default stands: a second person confirms.
ROLLING_FOR_PINK = RuleSet(
    name="rolling-for-pink",
    label="Rolling for Pink Tournament",
    targets=(1, 2, 3, 4, 5, 6),
    snake_eyes=False,
    bell_on_bunco=True,
    finish_turn_after_bell=True,
    everyone_rolls_once=True,
    movement="progressive",
    table_tie_break="high_die_pair",
    min_qualifying_sets=3,
    max_qualifying_sets=3,
    verification=SECOND_PERSON,
)

PRESETS: dict[str, RuleSet] = {
    rules.name: rules for rules in (CLASSIC, MINGLE, MESQUITE, ROLLING_FOR_PINK)
}


def get_preset(name: str) -> RuleSet:
    """Look a preset up by slug with a message a person can act on, instead of a KeyError."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleError(
            f"Unknown rule preset {name!r}; choose one of {', '.join(PRESETS)}."
        ) from None
