"""Repositories of staff users and their sessions (tokens)."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from slotsys.staff.adapters.tables import StaffAuthEvent, StaffLoginThrottle, StaffToken, StaffUser


class StaffRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def by_username(self, username: str) -> StaffUser | None:
        return self.s.scalar(select(StaffUser).where(StaffUser.username == username))

    def add_user(self, *, username: str, password_hash: str, role: str) -> StaffUser:
        user = StaffUser(username=username, password_hash=password_hash, role=role)
        self.s.add(user)
        self.s.flush()
        return user

    def add_token(self, token_hash: str, user_id: int, expires_at: datetime, *, issued_at: datetime | None = None,
                  address: str | None = None) -> None:
        """A new session: the token's digest, a random ``session_id`` (16 hex) naming it in the sessions list."""
        self.s.add(StaffToken(token_hash=token_hash, user_id=user_id, expires_at=expires_at,
                              session_id=secrets.token_hex(8), issued_at=issued_at, address=address))
        self.s.flush()

    def user_for_token(self, token_hash: str, now: datetime) -> StaffUser | None:
        return self.s.scalar(
            select(StaffUser)
            .join(StaffToken, StaffToken.user_id == StaffUser.id)
            .where(StaffToken.token_hash == token_hash, StaffToken.expires_at > now, StaffUser.active.is_(True))
        )

    def token_expiry(self, token_hash: str) -> datetime | None:
        """When the staff token expires (None if unknown)."""
        return self.s.scalar(select(StaffToken.expires_at).where(StaffToken.token_hash == token_hash))

    def purge_tokens(self, now: datetime) -> None:
        self.s.execute(delete(StaffToken).where(StaffToken.expires_at <= now))

    def revoke_token(self, token_hash: str) -> int | None:
        """Delete one token; the user id it belonged to, or None if there was none."""
        user_id = self.s.scalar(select(StaffToken.user_id).where(StaffToken.token_hash == token_hash))
        if user_id is not None:
            self.s.execute(delete(StaffToken).where(StaffToken.token_hash == token_hash))
        return user_id

    def revoke_user_tokens(self, user_id: int) -> int:
        """Delete every token of a user; how many there were."""
        return self.s.execute(delete(StaffToken).where(StaffToken.user_id == user_id)).rowcount or 0

    def throttle_for_update(self, username: str) -> StaffLoginThrottle:
        """The username's sign-in counter (created empty if absent, so two first failures cannot both
        count from zero), row-locked on PostgreSQL until the transaction ends."""
        self.s.execute(self._upsert().values(username=username[:200], failures=0, window_start=None, locked_until=None)
                       .on_conflict_do_nothing(index_elements=["username"]))
        return self.s.scalar(select(StaffLoginThrottle).where(StaffLoginThrottle.username == username[:200])
                             .with_for_update().execution_options(populate_existing=True))

    def _upsert(self):
        if self.s.get_bind().dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as upsert
        else:
            from sqlalchemy.dialects.sqlite import insert as upsert
        return upsert(StaffLoginThrottle)

    def throttle(self, username: str) -> StaffLoginThrottle | None:
        return self.s.get(StaffLoginThrottle, username)

    def save_throttle(self, username: str, failures: int, window_start, locked_until) -> None:
        """Upsert the counter (two racing first failures: one inserts, the other updates)."""
        values = {"username": username, "failures": failures, "window_start": window_start,
                  "locked_until": locked_until}
        stmt = self._upsert().values(**values)
        stmt = stmt.on_conflict_do_update(index_elements=["username"],
                                          set_={k: v for k, v in values.items() if k != "username"})
        self.s.execute(stmt)

    def clear_throttle(self, username: str) -> bool:
        """Forget the username's failures and lock-out; whether there was anything to forget."""
        return bool(self.s.execute(delete(StaffLoginThrottle).where(StaffLoginThrottle.username == username))
                    .rowcount)

    def auth_event(self, kind: str, username: str, at: datetime, *, address: str | None = None,
                   actor: str | None = None, **detail) -> None:
        self.s.add(StaffAuthEvent(kind=kind, username=username[:200], at=at, address=address, actor=actor,
                                  detail=detail))
        self.s.flush()

    def auth_events(self, *, username: str | None = None, kind: str | None = None, limit: int = 100,
                    before_id: int | None = None) -> list:
        """Newest first, at most ``limit``; ``before_id``: only older than that event (keyset paging)."""
        q = select(StaffAuthEvent).order_by(StaffAuthEvent.id.desc()).limit(limit)
        if before_id is not None:
            q = q.where(StaffAuthEvent.id < before_id)
        if username is not None:
            q = q.where(StaffAuthEvent.username == username)
        if kind is not None:
            q = q.where(StaffAuthEvent.kind == kind)
        return list(self.s.scalars(q))

    def all_users(self) -> list[StaffUser]:
        return list(self.s.scalars(select(StaffUser).order_by(StaffUser.username)))

