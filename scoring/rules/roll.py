"""Scoring of a single throw of three dice, the one rule every preset shares."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import RuleError
from .ruleset import RuleSet

ROLL_KINDS: tuple[str, ...] = ("bunco", "mini", "snake_eyes", "points", "miss")


@dataclass(frozen=True, slots=True)
class RollScore:
    """What one throw is worth; `kind` is kept because score cards count buncos, not points."""

    points: int
    kind: str


_MISS = RollScore(0, "miss")
_SNAKE_EYES = RollScore(0, "snake_eyes")
_ONE = RollScore(1, "points")
_TWO = RollScore(2, "points")


def check_die(value: object) -> int:
    """Refuse impossible faces early: staff type dice in, and a 7 must not become a miss."""
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
        raise RuleError(f"A die shows 1 to 6, not {value!r}.")
    return value


def check_target(target: object, rules: RuleSet) -> int:
    """A target outside the preset's set (a 1 in mingle) would silently change the rules."""
    if not isinstance(target, int) or isinstance(target, bool) or target not in rules.targets:
        raise RuleError(
            f"Target {target!r} is not a round of {rules.label} "
            f"({', '.join(str(t) for t in rules.targets)})."
        )
    return target  # type: ignore[return-value]


def score_roll(dice: tuple[int, int, int], target: int, rules: RuleSet) -> RollScore:
    """Score one throw; snake eyes beat a mini because the sheet treats them as a penalty."""
    if not isinstance(dice, tuple | list) or len(dice) != 3:
        raise RuleError(f"A roll is three dice, not {dice!r}.")
    a, b, c = dice
    check_die(a)
    check_die(b)
    check_die(c)
    check_target(target, rules)
    if a == b == c:
        if a == target:
            return RollScore(rules.bunco_points, "bunco")
        if a == 1 and rules.snake_eyes:
            return _SNAKE_EYES
        return RollScore(rules.mini_bunco_points, "mini")
    hits = (a == target) + (b == target) + (c == target)
    if hits == 0:
        return _MISS
    return _ONE if hits == 1 else _TWO
