"""Staff sign-in rules, pure: the per-username lock-out and the password policy.

Rule followed (bank-style account lock-out, NIST SP 800-63B §5.2.2 "rate limiting", OWASP
Authentication Cheat Sheet "account lockout"; our figures in ``Settings``):

* **Lock-out** (:func:`record_failure`, :func:`locked_until`): ``max_failures`` failed sign-ins for
  one username inside one fixed window of ``window`` (from its first failure) lock that username out
  for ``lockout`` from the failure that reached the count. While locked every attempt is refused
  (429 + ``Retry-After``) *without* checking the password, so the right password does not help an
  attacker; the lock ends when ``lockout`` has passed or an admin lifts it. A success clears the
  count. Unknown usernames are counted and locked exactly like real ones (no user enumeration).
* **Password policy** (:func:`password_problem`): 12 to 128 characters, not the username, not the
  current password (NIST SP 800-63B §5.1.1.2: length over composition rules).

Times are timezone-aware ``datetime`` (UTC); durations ``timedelta``. Standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from slotsys.kernel.errors import DomainError

__all__ = ["LoginThrottled", "LoginBusy", "LockoutPolicy", "LockoutState", "locked_until", "record_failure", "retry_after_s",
           "password_problem", "MIN_PASSWORD_LEN", "MAX_PASSWORD_LEN"]

MIN_PASSWORD_LEN = 12
MAX_PASSWORD_LEN = 128


class LoginThrottled(DomainError):
    """429: the username is locked out, or the client address has used up its failed sign-ins.
    ``retry_after`` (int seconds) becomes the ``Retry-After`` header."""

    status = 429
    code = "login-throttled"
    title = "Too many failed sign-ins: wait before trying again"


class LoginBusy(DomainError):
    """503: every password-hashing slot of this process is busy; retry after ``retry_after`` seconds."""

    status = 503
    code = "login-busy"
    title = "Sign-in is busy: retry shortly"


@dataclass(frozen=True)
class LockoutPolicy:
    """``max_failures`` failures within ``window`` lock the username out for ``lockout``."""

    max_failures: int = 5
    window: timedelta = timedelta(minutes=15)
    lockout: timedelta = timedelta(minutes=15)

    def __post_init__(self) -> None:
        if self.max_failures < 1 or self.window <= timedelta(0) or self.lockout <= timedelta(0):
            raise ValueError("max_failures >= 1, window > 0 and lockout > 0 are required")


@dataclass(frozen=True)
class LockoutState:
    """One username's counter: ``failures`` since ``window_start``; locked until ``locked_until``."""

    failures: int = 0
    window_start: datetime | None = None
    locked_until: datetime | None = None


def locked_until(state: LockoutState, now: datetime) -> datetime | None:
    """When the lock-out ends if the username is locked out at ``now``, else ``None``."""
    if state.locked_until is not None and state.locked_until > now:
        return state.locked_until
    return None


def record_failure(state: LockoutState, now: datetime, policy: LockoutPolicy) -> tuple[LockoutState, bool]:
    """The state after one more failed sign-in at ``now``, and whether this failure locks the username.

    A failure after the window has passed starts a new window with count 1 (an expired lock-out is
    forgotten with it). Reaching ``max_failures`` sets ``locked_until = now + lockout``.
    """
    if state.window_start is None or now - state.window_start >= policy.window:
        start, failures, until = now, 1, None
    else:
        start, failures, until = state.window_start, state.failures + 1, state.locked_until
    locks = failures >= policy.max_failures and locked_until(state, now) is None
    if locks:
        until = now + policy.lockout
    return LockoutState(failures, start, until), locks


def retry_after_s(until: datetime, now: datetime) -> int:
    """Whole seconds to wait (HTTP ``Retry-After`` delay-seconds, RFC 9110 §10.2.3), at least 1."""
    return max(1, math.ceil((until - now).total_seconds()))


def password_problem(new: str, *, username: str, current: str | None = None) -> str | None:
    """Why ``new`` may not be a password (a sentence for the 422), or ``None`` if it may."""
    if len(new) < MIN_PASSWORD_LEN:
        return f"must be at least {MIN_PASSWORD_LEN} characters"
    if len(new) > MAX_PASSWORD_LEN:
        return f"must be at most {MAX_PASSWORD_LEN} characters"
    if new.strip().lower() == username.strip().lower():
        return "must not be the username"
    if current is not None and new == current:
        return "must differ from the current password"
    return None
