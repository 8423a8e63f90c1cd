from .cards import CardEntry
from .results import RollCredit, TableResult

__all__ = ["CardEntry", "RollCredit", "TableResult"]
