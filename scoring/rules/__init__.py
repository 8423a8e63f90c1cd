from .errors import EngineBug, RuleError
from .presets import PRESETS
from .ruleset import RuleSet

__all__ = ["PRESETS", "EngineBug", "RuleError", "RuleSet"]
