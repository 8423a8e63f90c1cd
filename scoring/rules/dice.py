"""Where dice come from: a seeded `random.Random` or a person typing in physical dice.

Every engine function that needs single dice takes `rng: random.Random | DieSource`. A
`DieSource` is any zero-argument callable returning the next die face (1..6), e.g.
`iter([4, 2, 6]).__next__`, so a staff screen can feed real dice through the same rules code
that the simulator feeds with a seeded generator. Faces are drawn one at a time, in the order
each function documents, and a three-dice throw takes three consecutive faces.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from .errors import RuleError
from .roll import check_die

DieSource = Callable[[], int]
FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


def die_source(rng: random.Random | DieSource) -> DieSource:
    """Give callers one interface whether the dice are simulated or entered by hand."""
    if isinstance(rng, random.Random):
        choice = rng.choice
        return lambda: choice(FACES)
    if not callable(rng):
        raise TypeError("Dice come from a random.Random or a callable returning 1..6.")

    def checked() -> int:
        try:
            face = rng()
        except StopIteration:
            raise RuleError(
                "Ran out of entered dice before the roll-off was decided. Players still tied "
                "throw again: type one re-throw die for each of them, in the order listed."
            ) from None
        return check_die(face)

    return checked


def three_dice(source: DieSource) -> tuple[int, int, int]:
    """One throw from single faces, so a scripted source lists dice in the order thrown."""
    return (source(), source(), source())


def random_rolls(rng: random.Random) -> Iterator[tuple[int, int, int]]:
    """Endless seeded throws for table play; `choices` draws all three faces in one call."""
    choices = rng.choices
    while True:
        a, b, c = choices(FACES, k=3)
        yield (a, b, c)
