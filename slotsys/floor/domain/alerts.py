"""Attendant alerts and handpay sign-off: the pure rules.

**Alert life cycle** (the floor's service-call order): ``open`` → ``acknowledged`` (an attendant has seen it)
→ ``dispatched`` (an attendant is sent to / arrives at the machine) → ``resolved``. Acknowledging is implied by
dispatching an open alert (the dispatcher saw it); any unresolved alert can be resolved (a door closed by
itself, communication restored). Anything else, e.g. acknowledging a resolved alert, is an
:class:`InvalidTransition` (409). Who may act: attendants and supervisors (admin holds every role).

Response times (seconds, from the alert's opening): ``ack_s``, ``dispatch_s``, ``resolve_s``.

**Handpay sign-off**: a handpay of at least the two-person threshold (``SLOTSYS_HANDPAY_TWO_PERSON_WON``,
₩10,000,000 by default) is paid only when a second person has signed: a different staff member holding the
supervisor (or admin) role. Below it the paying attendant's signature is enough.
"""

from __future__ import annotations

from datetime import datetime

OPEN, ACKNOWLEDGED, DISPATCHED, RESOLVED = "open", "acknowledged", "dispatched", "resolved"
STATES = (OPEN, ACKNOWLEDGED, DISPATCHED, RESOLVED)
ACTIONS = ("acknowledge", "dispatch", "resolve")
ALERT_ROLES = ("attendant", "supervisor")  # admin holds every role
SECOND_SIGNER_ROLES = ("supervisor", "admin")

_NEXT: dict[tuple[str, str], str] = {
    (OPEN, "acknowledge"): ACKNOWLEDGED,
    (OPEN, "dispatch"): DISPATCHED,
    (ACKNOWLEDGED, "dispatch"): DISPATCHED,
    (OPEN, "resolve"): RESOLVED,
    (ACKNOWLEDGED, "resolve"): RESOLVED,
    (DISPATCHED, "resolve"): RESOLVED,
}


class InvalidTransition(ValueError):
    """The action is not allowed from the alert's current state (``state``, ``action``)."""

    def __init__(self, state: str, action: str) -> None:
        allowed = [a for (s, a) in _NEXT if s == state]
        super().__init__(f"an alert that is {state} cannot be {_PAST.get(action, action)}"
                         + (f" (allowed: {', '.join(allowed)})" if allowed else " (it is closed)"))
        self.state, self.action = state, action


_PAST = {"acknowledge": "acknowledged", "dispatch": "dispatched", "resolve": "resolved"}


def next_state(state: str, action: str) -> str:
    """The state after ``action`` (acknowledge | dispatch | resolve); raises :class:`InvalidTransition`."""
    try:
        return _NEXT[(state, action)]
    except KeyError:
        raise InvalidTransition(state, action) from None


def seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    """Whole-millisecond seconds from ``start`` to ``end`` (None if either is missing)."""
    if start is None or end is None:
        return None
    return int((end - start).total_seconds() * 1000) / 1000


# ------------------------------------------------------------------ handpay sign-off
TWO_PERSON_DEFAULT_WON = 10_000_000  # SLOTSYS_HANDPAY_TWO_PERSON_WON's default


def signers_needed(amount_won: int, two_person_won: int) -> int:
    """1, or 2 when ``amount_won`` ≥ ``two_person_won`` (a threshold of 0 means every handpay needs two)."""
    return 2 if amount_won >= two_person_won else 1


def second_signer_problem(first: str, second: str, second_role: str | None) -> str | None:
    """Why ``second`` may not be the second signer of a handpay the attendant ``first`` signed, or None."""
    if second == first:
        return "the second signer must be a different person from the first"
    if second_role not in SECOND_SIGNER_ROLES:
        return f"the second signer must be a supervisor or admin (not {second_role or 'unknown'})"
    return None
