"""The Bunco rules engine: pure Python, no Django, randomness only from what callers pass in.

Modules, each about one thing: `ruleset` (a preset's rules as a value), `presets` (the four
rule sheets), `roll` (scoring one throw), `dice` (seeded or entered dice), `table` (play at
one table, partners and pairs), `pod` (a round for a whole pod), `tiebreak` (tied tables and
roll-offs), `final` (the final table's throws), `pods` (the shape of a draw), `seating` (the
draw and the movement between rounds) and `cards` (a score card's state). The event's rules
(the cut, prizes, simulate) are in `tournaments/rules/`.
"""

from .dice import DieSource, die_source, random_rolls, three_dice
from .errors import EngineBug, RuleError
from .final import (
    FinalResult,
    FinalTurn,
    OrderResult,
    is_win,
    next_thrower,
    order_of_play,
    play_final,
    roll_order,
    take_turn,
)
from .pod import PodRound, play_pod_round
from .presets import PRESETS, get_preset
from .roll import ROLL_KINDS, RollScore, score_roll
from .ruleset import (
    MOVEMENT_STYLES,
    ONE_STAFF,
    SECOND_PERSON,
    TIE_BREAK_METHODS,
    VERIFICATION_MODES,
    RuleSet,
)
from .table import Roll, TablePlay, TableRound, Turn, play_table_round
from .tiebreak import RollOff, TieBreak, TieRoll, break_table_tie, roll_off

__all__ = [
    "MOVEMENT_STYLES",
    "ONE_STAFF",
    "PRESETS",
    "ROLL_KINDS",
    "SECOND_PERSON",
    "TIE_BREAK_METHODS",
    "VERIFICATION_MODES",
    "DieSource",
    "EngineBug",
    "FinalResult",
    "FinalTurn",
    "OrderResult",
    "PodRound",
    "Roll",
    "RollOff",
    "RollScore",
    "RuleError",
    "RuleSet",
    "TablePlay",
    "TableRound",
    "TieBreak",
    "TieRoll",
    "Turn",
    "break_table_tie",
    "die_source",
    "get_preset",
    "is_win",
    "next_thrower",
    "order_of_play",
    "play_final",
    "play_pod_round",
    "play_table_round",
    "random_rolls",
    "roll_order",
    "roll_off",
    "score_roll",
    "take_turn",
    "three_dice",
]
