"""The shape of a draw before anyone is drawn: how many pods, of how many tables, and where
the ghosts sit.

Pure functions on counts (no Django), shared by the draw itself (`seating.draw_pods`) and
by the page that shows the organiser the plan before the draw, so the two cannot disagree.

Two splits exist because a stored draw must replay exactly as it was made:
- "full" (the draw since "draw_pods/2"): the sheets ask for "pods of 12 people" and "four
  players at each table", so every table has four players except for the count's remainder:
  (4 - n mod 4) mod 4 ghosts, at most three in the whole event.
- "even" (the draw of "draw_pods/1", kept only to replay those draws): the fewest pods of
  up to twelve, split as evenly as the tables allow; 40 players became four pods of ten,
  so 12 tables and 8 ghosts where 10 full tables would do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SPLITS: tuple[str, ...] = ("full", "even")


class SeatingError(ValueError):
    """Seating input a person (or the form feeding it) got wrong; shown as a message."""


@dataclass(frozen=True)
class PodShape:
    """One pod of the plan: its tables and the ghosts at each of them, head table first."""

    ghosts: tuple[int, ...]

    @property
    def tables(self) -> int:
        return len(self.ghosts)

    @property
    def players(self) -> int:
        return 4 * self.tables - sum(self.ghosts)

    @property
    def ghost_seats(self) -> tuple[tuple[int, int], ...]:
        """(table number, ghosts there) for each table with a ghost."""
        return tuple((t, g) for t, g in enumerate(self.ghosts, start=1) if g)


@dataclass(frozen=True)
class PodRun:
    """Consecutive pods of the same shape, which a page can show as one line."""

    first: int
    last: int
    shape: PodShape


@dataclass(frozen=True)
class PodPlan:
    """A whole draw's plan: the pods in order, and the totals a page shows before drawing."""

    players: int
    shapes: tuple[PodShape, ...]

    @classmethod
    def of(cls, n: int, pod_size: int = 12, split: str = "full") -> PodPlan:
        return cls(n, tuple(plan_pods(n, pod_size, split)))

    @property
    def pods(self) -> int:
        return len(self.shapes)

    @property
    def tables(self) -> int:
        return sum(s.tables for s in self.shapes)

    @property
    def ghosts(self) -> int:
        return 4 * self.tables - self.players

    @property
    def runs(self) -> tuple[PodRun, ...]:
        runs: list[PodRun] = []
        for number, shape in enumerate(self.shapes, start=1):
            if runs and runs[-1].shape == shape:
                runs[-1] = PodRun(runs[-1].first, number, shape)
            else:
                runs.append(PodRun(number, number, shape))
        return tuple(runs)


def tables_for(players: int) -> int:
    return max(1, math.ceil(players / 4))


def ghosts_per_table(tables: int, ghosts: int) -> list[int]:
    """Ghosts at each table of a pod, head table first: on the lowest tables, spread out.

    The head table starts and ends every round with its bell, so it keeps its four people
    for as long as another table can take the ghost.
    """
    return [ghosts // tables + (1 if i >= tables - ghosts % tables else 0) for i in range(tables)]


# A ghost's partner takes its rolls, so every team at a table needs a player: one player
# alone would face a team of two ghosts that nobody can roll for.
FEWEST_TO_DRAW = 2


def draw_refusal(players: int) -> str:
    """Why a draw of this many players cannot be played, or "" when it can. The engine
    itself still seats any count, so that a draw stored before this rule replays as made."""
    if players <= 0:
        return "There are no players to draw."
    if players < FEWEST_TO_DRAW:
        return (
            f"Only {players} player to draw: a draw needs at least {FEWEST_TO_DRAW}, "
            "since each team at a table needs a player to roll for it."
        )
    return ""


def _check(n: int, pod_size: int) -> None:
    if isinstance(pod_size, bool) or not isinstance(pod_size, int) or pod_size < 4:
        raise SeatingError("A pod holds at least one table of four.")
    if pod_size % 4:
        raise SeatingError("A pod is made of whole tables, so its size is a multiple of 4.")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise SeatingError("The number of players is a whole number of 0 or more.")


def full_pod_tables(n_tables: int, per_pod: int = 3) -> list[int]:
    """Tables per pod, largest first: as many full pods as the tables allow, and the rest in
    as few pods as possible, none of a single table.

    A pod of one table cannot move (its players would only ever meet each other), so when
    full pods would leave one table over, the last full pod gives up a table and the two
    leftover pods share them (13 tables: three pods of three and two of two). Only pod sizes
    of one or two tables cannot avoid it (with pods of two, an odd table is left over), and
    an event of one table is one pod.
    """
    if n_tables <= per_pod:
        return [n_tables] if n_tables else []
    full, rest = divmod(n_tables, per_pod)
    if rest == 0:
        return [per_pod] * full
    if rest > 1 or per_pod < 3:
        return [per_pod] * full + [rest]
    pair = per_pod + 1
    return [per_pod] * (full - 1) + [pair - pair // 2, pair // 2]


def ghosts_per_pod(pod_tables: list[int], ghosts: int) -> list[int]:
    """Which pods take the ghosts: one at a time, to the pod with the fewest so far, ties
    to the last (smallest) pod, and never a second ghost at a table while a table is free.

    Why this order:
    - A ghost moves with its pair, so two ghosts in one pod can meet at a table, leaving two
      people to play for four; in different pods they never meet.
    - A ghost's partner takes credit for its buncos ("Having a ghost as a partner can be
      rewarding!"), so no pod should get a second ghost before every pod has one.
    - The full pods come first, so the pods that are already smaller take the ghosts and the
      pods of twelve keep their twelve people.
    """
    counts = [0] * len(pod_tables)
    for _ in range(ghosts):
        pod = min(
            range(len(pod_tables)),
            key=lambda i: (counts[i] >= pod_tables[i], counts[i], -i),
        )
        counts[pod] += 1
    return counts


def full_pod_sizes(n: int, pod_size: int = 12) -> list[int]:
    """Players per pod: full tables everywhere but for the count's remainder."""
    tables = full_pod_tables(tables_for(n), pod_size // 4) if n else []
    ghosts = ghosts_per_pod(tables, 4 * sum(tables) - n)
    return [4 * t - g for t, g in zip(tables, ghosts, strict=True)]


def even_pod_sizes(n: int, pod_size: int = 12) -> list[int]:
    """Players per pod of "draw_pods/1": the fewest pods, as even as the tables allow.

    An even split is used unless it would leave a pod with two ghosts at a table (1, 2 or 5
    players); then the most even split without that is used, or the even split when none
    avoids it.
    """
    if n == 0:
        return []
    pods = math.ceil(n / pod_size)
    base, extra = divmod(n, pods)
    even = [base + 1] * extra + [base] * (pods - extra)
    if all(_playable(s) for s in even):
        return even
    return _closest_playable_split(n, pods, pod_size) or even


def _playable(players: int) -> bool:
    """At most one ghost per table, i.e. at least three players at every table."""
    return players >= 3 * tables_for(players)


def _closest_playable_split(n: int, pods: int, pod_size: int) -> list[int] | None:
    """Smallest spread of pod sizes summing to n with every pod playable (small n only)."""
    allowed = [s for s in range(3, pod_size + 1) if _playable(s)]
    for spread in range(pod_size + 1):
        for low in range(n // pods, 0, -1):
            choices = [s for s in allowed if low <= s <= low + spread]
            found = _split_with(n, pods, choices)
            if found:
                return sorted(found, reverse=True)
    return None


def _split_with(n: int, pods: int, choices: list[int]) -> list[int] | None:
    if not choices:
        return None
    reach: list[dict[int, int]] = [{0: 0}]
    for _ in range(pods):
        step: dict[int, int] = {}
        for total in reach[-1]:
            for size in choices:
                if total + size <= n and total + size not in step:
                    step[total + size] = size
        reach.append(step)
    if n not in reach[-1]:
        return None
    sizes, total = [], n
    for level in range(pods, 0, -1):
        size = reach[level][total]
        sizes.append(size)
        total -= size
    return sizes


def pod_sizes(n: int, pod_size: int = 12, split: str = "full") -> list[int]:
    """Players per pod, in pod order, under the named split."""
    _check(n, pod_size)
    if split == "full":
        return full_pod_sizes(n, pod_size)
    if split == "even":
        return even_pod_sizes(n, pod_size)
    raise SeatingError(f"Unknown pod split {split!r}; choose one of {', '.join(SPLITS)}.")


def plan_pods(n: int, pod_size: int = 12, split: str = "full") -> list[PodShape]:
    """The pods a draw of n players will make, with the ghosts where the draw seats them."""
    return [
        PodShape(tuple(ghosts_per_table(tables_for(s), 4 * tables_for(s) - s)))
        for s in pod_sizes(n, pod_size, split)
    ]
