"""How fast the pure engine is, so we know whether a live board can replay a stage on demand.

Run from the repository root: `python bench/engine.py`. Each figure is measured for about
two seconds; no Django is loaded.
"""

from __future__ import annotations

import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.rules import PRESETS, play_table_round, random_rolls, score_roll  # noqa: E402
from tournaments.rules.simulate import simulate_stage  # noqa: E402

SECONDS = 2.0


def rate(batch: Callable[[], int], seconds: float = SECONDS) -> float:
    """Operations per second: run batches until the time is up, count what they did."""
    done = 0
    start = time.perf_counter()
    while True:
        done += batch()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def main() -> None:
    rules = PRESETS["classic"]
    rng = random.Random(1)
    throws = [next(random_rolls(rng)) for _ in range(10_000)]

    def rolls() -> int:
        for dice in throws:
            score_roll(dice, 3, rules)
        return len(throws)

    table_rng = random.Random(2)

    def table_rounds() -> int:
        for _ in range(100):
            play_table_round(3, rules, random_rolls(table_rng))
        return 100

    seeds = iter(range(10**9))

    def stages() -> int:
        simulate_stage(120, rules, 3, next(seeds))
        return 1

    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs (one used)")
    print(f"python:  {platform.python_implementation()} {platform.python_version()}")
    print(f"{'score_roll':<38}{rate(rolls):>14,.0f} rolls/s")
    print(f"{'play_table_round (head table)':<38}{rate(table_rounds):>14,.0f} rounds/s")
    print(f"{'simulate_stage (120 players, 3 sets)':<38}{rate(stages):>14,.1f} stages/s")


if __name__ == "__main__":
    main()
