from .advancement import FinalSeat, FinalTable, FinalThrow, Qualifier
from .audit import AuditEntry
from .cashbook import CashBookSettings, CashBox, LedgerEntry
from .changes import ChangeCounter
from .draws import Draw
from .idempotency import PhoneSync, WriteReceipt
from .mail import EmailLog
from .players import CardProblem, Party, Player
from .presets import RulePreset
from .printouts import Printout
from .prizes import (
    LastBuncoMark,
    Payout,
    PrizeAward,
    PrizeCategory,
    PrizeNomination,
    TravelingPass,
)
from .roles import Invitation, Role, TournamentRole, UserProfile
from .roll_offs import RollOff
from .sign_in import SignInFailure
from .stages import Pod, RosterChange, Round, Seat, Stage
from .tournament import Tournament

__all__ = [
    "LastBuncoMark",
    "FinalSeat",
    "FinalTable",
    "FinalThrow",
    "Qualifier",
    "RollOff",
    "AuditEntry",
    "ChangeCounter",
    "CashBookSettings",
    "CashBox",
    "LedgerEntry",
    "Draw",
    "EmailLog",
    "Payout",
    "Invitation",
    "Player",
    "Party",
    "PhoneSync",
    "CardProblem",
    "Pod",
    "Printout",
    "PrizeAward",
    "PrizeCategory",
    "PrizeNomination",
    "RosterChange",
    "Round",
    "Seat",
    "SignInFailure",
    "Stage",
    "Role",
    "RulePreset",
    "Tournament",
    "TournamentRole",
    "TravelingPass",
    "UserProfile",
    "WriteReceipt",
]
