from .advancement import FinalSeat, FinalTable, FinalThrow, Qualifier, RollOffRecord
from .audit import AuditEntry
from .players import Player
from .presets import RulePreset
from .roles import Role, TournamentRole, UserProfile
from .stages import Pod, RosterChange, Round, Seat, Stage
from .tournament import Tournament

__all__ = [
    "FinalSeat",
    "FinalTable",
    "FinalThrow",
    "Qualifier",
    "RollOffRecord",
    "AuditEntry",
    "Player",
    "Pod",
    "RosterChange",
    "Round",
    "Seat",
    "Stage",
    "Role",
    "RulePreset",
    "Tournament",
    "TournamentRole",
    "UserProfile",
]
