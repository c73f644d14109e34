"""SQLAlchemy unit of work: one transaction per use case, the repositories bound to it, and callbacks run only
after a successful commit (e.g. enqueueing Celery tasks).

The kernel brings its own repositories (``ledger``, ``idempotency``, ``audit_log``); every feature registers the
ones it adds (``{"machines": MachineRepo, …}``: an attribute name and a class taking the session) with the
:class:`UowFactory` at the composition root, so the kernel imports no feature. Repositories are built lazily, on
first use in a transaction: a use case pays only for those it touches.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from sqlalchemy.exc import DBAPIError
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from slotsys.kernel.adapters import write_behind as wb
from slotsys.kernel.errors import LockWaitExceeded
from slotsys.kernel.adapters.idempotency_repo import IdempotencyRepo
from slotsys.kernel.adapters.ledger_repo import LedgerRepo
from slotsys.kernel.adapters.records import AuditLogRepo

KERNEL_REPOSITORIES: dict[str, Callable[[Session], Any]] = {
    "ledger": LedgerRepo,
    "idempotency": IdempotencyRepo,
    "audit_log": AuditLogRepo,
}


LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL lock_not_available: lock_timeout ran out


class SqlUnitOfWork:
    """One transaction (:class:`slotsys.kernel.ports.UnitOfWork`). ``uow.<name>`` is the registered repository
    ``name`` bound to this transaction's session, built on first use."""

    def __init__(self, session_factory: sessionmaker[Session], repositories: Mapping[str, Callable[[Session], Any]],
                 readonly: bool = False) -> None:
        self._factory = session_factory
        self._repositories = repositories
        self.readonly = readonly
        self._after_commit: list[Callable[[], None]] = []

    def __getattr__(self, name: str) -> Any:  # only for names not set yet: a repository's first use
        factory = self.__dict__.get("_repositories", {}).get(name)
        if factory is None or "session" not in self.__dict__:
            raise AttributeError(name)
        repo = factory(self.session)
        setattr(self, name, repo)
        return repo

    def __enter__(self) -> "SqlUnitOfWork":
        self.session = self._factory()
        if self.readonly:  # SQLite: a plain (deferred) BEGIN, so readers do not queue behind writers
            self.session.connection(execution_options={"slotsys_readonly": True})
        self.ledger = LedgerRepo(self.session)  # always: commit and rollback reset its per-transaction cache
        self._after_commit = []
        return self

    def __exit__(self, *exc) -> None:
        wb.discard(self.session)
        try:
            self.session.rollback()
        finally:
            self.session.close()
        if isinstance(exc[1], DBAPIError) and getattr(exc[1].orig, "sqlstate", None) == LOCK_NOT_AVAILABLE:
            raise LockWaitExceeded(str(exc[1].orig).strip()) from exc[1]  # the wait the claim set ran out

    def write_behind(self) -> bool:
        """Batch this transaction's result-less writes until the commit (PostgreSQL only; a no-op returning
        False elsewhere): :mod:`slotsys.kernel.adapters.write_behind`. Only for use cases that never read those
        rows back before committing (the spin)."""
        return wb.start(self.session)

    def pending_writes(self) -> tuple[int, int, int]:
        """What this transaction holds for its commit: (deferred statements, ledger entries kept by a group commit,
        ORM objects new or changed). Equal before and after a step: the step wrote nothing."""
        queue = self.session.info.get(wb.WRITE_BEHIND) or ()
        return len(queue), self.ledger.pending_entries(), len(self.session.new) + len(self.session.dirty)

    def commit(self) -> None:
        wb.send_with_commit(self.session)
        # Outside the pipeline (after a pipelined COMMIT the server is idle and this sends nothing):
        # the session ends its transaction and returns the connection to the pool, which must never
        # happen while a pipeline is still open on it.
        self.session.commit()
        self.ledger.forget(committed=True)  # the row locks are gone: balances must be read again
        callbacks, self._after_commit = self._after_commit, []
        for cb in callbacks:
            cb()

    def rollback(self) -> None:
        wb.discard(self.session)
        self.ledger.forget()
        self.session.rollback()
        self._after_commit = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)


class UowFactory:
    """Callable that returns a fresh :class:`SqlUnitOfWork` for the engine, with the kernel's repositories and
    those the features registered (``register``; a name may be registered once)."""

    def __init__(self, engine: Engine, repositories: Mapping[str, Callable[[Session], Any]] | None = None) -> None:
        self.engine = engine
        self.session_factory = sessionmaker(bind=engine, expire_on_commit=False, autoflush=False)
        self.repositories: dict[str, Callable[[Session], Any]] = dict(KERNEL_REPOSITORIES)
        self.register(repositories or {})

    def register(self, repositories: Mapping[str, Callable[[Session], Any]]) -> None:
        for name, factory in repositories.items():
            if name in self.repositories and self.repositories[name] is not factory:
                raise ValueError(f"unit-of-work repository {name!r} is registered twice")
            self.repositories[name] = factory

    def __call__(self, readonly: bool = False) -> SqlUnitOfWork:
        return SqlUnitOfWork(self.session_factory, self.repositories, readonly)
