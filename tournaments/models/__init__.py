from .audit import AuditEntry
from .players import Player
from .presets import RulePreset
from .roles import Role, TournamentRole, UserProfile
from .tournament import Tournament

__all__ = [
    "AuditEntry",
    "Player",
    "Role",
    "RulePreset",
    "Tournament",
    "TournamentRole",
    "UserProfile",
]
