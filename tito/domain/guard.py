"""Brute-force guard for ticket presentations, pure.

Someone guessing validation numbers at one terminal (a kiosk, a machine's bill
validator, a cashier's keyboard) shows up as repeated presentations of numbers that
are not on file or fail their check digit. Rule followed (GLI-13 §2.6 "validation
system must protect against ... unauthorised redemption"; our figures): a terminal
that makes ``max_failures`` such presentations inside one fixed window of ``window``
is refused every presentation for ``lockout`` after the last one; each failure and
each lock-out is logged by the service. A success does not reset the count (a
guesser must not be able to launder failures with one real ticket).

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["GuardPolicy", "GuardState", "blocked_until", "record_failure"]


@dataclass(frozen=True)
class GuardPolicy:
    """``max_failures`` failures within ``window`` lock the terminal out for ``lockout``."""

    max_failures: int = 10
    window: timedelta = timedelta(minutes=5)
    lockout: timedelta = timedelta(minutes=5)

    def __post_init__(self) -> None:
        if self.max_failures < 1 or self.window <= timedelta(0) or self.lockout < timedelta(0):
            raise ValueError("max_failures >= 1, window > 0 and lockout >= 0 are required")


@dataclass(frozen=True)
class GuardState:
    """One terminal's counter: failures since ``window_start``; locked until ``blocked_until``."""

    window_start: datetime | None = None
    failures: int = 0
    blocked_until: datetime | None = None


def blocked_until(state: GuardState, now: datetime) -> datetime | None:
    """When the lock-out ends, if the terminal is locked out at ``now``; else ``None``."""
    if state.blocked_until is not None and state.blocked_until > now:
        return state.blocked_until
    return None


def record_failure(state: GuardState, now: datetime, policy: GuardPolicy) -> tuple[GuardState, bool]:
    """The state after one more failed presentation at ``now``, and whether it locks the terminal now.

    A failure outside the current window starts a new window with count 1. Reaching
    ``max_failures`` (or failing again while locked) sets ``blocked_until = now + lockout``.
    """
    if state.window_start is None or now - state.window_start >= policy.window:
        start, failures = now, 1
    else:
        start, failures = state.window_start, state.failures + 1
    locks = failures >= policy.max_failures
    until = now + policy.lockout if locks else state.blocked_until
    newly = locks and blocked_until(state, now) is None
    return GuardState(start, failures, until), newly
