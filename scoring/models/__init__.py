from .results import RollCredit, TableResult

__all__ = ["RollCredit", "TableResult"]
