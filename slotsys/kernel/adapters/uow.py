"""SQLAlchemy unit of work: one transaction per use case, repositories bound to it,
and callbacks run only after a successful commit (e.g. enqueueing Celery tasks)."""

from __future__ import annotations

from typing import Callable

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from jackpot_controller.adapters.repo import LevelRepo
from slotsys.kernel.adapters.db import WRITE_BEHIND
from slotsys.floor.adapters.events import FloorEventsRepo
from slotsys.floor.adapters.admin import FloorAdminRepo
from slotsys.kernel.adapters.records import AuditLogRepo
from slotsys.floor.adapters.event_log import MachineEventRepo
from slotsys.floor.adapters.game_definitions import GameDefinitionRepo
from slotsys.staff.adapters.sessions import StaffSessionRepo
from slotsys.kernel.adapters.idempotency_repo import IdempotencyRepo
from slotsys.kernel.adapters.ledger_repo import LedgerRepo
from slotsys.floor.adapters.meter_reports import MachineMeterReportRepo
from slotsys.players.adapters.repo import PlayerRepo
from slotsys.floor.adapters.repositories import GameRoundRepo, MachineRepo
from slotsys.staff.adapters.repo import StaffRepo
from table_games.adapters.repo import TableRepo
from tito.adapters.repo import TicketRepo


class SqlUnitOfWork:
    def __init__(self, session_factory: sessionmaker[Session], readonly: bool = False) -> None:
        self._factory = session_factory
        self.readonly = readonly
        self._after_commit: list[Callable[[], None]] = []

    def __enter__(self) -> "SqlUnitOfWork":
        self.session = self._factory()
        if self.readonly:  # SQLite: a plain (deferred) BEGIN, so readers do not queue behind writers
            self.session.connection(execution_options={"slotsys_readonly": True})
        s = self.session
        self.ledger = LedgerRepo(s)
        self.idempotency = IdempotencyRepo(s)
        self.machines = MachineRepo(s)
        self.rounds = GameRoundRepo(s)
        self.staff = StaffRepo(s)
        self.tickets = TicketRepo(s)
        self.tables = TableRepo(s)
        self.levels = LevelRepo(s)
        self.players = PlayerRepo(s)
        self.audit_log = AuditLogRepo(s)
        self.machine_events = MachineEventRepo(s)
        self.game_definitions = GameDefinitionRepo(s)
        self.staff_sessions = StaffSessionRepo(s)
        self.floor_events = FloorEventsRepo(s)
        self.meter_reports = MachineMeterReportRepo(s)
        self.floor_admin = FloorAdminRepo(s)
        self._after_commit = []
        return self

    def __exit__(self, *exc) -> None:
        self.session.info.pop(WRITE_BEHIND, None)
        try:
            self.session.rollback()
        finally:
            self.session.close()

    def write_behind(self) -> bool:
        """Batch this transaction's result-less writes until the commit (PostgreSQL only; a no-op
        returning False elsewhere). Repositories queue them through ``db.execute_or_defer``;
        ``commit`` sends them and COMMIT in one psycopg pipeline: one round trip instead of one per
        statement. Only for use cases that never read those rows back before committing (the spin)."""
        if self.session.get_bind().dialect.name != "postgresql":
            return False
        self.session.info[WRITE_BEHIND] = []
        return True

    def commit(self) -> None:
        queue = self.session.info.pop(WRITE_BEHIND, None)
        if queue:
            self.session.flush()  # ORM changes first, outside the pipeline (the ORM reads rowcounts)
            conn = self.session.connection()
            driver = conn.connection.driver_connection
            try:
                with driver.pipeline():
                    for stmt, params in queue:
                        conn.execute(stmt, params)
                    driver.commit()  # COMMIT rides in the same pipeline
            except BaseException as e:
                dbapi_error = conn.dialect.loaded_dbapi.Error
                if isinstance(e, dbapi_error) and conn.dialect.is_disconnect(e, driver, None):
                    # as SQLAlchemy does on a disconnect it sees itself: every connection pooled before
                    # now is stale (the server went away for all of them), then this one
                    conn.engine.pool._invalidate(conn.connection, e)
                    conn.invalidate(e)
                else:
                    try:  # the server-side transaction is aborted: end it before the pool reuses the connection
                        driver.rollback()
                    except Exception:
                        conn.invalidate(e)  # a connection that cannot even roll back is not pooled again
                if isinstance(e, dbapi_error):  # raised by psycopg itself: report it as SQLAlchemy would
                    raise DBAPIError.instance(None, None, e, dbapi_error, connection_invalidated=conn.invalidated) from e
                raise
        # Outside the pipeline (after a pipelined COMMIT the server is idle and this sends nothing):
        # the session ends its transaction and returns the connection to the pool, which must never
        # happen while a pipeline is still open on it.
        self.session.commit()
        self.ledger.forget(committed=True)  # the row locks are gone: balances must be read again
        callbacks, self._after_commit = self._after_commit, []
        for cb in callbacks:
            cb()

    def rollback(self) -> None:
        self.session.info.pop(WRITE_BEHIND, None)
        self.ledger.forget()
        self.session.rollback()
        self._after_commit = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)


class UowFactory:
    """Callable that returns a fresh :class:`SqlUnitOfWork` for the configured engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.session_factory = sessionmaker(bind=engine, expire_on_commit=False, autoflush=False)

    def __call__(self, readonly: bool = False) -> SqlUnitOfWork:
        return SqlUnitOfWork(self.session_factory, readonly)
