"""Idempotency records: one row per (principal, Idempotency-Key), written in the same
transaction as the money movement it guards."""

from __future__ import annotations

from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from slotsys.adapters.db import IdempotencyRecord, execute_or_defer, utcnow


_T = IdempotencyRecord.__table__
# Built once per dialect (compiled forms are cached): the claim is an INSERT … ON CONFLICT DO NOTHING.
_CLAIM = {
    name: ins(_T).on_conflict_do_nothing(index_elements=["principal", "key"]).returning(_T.c.id)
    for name, ins in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
}
_COMPLETE = update(_T).where(_T.c.id == bindparam("rid"))


class IdempotencyRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def claim(self, principal: str, key: str, fingerprint: str) -> int | None:
        """Insert the placeholder row; ``None`` when the key is already taken.

        On PostgreSQL a concurrent uncommitted claim of the same key makes this wait
        until that transaction ends (unique index), so two requests never both proceed.
        """
        dialect = self.s.get_bind().dialect.name
        stmt = _CLAIM[dialect] if dialect in _CLAIM else _CLAIM["sqlite"]
        params = {"principal": principal, "key": key, "fingerprint": fingerprint, "created_at": utcnow()}
        return self.s.connection().execute(stmt, params).scalar_one_or_none()

    def get(self, principal: str, key: str) -> IdempotencyRecord | None:
        return self.s.scalar(
            select(IdempotencyRecord).where(IdempotencyRecord.principal == principal, IdempotencyRecord.key == key)
        )

    def complete(self, record_id: int, status_code: int, response: dict) -> None:
        execute_or_defer(self.s, _COMPLETE, {"rid": record_id, "status_code": status_code, "response": response})
