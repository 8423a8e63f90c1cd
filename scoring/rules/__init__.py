"""The Bunco rules engine: pure Python, no Django, randomness only from what callers pass in.

Modules, each about one thing: `ruleset` (a preset's rules as a value), `presets` (the four
rule sheets), `roll` (scoring one throw), `dice` (seeded or entered dice), `table` (play at
one table), `pod` (a round for a whole pod), `tiebreak` (tied tables and roll-offs),
`final` (the final table) and `simulate` (a whole qualifying stage).
"""

from .dice import DieSource, die_source, random_rolls, three_dice
from .errors import EngineBug, RuleError
from .final import FinalResult, FinalTurn, play_final
from .pod import PodRound, play_pod_round
from .presets import PRESETS, get_preset
from .roll import ROLL_KINDS, RollScore, score_roll
from .ruleset import MOVEMENT_STYLES, TIE_BREAK_METHODS, RuleSet
from .table import Roll, TablePlay, TableRound, Turn, play_table_round
from .tiebreak import RollOff, TieBreak, TieRoll, break_table_tie, roll_off

__all__ = [
    "MOVEMENT_STYLES",
    "PRESETS",
    "ROLL_KINDS",
    "TIE_BREAK_METHODS",
    "DieSource",
    "EngineBug",
    "FinalResult",
    "FinalTurn",
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
    "play_final",
    "play_pod_round",
    "play_table_round",
    "random_rolls",
    "roll_off",
    "score_roll",
    "three_dice",
]
