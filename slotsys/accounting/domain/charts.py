"""The figures behind the day report's charts (pure: the standard library only; rendering is
``slotsys.accounting.adapters.charts_svg``). Money is integer won, instants aware UTC.

* :func:`hold_band` — per machine of a closed gaming day: actual hold, theoretical hold and the band the flag
  rule allows, ``E[hold] ± k · SD[hold]`` (``day_close``: a machine is flagged when \\|z\\| > k, z = (hold −
  E[hold]) / SD[hold], with at least ``min_games`` games).
* :func:`hourly_coin_in` — coin-in and games per hour of the gaming day, from the game recall's rounds.
* :func:`value_history` — a jackpot level's visible value over the day as a staircase, from the movements of its
  ledger account ``jackpot:<L>:liability`` (each fold, reset, correction moves it); :class:`LevelHit` marks the
  day's hits at the meter's value when they were decided.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from slotsys.kernel.gaming_day import GamingDay

__all__ = ["HoldPoint", "hold_band", "HourBucket", "hourly_coin_in", "ValueStep", "LevelHit", "LevelHistory",
           "value_history"]

HOUR = timedelta(hours=1)


# ---------------------------------------------------------------------------------------------- hold against theo
@dataclass(frozen=True)
class HoldPoint:
    """One machine's day: ``hold`` (actual, won), ``theo`` (theoretical hold, won), ``expected`` (E[hold], won,
    exact as a float), ``low`` / ``high`` the band E[hold] ± k · SD[hold] (None when the machine has no z: no
    attributed play, or coin-in the recall did not attribute), ``flagged`` as the day close decided it."""

    asset: str
    hold: int
    theo: int
    expected: float
    low: float | None
    high: float | None
    games: int
    flagged: bool

    @property
    def outside(self) -> bool:
        """The actual hold lies outside the band (a flag needs ``min_games`` games too)."""
        return self.low is not None and self.high is not None and not self.low <= self.hold <= self.high


def hold_band(machines: Iterable[Mapping[str, Any]], k: float) -> list[HoldPoint]:
    """Machine rows of a closed day (``asset``, ``hold``, ``theo_won``, ``expected_hold``, ``sd_hold``, ``z``,
    ``games_played``, ``flagged``, as ``DayClose.to_dict`` writes them) → one :class:`HoldPoint` each, in the
    rows' order. The band is ``expected_hold ± k · sd_hold`` where the row has a z, else None. ``k`` > 0."""
    if not k > 0:
        raise ValueError("k must be positive")
    out = []
    for m in machines:
        expected = float(m.get("expected_hold") or 0.0)
        sd = float(m["sd_hold"]) if m.get("sd_hold") is not None and m.get("z") is not None else None
        out.append(HoldPoint(str(m["asset"]), int(m["hold"]), int(m["theo_won"]), expected,
                             expected - k * sd if sd is not None else None, expected + k * sd if sd is not None else None,
                             int(m.get("games_played") or 0), bool(m.get("flagged"))))
    return out


# ---------------------------------------------------------------------------------------------- coin-in per hour
@dataclass(frozen=True)
class HourBucket:
    """Hour ``index`` (0 = the day's first) of a gaming day: ``[start, start + 1 h)`` UTC, ``label`` its local
    wall-clock start (``HH:MM``), ``coin_in`` won and ``games`` of the rounds played in it."""

    index: int
    start: datetime
    label: str
    coin_in: int
    games: int


def hourly_coin_in(gd: GamingDay, day: date, rounds: Iterable[tuple[datetime, int, int]]) -> list[HourBucket]:
    """Bucket the game recall's rounds ``(at, coin-in won, games)`` of gaming ``day`` by hour of the day.

    The day has as many hours as its bounds (23 or 25 on a DST transition, else 24); hour *i* is
    ``[start + i h, start + (i + 1) h)`` in UTC, labelled with its local start time (``06:00`` …; a repeated
    wall-clock hour shows twice). A round at or after the day's end — played before the day's meter read, which
    counts it in the day (``closing``) — is added to the last hour, so the buckets sum to the recall's coin-in
    of the close's window. A round before the day's start, or a naive time, raises ``ValueError``."""
    start, end = gd.bounds(day)
    n = max(1, math.ceil((end - start) / HOUR))
    coin, games = [0] * n, [0] * n
    for at, won, g in rounds:
        if at.tzinfo is None:
            raise ValueError("a round's time must be aware")
        if at < start:
            raise ValueError(f"a round at {at.isoformat()} is before gaming day {day.isoformat()}")
        i = min(n - 1, int((at - start) / HOUR))
        coin[i] += won
        games[i] += g
    return [HourBucket(i, start + i * HOUR, gd.local(start + i * HOUR).strftime("%H:%M"), coin[i], games[i])
            for i in range(n)]


# ---------------------------------------------------------------------------------------------- jackpot value
@dataclass(frozen=True)
class ValueStep:
    """The level's visible value (won, the ledger's ``jackpot:<L>:liability`` balance) from ``at`` on."""

    at: datetime
    value: int


@dataclass(frozen=True)
class LevelHit:
    """A hit decided during the day: ``amount`` won, ``value`` the meter's value when decided (won, rounded
    down from milli-won)."""

    at: datetime
    amount: int
    value: int


@dataclass(frozen=True)
class LevelHistory:
    level: str
    day: date
    start: datetime
    end: datetime
    steps: list[ValueStep]
    hits: list[LevelHit]


def value_history(level: str, gd: GamingDay, day: date, opening: int, movements: Iterable[tuple[datetime, int]],
                  hits: Iterable[LevelHit] = (), *, resolution_s: int = 60) -> LevelHistory:
    """The staircase of a level's value over gaming ``day``: ``opening`` (the liability account's balance at the
    day's start, won) then the balance after each ledger movement ``(at, amount)`` (credit-positive won, in time
    order, inside the day's bounds). A movement is one journal entry: a fold adds the batch's contributions and,
    with a hit, takes the award and adds the reset in the same entry, so the staircase shows the value after
    each fold (the value a hit was paid at is the hit's mark). To keep a day of folds drawable, the value is
    kept at the end of each ``resolution_s`` window (the last movement in it wins); the first step is the
    opening at the start, the last the closing value at the end. A movement out of order or outside the day
    raises ``ValueError``."""
    if resolution_s < 1:
        raise ValueError("resolution_s must be at least 1")
    start, end = gd.bounds(day)
    value, last_at = opening, start
    windows: dict[int, ValueStep] = {}
    for at, amount in movements:
        if not start <= at < end or at < last_at:
            raise ValueError(f"a movement at {at.isoformat()} is out of order or outside the day")
        value += amount
        last_at = at
        windows[int((at - start).total_seconds()) // resolution_s] = ValueStep(at, value)
    steps = [ValueStep(start, opening), *(windows[w] for w in sorted(windows)), ValueStep(end, value)]
    return LevelHistory(level, day, start, end, steps, sorted(hits, key=lambda h: h.at))
