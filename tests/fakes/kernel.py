"""In-memory fakes of the kernel's ports, for service unit tests that need no database.

:class:`FakeUnitOfWork` behaves like the SQL unit of work where a use case can tell: a transaction that is not
committed leaves nothing behind (every registered repository's state is restored), ``after_commit`` callbacks run
only after a commit, and the ledger refuses what the database would (an unbalanced entry, a non-negative account
going below zero, an unknown account). Features add their own in-memory repositories (a class taking no
arguments, with its state in plain attributes) by name: ``FakeUnitOfWork.factory(machines=FakeMachines(), …)``.

These are fakes, not mocks: they keep real state and apply the same rules, so a use case tested on them moves
the same money it moves on PostgreSQL.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from slotsys.kernel.context import ServiceContext
from slotsys.kernel.errors import InsufficientFunds, NotFound
from slotsys.kernel.ledger import AccountType, JournalEntry
from slotsys.kernel.ports import NullMetrics
from slotsys.kernel.settings import Settings


@dataclass
class _Account:
    code: str
    type: AccountType
    non_negative: bool
    balance: int = 0  # debit-positive, like the accounts table


class FakeLedger:
    """Accounts and the journal in memory, with the SQL ledger's rules (``post`` is atomic: a refused entry
    changes no balance)."""

    def __init__(self) -> None:
        self.accounts: dict[str, _Account] = {}
        self.entries: list[JournalEntry] = []

    def ensure_account(self, code: str, type_: AccountType, *, non_negative: bool = False) -> int:
        if code not in self.accounts:
            self.accounts[code] = _Account(code, type_, non_negative)
        return list(self.accounts).index(code) + 1

    def account_id(self, code: str) -> int:
        """The account's id; ``NotFound`` for an unknown account (as ``LedgerRepo.account_id``)."""
        if code not in self.accounts:
            raise NotFound(f"account {code!r} does not exist")
        return list(self.accounts).index(code) + 1

    def balance(self, code: str) -> int:
        acc = self.accounts.get(code)
        if acc is None:
            raise NotFound(f"account {code!r} does not exist")
        return acc.balance * acc.type.normal_sign

    def post(self, entry: JournalEntry, *, labels: dict[str, str] | None = None) -> int:
        net = entry.net_by_account()
        for code in net:
            if code not in self.accounts:
                raise NotFound(f"account {code!r} does not exist")
        for code, delta in net.items():
            acc = self.accounts[code]
            if acc.non_negative and (acc.balance + delta) * acc.type.normal_sign < 0:
                raise InsufficientFunds(f"{(labels or {}).get(code, code)} would go below zero", account=code)
        for code, delta in net.items():
            self.accounts[code].balance += delta
        self.entries.append(entry)
        return len(self.entries)

    def forget(self, *, committed: bool = False) -> None:
        pass

    # what the auditor checks (slotsys.kernel.adapters.ledger_repo.LedgerRepo.audit)
    def sum_of_balances(self) -> int:
        return sum(a.balance for a in self.accounts.values())


@dataclass
class _Record:
    principal: str
    key: str
    fingerprint: str
    status_code: int | None = None
    response: Any = None


class FakeIdempotency:
    def __init__(self) -> None:
        self.records: dict[tuple[str, str], _Record] = {}

    def claim(self, principal: str, key: str, fingerprint: str, *, lock_wait_ms: int | None = None) -> int | None:
        if (principal, key) in self.records:
            return None
        self.records[(principal, key)] = _Record(principal, key, fingerprint)
        return len(self.records)

    def get(self, principal: str, key: str) -> _Record | None:
        return self.records.get((principal, key))

    def complete(self, record_id: int, status_code: int | None, response: Any) -> None:
        rec = list(self.records.values())[record_id - 1]
        rec.status_code, rec.response = status_code, copy.deepcopy(response)


class FakeAuditLog:
    def __init__(self) -> None:
        self.rows: list[dict] = []

    def append(self, **row) -> dict:
        self.rows.append(row)
        return row


class FakeUnitOfWork:
    """One transaction over shared in-memory repositories (``uow.<name>``). Leaving the ``with`` block without
    ``commit`` restores every repository to its state at the start."""

    def __init__(self, repositories: dict[str, Any]) -> None:
        self._repositories = repositories
        self._snapshot: dict[str, dict] | None = None
        self._after: list[Callable[[], None]] = []
        self.commits = 0

    def __getattr__(self, name: str) -> Any:
        repos = self.__dict__.get("_repositories", {})
        if name in repos:
            return repos[name]
        raise AttributeError(name)

    def __enter__(self) -> "FakeUnitOfWork":
        # repositories may refer to each other (the machines read the ledger): they are kept, their state copied
        memo = {id(r): r for r in self._repositories.values()}
        self._snapshot = {n: copy.deepcopy(r.__dict__, memo) for n, r in self._repositories.items()}
        self._after = []
        return self

    def __exit__(self, *exc: object) -> None:
        if self._snapshot is not None:  # not committed: roll back
            self.rollback()

    def commit(self) -> None:
        self._snapshot = None
        self.commits += 1
        callbacks, self._after = self._after, []
        for cb in callbacks:
            cb()

    def rollback(self) -> None:
        if self._snapshot is not None:
            for n, state in self._snapshot.items():
                self._repositories[n].__dict__.clear()
                self._repositories[n].__dict__.update(state)
        self._snapshot = None
        self._after = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after.append(callback)

    def write_behind(self) -> bool:
        return False

    @classmethod
    def factory(cls, **repositories: Any) -> Callable[..., "FakeUnitOfWork"]:
        """A unit-of-work factory over one shared set of repositories: the kernel's fakes plus ``repositories``.
        The repositories are reachable as the factory's ``.repos`` (to arrange and to inspect a test)."""
        repos = {"ledger": FakeLedger(), "idempotency": FakeIdempotency(), "audit_log": FakeAuditLog(), **repositories}

        def make(readonly: bool = False) -> FakeUnitOfWork:
            return cls(repos)

        make.repos = repos  # type: ignore[attr-defined]
        return make


class FixedClock:
    def __init__(self, now: datetime | None = None) -> None:
        self.at = now or datetime(2026, 12, 3, 3, 0, tzinfo=timezone.utc)

    def now(self) -> datetime:
        return self.at


class SeqRng:
    """Deterministic randomness: ``randbelow(n)`` returns the next of ``values`` modulo ``n`` (then repeats)."""

    def __init__(self, *values: int) -> None:
        self.values = list(values) or [0]
        self.i = 0

    def randbelow(self, n: int) -> int:
        v = self.values[self.i % len(self.values)]
        self.i += 1
        return v % n


@dataclass
class RecordingMetrics(NullMetrics):
    games: list[tuple[int, int]] = field(default_factory=list)
    redemptions: list[tuple[str, int]] = field(default_factory=list)
    jackpots: list[tuple[str, int]] = field(default_factory=list)

    def game_played(self, bet_won: int, win_won: int) -> None:
        self.games.append((bet_won, win_won))

    def ticket_redeemed(self, channel: str, amount_won: int) -> None:
        self.redemptions.append((channel, amount_won))

    def jackpot_awarded(self, level: str, amount_won: int) -> None:
        self.jackpots.append((level, amount_won))


def fake_context(rng=None, clock=None, settings: Settings | None = None, **repositories: Any) -> ServiceContext:
    """A :class:`ServiceContext` over a :class:`FakeUnitOfWork` with ``repositories``; tasks enqueued and messages
    published are recorded on the context's ``enqueued`` / ``published`` lists."""
    enqueued: list[tuple] = []
    published: list[tuple[str, str]] = []
    ctx = ServiceContext(uow=FakeUnitOfWork.factory(**repositories), rng=rng or SeqRng(0), clock=clock or FixedClock(),
                         settings=settings or Settings(database_url="sqlite://", redis_url=None, celery_eager=True),
                         enqueue=lambda name, *args: enqueued.append((name, *args)),
                         publish=lambda channel, message: published.append((channel, message)),
                         metrics=RecordingMetrics())
    ctx.enqueued = enqueued  # type: ignore[attr-defined]
    ctx.published = published  # type: ignore[attr-defined]
    return ctx
