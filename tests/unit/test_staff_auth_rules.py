"""The staff sign-in lock-out rule and password policy (slotsys.staff.domain.auth), pure."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from slotsys.staff.domain.auth import (
    LockoutPolicy,
    LockoutState,
    locked_until,
    password_problem,
    record_failure,
    retry_after_s,
)

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
POLICY = LockoutPolicy(max_failures=5, window=timedelta(minutes=15), lockout=timedelta(minutes=15))


def fail(n: int, state: LockoutState = LockoutState(), start: datetime = T0, step=timedelta(seconds=10)):
    locks = []
    for i in range(n):
        state, locked = record_failure(state, start + i * step, POLICY)
        locks.append(locked)
    return state, locks


def test_the_fifth_failure_in_the_window_locks_for_the_lockout():
    state, locks = fail(5)
    assert locks == [False, False, False, False, True]
    assert state.failures == 5
    last = T0 + 4 * timedelta(seconds=10)
    assert state.locked_until == last + POLICY.lockout
    assert locked_until(state, last + timedelta(minutes=14)) == state.locked_until
    assert locked_until(state, last + POLICY.lockout) is None  # the lock-out passes by itself


def test_four_failures_do_not_lock():
    state, locks = fail(4)
    assert not any(locks) and locked_until(state, T0 + timedelta(minutes=1)) is None


def test_failures_outside_the_window_start_a_new_count():
    state, _ = fail(4)
    state, locked = record_failure(state, T0 + POLICY.window, POLICY)  # window from the first failure has passed
    assert not locked and state.failures == 1 and state.window_start == T0 + POLICY.window


def test_failing_while_locked_does_not_extend_or_relock():
    state, _ = fail(5)
    until = state.locked_until
    state, locked = record_failure(state, T0 + timedelta(minutes=2), POLICY)
    assert not locked and state.locked_until == until and state.failures == 6


def test_after_the_lockout_and_window_the_next_failures_count_afresh():
    state, _ = fail(5)
    later = T0 + timedelta(hours=1)
    state, locks = fail(5, state, start=later)
    assert locks == [False, False, False, False, True]


def test_retry_after_is_whole_seconds_at_least_one():
    assert retry_after_s(T0 + timedelta(seconds=90, milliseconds=1), T0) == 91
    assert retry_after_s(T0, T0) == 1


def test_policy_rejects_nonsense():
    with pytest.raises(ValueError):
        LockoutPolicy(max_failures=0)
    with pytest.raises(ValueError):
        LockoutPolicy(window=timedelta(0))


@pytest.mark.parametrize("new, current, ok", [
    ("short", None, False),
    ("x" * 129, None, False),
    ("Operator-On-Duty", None, False),  # the username, whatever the case
    ("same-old-password", "same-old-password", False),
    ("a-long-enough-pass", "something-else-1", True),
])
def test_password_policy(new, current, ok):
    assert (password_problem(new, username="operator-on-duty", current=current) is None) is ok
