"""Time for the SAS core: a monotonic clock for timeouts and the poll cycle, and the wall clock for the dates a
machine prints and reports. Injected everywhere, so the link state machine and the EGM model are tested with
:class:`FakeClock` and never sleep."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "SystemClock", "FakeClock"]


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds, only ever increasing."""

    def now(self) -> datetime:
        """Local wall time (naive), as SAS dates and times are."""


class SystemClock:
    @staticmethod
    def monotonic() -> float:
        return time.monotonic()

    @staticmethod
    def now() -> datetime:
        return datetime.now().replace(microsecond=0)


class FakeClock:
    """A clock that moves only when told: ``advance(seconds)``."""

    def __init__(self, start: float = 1000.0, wall: datetime = datetime(2025, 1, 2, 10, 0, 0)) -> None:
        self.t = start
        self._t0 = start
        self._wall = wall

    def monotonic(self) -> float:
        return self.t

    def now(self) -> datetime:
        return (self._wall + timedelta(seconds=self.t - self._t0)).replace(microsecond=0)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self.t += seconds
