"""Reading the audit log of privileged changes (auditor, admin): filters, cursor pagination, the CSV export's rows.

Filters: ``actor`` (exact username or ``system``), ``action`` (``game.approve`` exactly; ``game`` or ``game.`` for
every action of that family), ``subject`` (``user:cashier1``, ``game:lucky_three``), ``outcome`` (``done`` |
``refused``), ``since`` ≤ at < ``until`` (aware datetimes, UTC in the answer). Newest first; ``cursor`` is the id
of the last entry of the previous page (``next_cursor`` of that answer; None when there is no further page).
The ledger audit (``GET /api/v1/audit/ledger``) is another thing: ``slotsys.app.ledger_audit``.
"""

from __future__ import annotations

from datetime import datetime

from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_role

EXPORT_MAX_ROWS = 50_000
"""The CSV export stops after this many entries (newest first) and says so (``truncated``)."""


def _entry(r) -> dict:
    return {"id": r.id, "at": r.at.isoformat(), "actor": r.actor, "role": r.role, "action": r.action,
            "subject": r.subject, "outcome": r.outcome, "before": r.before, "after": r.after, "reason": r.reason,
            "detail": r.detail}


class AuditLogReader:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    @staticmethod
    def _filters(actor, action, subject, outcome, since, until) -> dict:
        if action and "." not in action:
            action = action + "."
        return {"actor": actor, "action": action, "subject": subject, "outcome": outcome, "since": since,
                "until": until}

    def read(self, reader: Principal, *, actor: str | None = None, action: str | None = None,
             subject: str | None = None, outcome: str | None = None, since: datetime | None = None,
             until: datetime | None = None, cursor: int | None = None, limit: int = 100) -> dict:
        """One page: ``{"entries": [{id, at, actor, role, action, subject, outcome, before, after, reason,
        detail}], "next_cursor": int | None}``."""
        require_role(reader, "auditor")
        f = self._filters(actor, action, subject, outcome, since, until)
        with self.ctx.uow(readonly=True) as uow:
            rows = [_entry(r) for r in uow.audit_log.query(**f, before_id=cursor, limit=limit + 1)]
        more = len(rows) > limit
        rows = rows[:limit]
        return {"entries": rows, "next_cursor": rows[-1]["id"] if more and rows else None}

    def export(self, reader: Principal, **filters) -> dict:
        """Every matching entry (at most :data:`EXPORT_MAX_ROWS`), newest first, for the CSV export:
        ``{"entries": [...], "truncated": bool}``; ``before``/``after``/``detail`` as JSON text cells."""
        require_role(reader, "auditor")
        f = self._filters(**filters)
        out, cursor = [], None
        with self.ctx.uow(readonly=True) as uow:
            while len(out) < EXPORT_MAX_ROWS:
                rows = uow.audit_log.query(**f, before_id=cursor, limit=min(1000, EXPORT_MAX_ROWS - len(out)))
                out.extend(_entry(r) for r in rows)
                if len(rows) < 1000:
                    break
                cursor = rows[-1].id
            truncated = len(out) >= EXPORT_MAX_ROWS and bool(uow.audit_log.query(**f, before_id=out[-1]["id"], limit=1))
        return {"entries": out, "truncated": truncated}
