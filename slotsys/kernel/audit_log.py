"""The append-only audit log of privileged changes: every change made through floor administration, staff
administration, game approval and the other dual-control actions is recorded here, in the same transaction
as the change, as who (the staff principal and role), when, what (action, subject), before → after and why.

A privileged action that is refused (wrong role, self-approval, a rule of the floor) is recorded too, with
``outcome="refused"``, in a transaction of its own, so the refusal survives the rollback of the attempt.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from slotsys.kernel.context import Principal


def changed(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fields that differ between two snapshots, as (before, after) restricted to those keys."""
    keys = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
    return {k: before.get(k) for k in keys}, {k: after.get(k) for k in keys}


def record(uow, principal: Principal | None, action: str, subject: str, *, before: dict | None = None,
           after: dict | None = None, reason: str = "", outcome: str = "done", detail: dict | None = None,
           at: datetime | None = None):
    """Append one audit-log entry in ``uow``'s transaction (it commits or rolls back with the change).

    ``action``: dotted name (``machine.enrol``, ``game.approve``, ``staff.create``); ``subject``: ``kind:id``
    (``machine:M001``, ``game:dragon_pearl_50@92``, ``user:cashier1``); ``outcome``: ``done`` | ``refused``.
    ``principal`` None means the system itself (the seed, a scheduled task): recorded as actor ``system``."""
    actor = principal.name if principal else "system"
    role = (principal.role or principal.kind) if principal else "system"
    return uow.audit_log.append(actor=actor, role=role or "", action=action, subject=subject, outcome=outcome,
                                before=before, after=after, reason=reason, detail=detail, at=at)


def record_refusal(uow_factory, principal: Principal | None, action: str, subject: str, problem: str, *,
                   reason: str = "", detail: dict | None = None) -> None:
    """Record a refused privileged action in a transaction of its own (the attempt's was rolled back)."""
    with uow_factory() as uow:
        record(uow, principal, action, subject, outcome="refused", reason=reason,
               detail={"problem": problem, **(detail or {})})
        uow.commit()
