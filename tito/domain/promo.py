"""Printing promotional tickets, pure: the maximum and the cumulative dual control (docs/promotional-credits.md,
"Dual control"). The credit types themselves are the machine's (:mod:`slotsys.kernel.credits`).

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from slotsys.kernel.credits import CREDIT_TYPES, NONRESTRICTED, RESTRICTED  # noqa: F401 (RESTRICTED: doctest)

ISSUE, DUAL_CONTROL = "issue", "dual_control"


@dataclass(frozen=True)
class PromoPolicy:
    """The limits on printing promotional tickets (won; docs/promotional-credits.md, "Dual control").

    * ``maximum`` — the largest single ticket (0 = none): above it refused;
    * ``issuer_dual_control_above`` — one issuer's promotional tickets in the rolling window
      (printed or awaiting approval) plus the new one above it: a second supervisor approves
      (0 = never). Cumulative, as casinos control comps and free play per employee, so six
      tickets at the threshold are not six single-signature issues;
    * ``floor_cap`` — all promotional tickets on the floor in the window plus the new one above
      it: every issue needs approval (0 = no cap);
    * ``nonrestricted_dual_control_above`` — a non-restricted ticket (cashable once on a machine)
      above it needs approval; 0 = every non-restricted ticket does (the default); ``None`` = no
      separate rule.
    """

    maximum: int = 0
    issuer_dual_control_above: int = 0
    floor_cap: int = 0
    nonrestricted_dual_control_above: int | None = 0



@dataclass(frozen=True)
class PromoDecision:
    """``outcome`` ``"issue"`` or ``"dual_control"``; ``reasons`` every rule that asked for a
    second supervisor (``nonrestricted``, ``issuer_cumulative``, ``floor_cap``), empty on issue."""

    outcome: str
    reasons: tuple[str, ...] = ()



def promo_issue_decision(amount: int, credit_type: str, *, issuer_total: int, floor_total: int,
                         policy: PromoPolicy) -> PromoDecision:
    """How a promotional ticket of ``amount`` won of ``credit_type`` may be printed, given what the
    issuer (``issuer_total``) and the whole floor (``floor_total``) already printed or asked for
    in the window (won). Raises ``ValueError`` above ``policy.maximum`` (the caller answers 422
    naming ``amount``) or for a negative total.

    >>> promo_issue_decision(1_000_000, RESTRICTED, issuer_total=5_000_000, floor_total=5_000_000,
    ...                      policy=PromoPolicy(5_000_000, 1_000_000, 20_000_000, 0)).reasons
    ('issuer_cumulative',)
    """
    if issuer_total < 0 or floor_total < 0 or amount < 0:
        raise ValueError("amounts and totals are never negative")
    if credit_type not in CREDIT_TYPES:
        raise ValueError(f"unknown credit type {credit_type!r}")
    if policy.maximum and amount > policy.maximum:
        raise ValueError(f"₩{amount:,} is above the promotional ticket maximum ₩{policy.maximum:,}")
    reasons: list[str] = []
    if credit_type == NONRESTRICTED and policy.nonrestricted_dual_control_above is not None \
            and amount > policy.nonrestricted_dual_control_above:
        reasons.append("nonrestricted")
    if policy.issuer_dual_control_above and issuer_total + amount > policy.issuer_dual_control_above:
        reasons.append("issuer_cumulative")
    if policy.floor_cap and floor_total + amount > policy.floor_cap:
        reasons.append("floor_cap")
    return PromoDecision(DUAL_CONTROL if reasons else ISSUE, tuple(reasons))



def issue_totals(issues: list[tuple[str, int]], issuer: str) -> tuple[int, int]:
    """(``issuer``'s, the floor's) won over ``issues`` [(issuer, won)]: what was printed or asked for in
    the window, for :func:`promo_issue_decision`.

    >>> issue_totals([("staff:a", 100), ("staff:b", 50), ("staff:a", 25)], "staff:a")
    (125, 175)
    """
    mine = floor = 0
    for who, won in issues:
        floor += won
        if who == issuer:
            mine += won
    return mine, floor


@dataclass(frozen=True)
class PromoRequest:
    """A promotional ticket above the dual-control threshold, waiting for a second supervisor.

    ``amount`` won of ``credit_type`` (restricted | nonrestricted) to print at ``station``;
    ``status`` pending → approved (``ticket_id`` the printed ticket) | refused; ``requested_by`` /
    ``decided_by`` are principal ids (``staff:<user>``); times aware UTC."""

    id: int
    amount: int
    credit_type: str
    station: str
    reason: str
    status: str
    requested_by: str
    requested_at: datetime
    decided_by: str | None = None
    decided_at: datetime | None = None
    ticket_id: int | None = None
