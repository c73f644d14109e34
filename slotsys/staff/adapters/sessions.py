"""Staff sessions (the ``staff_tokens`` rows) as the administration sees them: who, since, until, from where.

A session is named by its ``session_id`` (16 hex, random, migration 0022); the token and its digest never leave
this module except to announce a revocation.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from slotsys.staff.adapters.tables import StaffToken, StaffUser


class StaffSessionRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def active(self, now: datetime, *, username: str | None = None, limit: int = 500) -> list[dict]:
        """Unexpired sessions, newest first: ``{session_id, username, role, issued_at, expires_at, address}``."""
        q = (select(StaffToken.session_id, StaffUser.username, StaffUser.role, StaffToken.issued_at,
                    StaffToken.expires_at, StaffToken.address)
             .join(StaffUser, StaffUser.id == StaffToken.user_id)
             .where(StaffToken.expires_at > now))
        if username:
            q = q.where(StaffUser.username == username)
        q = q.order_by(StaffToken.issued_at.desc().nulls_last(), StaffToken.session_id).limit(limit)
        return [dict(r._mapping) for r in self.s.execute(q)]

    def counts(self, now: datetime) -> dict[int, int]:
        """Unexpired sessions per staff user id."""
        q = select(StaffToken.user_id, func.count()).where(StaffToken.expires_at > now).group_by(StaffToken.user_id)
        return {uid: n for uid, n in self.s.execute(q)}

    def find(self, session_id: str) -> tuple[str, str] | None:
        """``(token digest, username)`` of a session, or None."""
        row = self.s.execute(select(StaffToken.token_hash, StaffUser.username)
                             .join(StaffUser, StaffUser.id == StaffToken.user_id)
                             .where(StaffToken.session_id == session_id)).first()
        return (row[0], row[1]) if row else None

    def end(self, token_hash: str) -> bool:
        return bool(self.s.execute(delete(StaffToken).where(StaffToken.token_hash == token_hash)).rowcount)

    def users(self) -> list[StaffUser]:
        return list(self.s.scalars(select(StaffUser).order_by(StaffUser.username)))

    def add_user(self, username: str, password_hash: str, role: str) -> StaffUser:
        user = StaffUser(username=username, password_hash=password_hash, role=role, active=True)
        self.s.add(user)
        self.s.flush()
        return user
