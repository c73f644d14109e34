"""Mystery (must-hit-by) progressive level, pure.

Rules (reference/slot_floor.md, "Mystery (must-hit-by) jackpots"; GLI-12 style):

* At each reset a secret **trigger** is drawn uniformly in ``[reset, ceiling]`` (whole won,
  inclusive) with the CSPRNG passed in, persisted, and never re-drawn mid-cycle.
* Every qualifying wager adds ``bet × rate`` (rounded down to the milli-won) to the meter.
* The wager whose contribution makes the meter reach the trigger wins. The award is the
  trigger value in whole won; the sub-won part of the trigger plus the part of the
  contribution beyond the trigger carry into the next cycle (meter = reset + carry).
* The meter never exceeds the ceiling: the trigger is ≤ ceiling, and the hit happens
  at or before the trigger.

All meter values are integer **milli-won**; awards are integer **won**.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from slotsys.domain.money import MILLI_PER_WON, contribution_milli, milli_split

MAX_RATE_PPM = 100_000  # 10 %


class RandomSource(Protocol):
    def randbelow(self, n: int) -> int: ...


class LevelConfigError(ValueError):
    """Refused level parameters; ``field`` names the parameter."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class MysteryParams:
    """Parameters of a mystery level. ``reset_won``/``ceiling_won`` in won, ``rate_ppm`` in ppm."""

    reset_won: int
    ceiling_won: int
    rate_ppm: int
    min_bet_won: int = 0

    def validate(self) -> "MysteryParams":
        for name in ("reset_won", "ceiling_won", "rate_ppm", "min_bet_won"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise LevelConfigError(name, "must be an integer")
            if v < 0:
                raise LevelConfigError(name, "must not be negative")
        if self.reset_won <= 0:
            raise LevelConfigError("reset_won", "must be greater than zero")
        if self.ceiling_won <= self.reset_won:
            raise LevelConfigError("ceiling_won", "must be above the reset value")
        if not 0 < self.rate_ppm <= MAX_RATE_PPM:
            raise LevelConfigError("rate_ppm", "must be in (0, 100000] ppm, i.e. (0, 10%]")
        return self


@dataclass(frozen=True)
class MysteryState:
    """A level's meter state: ``value_milli`` and the secret ``trigger_milli`` (milli-won)."""

    value_milli: int
    trigger_milli: int
    cycle: int = 1


@dataclass(frozen=True)
class ContributionResult:
    """Outcome of one wager's contribution.

    ``contribution_milli``: what the wager added; ``hit``: whether it won the level;
    ``award_won``: the whole-won award (0 without a hit); ``state``: the new state (a new
    cycle with a new trigger after a hit); ``value_at_hit_milli``: the meter at the trigger.
    """

    contribution_milli: int
    hit: bool
    award_won: int
    state: MysteryState
    value_at_hit_milli: int = 0


def draw_trigger(params: MysteryParams, rng: RandomSource) -> int:
    """A trigger drawn uniformly in [reset, ceiling] whole won, returned in milli-won."""
    span = params.ceiling_won - params.reset_won + 1
    return (params.reset_won + rng.randbelow(span)) * MILLI_PER_WON


def start(params: MysteryParams, rng: RandomSource, carry_milli: int = 0) -> MysteryState:
    """The state at the start of a cycle: meter at reset (+ carry), a fresh trigger."""
    params.validate()
    return MysteryState(params.reset_won * MILLI_PER_WON + carry_milli, draw_trigger(params, rng))


def contribute(
    params: MysteryParams, state: MysteryState, bet_won: int, rng: RandomSource
) -> ContributionResult:
    """Add one wager's contribution; decide whether it wins the level.

    ``params`` are the ones in force for the current cycle (changes apply after the next
    hit: the caller swaps them in when ``hit`` is true).
    """
    if bet_won < params.min_bet_won:
        return ContributionResult(0, False, 0, state)
    c = contribution_milli(bet_won, params.rate_ppm)
    total = state.value_milli + c
    if total < state.trigger_milli:
        return ContributionResult(c, False, 0, replace(state, value_milli=total))
    award_won, frac = milli_split(state.trigger_milli)
    carry = frac + (total - state.trigger_milli)
    nxt = MysteryState(
        params.reset_won * MILLI_PER_WON + carry, draw_trigger(params, rng), state.cycle + 1
    )
    return ContributionResult(c, True, award_won, nxt, value_at_hit_milli=state.trigger_milli)
