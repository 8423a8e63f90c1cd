"""The two ways the engine can fail, kept apart so callers know whom to tell.

A `RuleError` is shown to a person (an organiser editing a preset, staff typing in dice)
because they can fix it. An `EngineBug` means our own code broke an invariant; it must
reach the error log, never be shown as if the user had done something wrong.
"""


class RuleError(ValueError):
    """Bad input that a person can correct: an invalid preset value, an impossible die."""


class EngineBug(RuntimeError):
    """An invariant of the engine broke; this is a defect in the code, not bad input."""
