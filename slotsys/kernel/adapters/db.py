"""SQLAlchemy 2.x tables of the slot floor (system of record) and the engine factory.

Money columns are BIGINT won; jackpot meters BIGINT milli-won. Timestamps are UTC.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


from sqlalchemy.types import TypeDecorator  # noqa: E402


class TZDateTime(TypeDecorator):
    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime")
        return value

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


# ---------------------------------------------------------------- ledger
class Account(Base):
    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(120), unique=True)
    type: Mapped[str] = mapped_column(String(16))
    normal_sign: Mapped[int] = mapped_column(SmallInteger)
    non_negative: Mapped[bool] = mapped_column(Boolean, default=False)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)  # debit-positive won
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("NOT non_negative OR balance * normal_sign >= 0", name="non_negative"),
        CheckConstraint("normal_sign IN (-1, 1)", name="normal_sign"),
    )


class JournalEntryRow(Base):
    __tablename__ = "journal_entries"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    memo: Mapped[str] = mapped_column(String(200), default="")
    refs: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow, index=True)


class PostingRow(Base):
    __tablename__ = "postings"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)  # debit-positive won
    memo: Mapped[str] = mapped_column(String(80), default="")
    __table_args__ = (CheckConstraint("amount <> 0", name="nonzero"),)


class IdempotencyRecord(Base):
    __tablename__ = "idempotency_records"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    principal: Mapped[str] = mapped_column(String(80))
    key: Mapped[str] = mapped_column(String(200))
    fingerprint: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("principal", "key", name="principal_key"),)


# ---------------------------------------------------------------- the shared records
class AuditLogRow(Base):
    """The append-only audit log of privileged changes (migration 0017): who (``actor``, ``role``), when
    (``at``, UTC), what (``action`` such as ``machine.enrol``, ``game.approve``, ``staff.create``; ``subject``
    such as ``machine:M001``), ``before`` → ``after`` (JSON snapshots of the changed fields), ``reason``, and
    ``outcome``: ``done`` or ``refused`` (a refused privileged action is recorded with the problem's title in
    ``detail``). Rows are only ever inserted (the repository has no update or delete)."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(60))
    role: Mapped[str] = mapped_column(String(20), default="")
    action: Mapped[str] = mapped_column(String(40))
    subject: Mapped[str] = mapped_column(String(80))
    outcome: Mapped[str] = mapped_column(String(8), default="done")
    before: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    after: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    reason: Mapped[str] = mapped_column(String(400), default="")
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_audit_log_at", "at"), Index("ix_audit_log_subject_at", "subject", "at"),
                      Index("ix_audit_log_action_at", "action", "at"))


Index("ix_idempotency_records_created_at", IdempotencyRecord.created_at)  # the retention purge (migration 0016)


def make_engine(url: str, *, echo: bool = False, pool_size: int = 10, max_overflow: int = 20,
                pool_timeout: float = 30.0, pool_pre_ping: bool = False) -> Engine:
    """Engine for PostgreSQL (psycopg 3) or SQLite.

    On SQLite every transaction starts with ``BEGIN IMMEDIATE`` (writers serialise, so a
    read-then-write decision is never made on stale data) and waits up to 30 s on a lock.
    """
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    if url.startswith("sqlite"):
        engine = create_engine(url, echo=echo, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_conn, _record):  # pragma: no cover - driver hook
            dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn):  # pragma: no cover - driver hook
            readonly = conn.get_execution_options().get("slotsys_readonly")
            conn.exec_driver_sql("BEGIN" if readonly else "BEGIN IMMEDIATE")

        return engine
    return create_engine(url, echo=echo, pool_size=pool_size, max_overflow=max_overflow, pool_timeout=pool_timeout,
                         pool_pre_ping=pool_pre_ping)
