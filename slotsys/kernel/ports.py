"""Ports: what the pure core needs from the outside world (randomness, time)."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Protocol


class Rng(Protocol):
    """A source of uniform integers: ``randbelow(n)`` → an int in [0, n)."""

    def randbelow(self, n: int) -> int: ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class Csprng:
    """Live play and jackpot triggers: the operating system's CSPRNG (``secrets``)."""

    @staticmethod
    def randbelow(n: int) -> int:
        return secrets.randbelow(n)


class SystemClock:
    @staticmethod
    def now() -> datetime:
        return datetime.now(timezone.utc)
