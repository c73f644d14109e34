"""Idempotency records: one row per (principal, Idempotency-Key), written in the same
transaction as the money movement it guards."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from slotsys.adapters.db import IdempotencyRecord


class IdempotencyRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def claim(self, principal: str, key: str, fingerprint: str) -> int | None:
        """Insert the placeholder row; ``None`` when the key is already taken.

        On PostgreSQL a concurrent uncommitted claim of the same key makes this wait
        until that transaction ends (unique index), so two requests never both proceed.
        """
        dialect = self.s.get_bind().dialect.name
        ins = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(IdempotencyRecord)
        stmt = (
            ins.values(principal=principal, key=key, fingerprint=fingerprint)
            .on_conflict_do_nothing(index_elements=["principal", "key"])
            .returning(IdempotencyRecord.id)
        )
        return self.s.execute(stmt).scalar_one_or_none()

    def get(self, principal: str, key: str) -> IdempotencyRecord | None:
        return self.s.scalar(
            select(IdempotencyRecord).where(IdempotencyRecord.principal == principal, IdempotencyRecord.key == key)
        )

    def complete(self, record_id: int, status_code: int, response: dict) -> None:
        self.s.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.id == record_id)
            .values(status_code=status_code, response=response)
        )
