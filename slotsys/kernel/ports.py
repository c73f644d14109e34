"""Ports: what the use cases need from the outside world, as Protocols the adapters implement.

* randomness (:class:`Rng`) and time (:class:`Clock`), so games, triggers and tests are reproducible;
* the unit of work (:class:`UnitOfWork`): one transaction per use case with the kernel's repositories — the
  ledger, the idempotency records and the audit log. Each feature declares the repositories it adds as a
  Protocol of its own (``slotsys.floor.services.ports.FloorUnitOfWork`` …) and registers their SQL
  implementations with the unit of work at the composition root (``slotsys.app.bootstrap``);
* the business metrics (:class:`Metrics`), counted after a commit, never for a replay.

Pure: standard library only.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Any, Callable, Protocol

from slotsys.kernel.ledger import AccountType, JournalEntry


class Rng(Protocol):
    """A source of uniform integers: ``randbelow(n)`` → an int in [0, n)."""

    def randbelow(self, n: int) -> int: ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class Csprng:
    """Live play and jackpot triggers: the operating system's CSPRNG (``secrets``)."""

    @staticmethod
    def randbelow(n: int) -> int:
        return secrets.randbelow(n)


class SystemClock:
    @staticmethod
    def now() -> datetime:
        return datetime.now(timezone.utc)


# ------------------------------------------------------------------ the unit of work and the kernel's repositories
class LedgerRepository(Protocol):
    """Accounts with cached balances and the append-only journal (double entry; integer won)."""

    def ensure_account(self, code: str, type_: AccountType, *, non_negative: bool = False) -> int: ...

    def balance(self, code: str) -> int:
        """The account's normal balance in won; ``NotFound`` for an unknown account."""
        ...

    def post(self, entry: JournalEntry, *, labels: dict[str, str] | None = None) -> int:
        """Apply a balanced entry, returning its id; ``InsufficientFunds`` when a non-negative account would go
        below zero (the caller's transaction must roll back)."""
        ...

    def statement_page(self, code: str, limit: int = 50,
                       after: tuple[int, int] | None = None) -> tuple[list[dict], tuple[int, int] | None]:
        """An account's postings newest first, ``limit`` from just past the (entry, posting) key ``after``, and the
        key of the page's last row when more follow; ``NotFound`` for an unknown account."""
        ...


class IdempotencyRecordView(Protocol):
    fingerprint: str
    status_code: int | None
    response: Any


class IdempotencyRepository(Protocol):
    """One record per (principal, Idempotency-Key), written in the transaction of the movement it guards."""

    def claim(self, principal: str, key: str, fingerprint: str, *, lock_wait_ms: int | None = None) -> int | None:
        """The new record's id, or ``None`` when the key is taken (a concurrent claim waits for its commit).
        ``lock_wait_ms``: the rest of the transaction's lock waits, the claim's own included, are bounded by it
        (one not granted in time: the unit of work raises :class:`~slotsys.kernel.errors.LockWaitExceeded`)."""
        ...

    def get(self, principal: str, key: str) -> IdempotencyRecordView | None: ...

    def complete(self, record_id: int, status_code: int | None, response: Any) -> None: ...


class AuditLogRepository(Protocol):
    """The append-only log of privileged changes (insert and read only)."""

    def append(self, *, actor: str, role: str, action: str, subject: str, outcome: str = "done",
               before: dict | None = None, after: dict | None = None, reason: str = "", detail: dict | None = None,
               at: datetime | None = None) -> Any: ...


class UnitOfWork(Protocol):
    """One transaction. ``commit`` runs the callbacks registered with ``after_commit`` once it succeeded;
    leaving the ``with`` block without a commit rolls everything back. ``write_behind`` lets the transaction
    send its result-less writes with the COMMIT (only for use cases that never read them back)."""

    ledger: LedgerRepository
    idempotency: IdempotencyRepository
    audit_log: AuditLogRepository

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: object) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def after_commit(self, callback: Callable[[], None]) -> None: ...

    def write_behind(self) -> bool: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self, readonly: bool = False) -> Any: ...


# ------------------------------------------------------------------ business metrics
class Metrics(Protocol):
    """Business counters, called after a use case committed (never for an idempotent replay). Amounts in won."""

    def game_played(self, bet_won: int, win_won: int) -> None: ...

    def spin_batch(self, size: int) -> None:
        """A group commit of ``size`` spins (1: a spin alone) ran (``FloorService._spin_batch``)."""
        ...

    def ticket_redeemed(self, channel: str, amount_won: int) -> None:
        """``channel``: cage | kiosk | machine."""
        ...

    def jackpot_awarded(self, level: str, amount_won: int) -> None: ...

    def event_refused(self, field: str) -> None:
        """A machine event report refused; ``field``: ``kind`` or ``sas_code``."""
        ...


class NullMetrics:
    """Counts nothing (tests, tools): the default of a :class:`~slotsys.kernel.context.ServiceContext`."""

    def game_played(self, bet_won: int, win_won: int) -> None:
        pass

    def spin_batch(self, size: int) -> None:
        pass

    def ticket_redeemed(self, channel: str, amount_won: int) -> None:
        pass

    def jackpot_awarded(self, level: str, amount_won: int) -> None:
        pass

    def event_refused(self, field: str) -> None:
        pass
