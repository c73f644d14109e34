"""Staff tables: users, sessions (tokens), the sign-in throttle and the sign-in audit."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow


class StaffUser(Base):
    __tablename__ = "staff_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(60), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(20))
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class StaffToken(Base):
    """A staff session: the token's SHA-256 (never the token), its user and expiry; ``session_id`` (16 hex, random)
    names the session in the sessions list and ``DELETE /api/v1/staff/sessions/<id>``; ``issued_at`` and the
    client ``address`` of the sign-in (migration 0022; NULL for tokens issued before it)."""

    __tablename__ = "staff_tokens"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("staff_users.id"))
    expires_at: Mapped[datetime] = mapped_column(TZDateTime)
    session_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    issued_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)
    __table_args__ = (Index("ix_staff_tokens_session_id", "session_id", unique=True),)


class StaffLoginThrottle(Base):
    """Failed sign-ins of one username as typed (known or not: migration 0012), and its lock-out
    (``slotsys.staff.domain.auth``). Kept in the database so a lock-out survives a restart."""

    __tablename__ = "staff_login_throttle"
    username: Mapped[str] = mapped_column(String(200), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    locked_until: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class StaffAuthEvent(Base):
    """Who signed in, failed, was locked out / unlocked, logged out, deactivated, changed a password
    (migration 0012). ``kind``: login, login_failed, login_throttled, locked_out, unlocked, logout,
    deactivated, reactivated, password_changed, password_reset. ``username`` as typed; ``actor`` the
    admin for admin actions; ``address`` the client address."""

    __tablename__ = "staff_auth_events"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    kind: Mapped[str] = mapped_column(String(24))
    username: Mapped[str] = mapped_column(String(200))
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)
    actor: Mapped[str | None] = mapped_column(String(60), nullable=True)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_staff_auth_events_username_at", "username", "at"),
                      Index("ix_staff_auth_events_kind_at", "kind", "at"))
