"""The mystery (must-hit-by) trigger, pure.

Rule (reference/slot_floor.md "Mystery (must-hit-by) jackpots"): at each reset a secret
trigger is drawn **uniformly** between the reset value and the must-hit-by ceiling (whole won,
both ends included) with the CSPRNG passed in, persisted with the level, and never re-drawn
mid-cycle. The wager whose contribution makes the meter reach it wins the trigger value, so
hit values are uniform on [reset, ceiling] whatever the bet sizes (tested with a
Kolmogorov–Smirnov test over 10,000 cycles). The first cycle draws in [start, ceiling].
"""

from __future__ import annotations

from typing import Protocol

from slotsys.kernel.money import MILLI_PER_WON


class RandomSource(Protocol):
    def randbelow(self, n: int) -> int: ...


def draw_trigger(low_won: int, ceiling_won: int, rng: RandomSource) -> int:
    """A trigger drawn uniformly in [low, ceiling] whole won, returned in milli-won."""
    if not 0 < low_won <= ceiling_won:
        raise ValueError("a trigger needs 0 < low ≤ ceiling")
    return (low_won + rng.randbelow(ceiling_won - low_won + 1)) * MILLI_PER_WON
