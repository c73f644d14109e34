"""Repositories of the floor's shared records: the append-only audit log and the machine event log.

Both only ever insert and read: there is no update or delete, so the records are append-only by construction.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotsys.kernel.adapters.db import AuditLogRow, utcnow


class AuditLogRepo:
    def __init__(self, session: Session) -> None:
        self.session = session

    def append(self, *, actor: str, role: str, action: str, subject: str, outcome: str = "done",
               before: dict | None = None, after: dict | None = None, reason: str = "",
               detail: dict | None = None, at: datetime | None = None) -> AuditLogRow:
        row = AuditLogRow(at=at or utcnow(), actor=actor, role=role, action=action, subject=subject,
                          outcome=outcome, before=before, after=after, reason=reason, detail=detail or {})
        self.session.add(row)
        self.session.flush()
        return row

    def query(self, *, actor: str | None = None, action: str | None = None, subject: str | None = None,
              outcome: str | None = None, since: datetime | None = None, until: datetime | None = None,
              before_id: int | None = None, limit: int = 100) -> list[AuditLogRow]:
        """Newest first; ``action`` matches a prefix ending in ``.`` (``machine.``) or the whole name;
        ``before_id`` is the cursor of the next page (the last id of the previous page)."""
        q = select(AuditLogRow)
        if actor:
            q = q.where(AuditLogRow.actor == actor)
        if action:
            q = q.where(AuditLogRow.action.startswith(action) if action.endswith(".") else AuditLogRow.action == action)
        if subject:
            q = q.where(AuditLogRow.subject == subject)
        if outcome:
            q = q.where(AuditLogRow.outcome == outcome)
        if since:
            q = q.where(AuditLogRow.at >= since)
        if until:
            q = q.where(AuditLogRow.at < until)
        if before_id:
            q = q.where(AuditLogRow.id < before_id)
        return list(self.session.scalars(q.order_by(AuditLogRow.id.desc()).limit(limit)))


