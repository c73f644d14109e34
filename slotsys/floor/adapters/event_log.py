"""The machine event log repository: insert and read only (no update or delete)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotsys.floor.adapters.tables import MachineEventRow
from slotsys.kernel.adapters.db import utcnow


class MachineEventRepo:
    def __init__(self, session: Session) -> None:
        self.session = session

    def append(self, machine_id: int, kind: str, *, sas_code: int | None = None, source: str = "api",
               game_number: int | None = None, detail: dict | None = None, reported_at: datetime | None = None,
               at: datetime | None = None) -> MachineEventRow:
        row = MachineEventRow(machine_id=machine_id, at=at or utcnow(), reported_at=reported_at, kind=kind,
                              sas_code=sas_code, source=source, game_number=game_number, detail=detail or {})
        self.session.add(row)
        self.session.flush()
        return row

    def for_machine(self, machine_id: int, *, kind: str | None = None, since: datetime | None = None,
                    before_id: int | None = None, limit: int = 100) -> list[MachineEventRow]:
        """A machine's events, newest first (``before_id``: the cursor of the next page)."""
        q = select(MachineEventRow).where(MachineEventRow.machine_id == machine_id)
        if kind:
            q = q.where(MachineEventRow.kind == kind)
        if since:
            q = q.where(MachineEventRow.at >= since)
        if before_id:
            q = q.where(MachineEventRow.id < before_id)
        return list(self.session.scalars(q.order_by(MachineEventRow.id.desc()).limit(limit)))

