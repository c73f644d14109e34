"""SQLAlchemy unit of work: one transaction per use case, repositories bound to it,
and callbacks run only after a successful commit (e.g. enqueueing Celery tasks)."""

from __future__ import annotations

from typing import Callable

from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from jackpot_controller.adapters.repo import LevelRepo
from slotsys.adapters.idempotency_repo import IdempotencyRepo
from slotsys.adapters.ledger_repo import LedgerRepo
from slotsys.adapters.players_repo import PlayerRepo
from slotsys.adapters.repositories import GameRoundRepo, MachineRepo, StaffRepo
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
        self._after_commit = []
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.session.rollback()
        finally:
            self.session.close()

    def commit(self) -> None:
        self.session.commit()
        callbacks, self._after_commit = self._after_commit, []
        for cb in callbacks:
            cb()

    def rollback(self) -> None:
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
