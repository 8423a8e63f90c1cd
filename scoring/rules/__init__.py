"""The Bunco rules engine: pure Python, no Django, randomness only from what callers pass in.

Modules, each about one thing: `ruleset` (a preset's rules as a value), `presets` (the four
rule sheets), `roll` (scoring one throw), `dice` (seeded or entered dice), `table` (play at
one table), `pod` (a round for a whole pod), `tiebreak` (tied tables and roll-offs),
`advancement` (who goes to the semi-final and the final table), `final` (the final table)
and `simulate` (a whole qualifying stage).
"""

from .advancement import (
    AdvancementRules,
    Category,
    Cut,
    Eligibility,
    EmptySeat,
    FinalSeat,
    FinalTable,
    GroupAdvancement,
    Qualifier,
    Ranked,
    SettledRollOff,
    Standing,
    Tie,
    advance_group,
    cut,
    eligibility,
    final_seats,
    pending_roll_offs,
    rank,
    settle,
)
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
    "AdvancementRules",
    "Category",
    "Cut",
    "DieSource",
    "Eligibility",
    "EmptySeat",
    "EngineBug",
    "FinalResult",
    "FinalSeat",
    "FinalTable",
    "FinalTurn",
    "GroupAdvancement",
    "OrderResult",
    "PodRound",
    "Qualifier",
    "Ranked",
    "Roll",
    "RollOff",
    "RollScore",
    "RuleError",
    "RuleSet",
    "SettledRollOff",
    "Standing",
    "TablePlay",
    "TableRound",
    "Tie",
    "TieBreak",
    "TieRoll",
    "Turn",
    "advance_group",
    "break_table_tie",
    "cut",
    "die_source",
    "eligibility",
    "final_seats",
    "get_preset",
    "is_win",
    "next_thrower",
    "order_of_play",
    "pending_roll_offs",
    "play_final",
    "play_pod_round",
    "play_table_round",
    "random_rolls",
    "rank",
    "roll_order",
    "roll_off",
    "score_roll",
    "settle",
    "take_turn",
    "three_dice",
]
