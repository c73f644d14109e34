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
from sqlalchemy.sql.dml import Insert
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


# ---------------------------------------------------------------- floor
class Zone(Base):
    """A floor zone (VIP, MASS …). ``code`` never changes (jackpot levels and banks reference it); ``name`` may be
    renamed; ``retired_at`` set when the zone is retired (migration 0018: only with no active machine or bank)."""

    __tablename__ = "zones"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    retired_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class Machine(Base):
    __tablename__ = "machines"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    asset_number: Mapped[str] = mapped_column(String(20), unique=True)
    zone: Mapped[str] = mapped_column(ForeignKey("zones.code"))
    bank: Mapped[str] = mapped_column(String(20), default="")
    denomination: Mapped[int] = mapped_column(Integer)  # won per credit
    game_id: Mapped[str] = mapped_column(String(60))
    variation: Mapped[str] = mapped_column(String(20), default="")
    status: Mapped[str] = mapped_column(String(16), default="active")  # active | locked
    lock_reason: Mapped[str] = mapped_column(String(200), default="")
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    game_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    ticket_seq: Mapped[int] = mapped_column(Integer, default=0)
    # TITO (migration 0003_tito): how this machine's validation numbers are made (SAS §15):
    # "system" (host CSPRNG + Damm) or "sas" (secure enhanced: validation ID + 3-byte sequence).
    validation_scheme: Mapped[str] = mapped_column(String(8), default="system", server_default="system")
    sas_validation_id: Mapped[int | None] = mapped_column(Integer, nullable=True, unique=True, index=True)
    sas_sequence: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # next, 0..0xFFFFFF
    # 0014_ticket_ids: how many times the host drew this machine's validation ID (rotation, re-enrolment)
    sas_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    handpay_out: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")  # handpay receipts, won
    handpay_out_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Meters (won unless stated); they change only with a game or money event and never go backwards.
    coin_in: Mapped[int] = mapped_column(BigInteger, default=0)
    coin_out: Mapped[int] = mapped_column(BigInteger, default=0)
    jackpot_out: Mapped[int] = mapped_column(BigInteger, default=0)  # progressive/mystery awards
    games_played: Mapped[int] = mapped_column(BigInteger, default=0)
    games_won: Mapped[int] = mapped_column(BigInteger, default=0)
    bills_in: Mapped[int] = mapped_column(BigInteger, default=0)
    tickets_in: Mapped[int] = mapped_column(BigInteger, default=0)
    tickets_out: Mapped[int] = mapped_column(BigInteger, default=0)
    tickets_in_count: Mapped[int] = mapped_column(Integer, default=0)
    tickets_out_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    # Promotional credits (migration 0013_promo_credits; docs/promotional-credits.md). SAS meters
    # "restricted / non-restricted promotional credits played" (won): the part of coin_in staked
    # from each promo meter, so cashable coin-in = coin_in - both. credit_limit: the machine's credit
    # limit in won (ticket-in above it is refused, SAS 0x84); NULL = SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON.
    restricted_played: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    nonrestricted_played: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credit_limit: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # Migration 0020_machine_games: who decides a game's outcome, "server" (the spin) or "machine" (the machine
    # decides and reports it: slotsys.services.machine_games); a machine refuses the other mode's requests.
    outcome_source: Mapped[str] = mapped_column(String(8), default="server", server_default="server")
    # Floor administration (migration 0018_floor_admin; docs/floor-administration.md): the cabinet's serial,
    # manufacturer and model; ``denominations`` offered (won per credit, JSON list; NULL = only the active
    # ``denomination``); ``max_bet`` in won (NULL = the game's own maximum); the floor-plan cell (``plan_x``,
    # ``plan_y``: grid units, NULL = not placed; a cell holds one machine); ``retired_at`` once retired
    # (status "retired": the asset number is never reused). A disabled machine has status "disabled" and its
    # reason in ``lock_reason``.
    serial: Mapped[str] = mapped_column(String(40), default="", server_default="")
    manufacturer: Mapped[str] = mapped_column(String(60), default="", server_default="")
    model: Mapped[str] = mapped_column(String(60), default="", server_default="")
    denominations: Mapped[list | None] = mapped_column(JSON, nullable=True)
    max_bet: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    plan_x: Mapped[int | None] = mapped_column(Integer, nullable=True)
    plan_y: Mapped[int | None] = mapped_column(Integer, nullable=True)
    retired_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class GameRound(Base):
    __tablename__ = "game_rounds"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    game_number: Mapped[int] = mapped_column(BigInteger)
    bet: Mapped[dict] = mapped_column(JSON)
    bet_won: Mapped[int] = mapped_column(BigInteger)
    win_won: Mapped[int] = mapped_column(BigInteger)
    outcome: Mapped[dict] = mapped_column(JSON)  # stops, window, wins
    jackpots: Mapped[list] = mapped_column(JSON, default=list)
    credits_before: Mapped[int] = mapped_column(BigInteger)
    credits_after: Mapped[int] = mapped_column(BigInteger)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("machine_id", "game_number", name="machine_game"),)


# ---------------------------------------------------------------- staff
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
    (``slotsys.domain.staff_auth``). Kept in the database so a lock-out survives a restart."""

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


# ---------------------------------------------------------------- the floor's shared records
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


class MachineEventRow(Base):
    """The machine event log (migration 0017): one row per event a machine reported (``source`` ``api`` or
    ``sas``) or the system noticed (``system``: offline, a refused game report). ``kind`` is the event's name
    in the vocabulary of ``slotsys.domain.machine_events`` (SAS general exception codes; ``sas_code`` the
    exception code where SAS has one), ``game_number`` the game in progress when known, ``at`` the time the
    service recorded it (UTC), ``reported_at`` the machine's own time stamp if it sent one."""

    __tablename__ = "machine_events"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    reported_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    kind: Mapped[str] = mapped_column(String(40))
    sas_code: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    source: Mapped[str] = mapped_column(String(8), default="api")
    game_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_machine_events_machine_at", "machine_id", "at"),
                      Index("ix_machine_events_kind_at", "kind", "at"))


Index("ix_machines_plan_cell", Machine.plan_x, Machine.plan_y, unique=True)  # one machine per floor-plan cell (0018)
Index("ix_game_rounds_machine_recent", GameRound.machine_id, GameRound.game_number.desc())
Index("ix_game_rounds_created_at", GameRound.created_at)  # the floor screens' "today" figures (migration 0011)
Index("ix_idempotency_records_created_at", IdempotencyRecord.created_at)  # the retention purge (migration 0016)


WRITE_BEHIND = "slotsys_write_behind"  # Session.info key: the unit of work's queue of deferred writes


def execute_or_defer(session, stmt, params, *, allowed: bool = True) -> None:
    """Execute a Core statement that returns no rows (INSERT/UPDATE without RETURNING) on the
    session's connection, or, when the unit of work batches its writes
    (``SqlUnitOfWork.write_behind``) and ``allowed``, queue it for the commit: the queued
    statements run in order right before COMMIT, on PostgreSQL in one round trip (psycopg
    pipeline mode). A deferred write must not be read back in the same transaction; a deferred
    INSERT is made ``inline`` (no implicit RETURNING of its key, which a pipeline cannot return)."""
    queue = session.info.get(WRITE_BEHIND)
    if queue is None or not allowed:
        session.connection().execute(stmt, params)
    else:
        if isinstance(stmt, Insert) and not stmt._inline:
            stmt = stmt.inline()
        queue.append((stmt, params))


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
