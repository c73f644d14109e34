"""Double-entry ledger rules (DESIGN.md §4), pure.

Sign convention: a posting ``amount`` is signed, **debit positive, credit negative**,
in integer won. Every journal entry's postings sum to zero, so the sum over all
accounts is always zero. An account's ``balance`` is the sum of its postings
(debit-positive); its *normal balance* is ``balance × normal_sign`` where assets
and expenses are debit-normal (+1) and liabilities, revenue and equity are
credit-normal (−1). Accounts flagged ``non_negative`` never have a negative normal
balance (a machine's credit meter, a cashier drawer, outstanding tickets).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class AccountType(str, Enum):
    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    REVENUE = "revenue"
    EXPENSE = "expense"

    @property
    def normal_sign(self) -> int:
        """+1 for debit-normal types (asset, expense), −1 for credit-normal ones."""
        return 1 if self in (AccountType.ASSET, AccountType.EXPENSE) else -1


class UnbalancedEntry(ValueError):
    """A journal entry whose postings do not sum to zero, or that is malformed."""


@dataclass(frozen=True)
class Posting:
    """One leg of a journal entry: ``amount`` won on ``account`` (debit > 0 > credit)."""

    account: str
    amount: int
    memo: str = ""


@dataclass(frozen=True)
class JournalEntry:
    """A balanced set of postings describing one movement of money.

    Raises :class:`UnbalancedEntry` on construction if the postings are empty,
    contain a zero or non-integer amount, or do not sum to zero.
    """

    kind: str
    postings: tuple[Posting, ...]
    memo: str = ""
    refs: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.postings:
            raise UnbalancedEntry("a journal entry needs postings")
        for p in self.postings:
            if isinstance(p.amount, bool) or not isinstance(p.amount, int):
                raise UnbalancedEntry(f"posting to {p.account}: amount must be integer won")
            if p.amount == 0:
                raise UnbalancedEntry(f"posting to {p.account}: amount must not be zero")
        total = sum(p.amount for p in self.postings)
        if total != 0:
            raise UnbalancedEntry(f"postings sum to {total}, not 0")

    def net_by_account(self) -> dict[str, int]:
        """Net debit-positive change per account (zero nets are dropped)."""
        net: dict[str, int] = {}
        for p in self.postings:
            net[p.account] = net.get(p.account, 0) + p.amount
        return {a: v for a, v in net.items() if v != 0}


class EntryBuilder:
    """Collects debit/credit pairs and produces a :class:`JournalEntry`.

    ``add(debit=A, credit=B, amount=N)`` debits ``A`` and credits ``B`` by ``N`` won, e.g.
    a bet is ``add(debit=machine_credits(m), credit=machine_hold(m), amount=bet)``.
    Zero amounts are skipped; negative or non-integer amounts raise :class:`UnbalancedEntry`.
    """

    def __init__(self, kind: str, memo: str = "") -> None:
        self.kind = kind
        self.memo = memo
        self._postings: list[Posting] = []

    def add(self, *, debit: str, credit: str, amount: int, memo: str = "") -> "EntryBuilder":
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise UnbalancedEntry("amount must be integer won")
        if amount < 0:
            raise UnbalancedEntry("amount must not be negative")
        if amount:
            self._postings.append(Posting(debit, amount, memo))
            self._postings.append(Posting(credit, -amount, memo))
        return self

    @property
    def empty(self) -> bool:
        return not self._postings

    def build(self, refs: dict | None = None) -> JournalEntry:
        return JournalEntry(self.kind, tuple(self._postings), self.memo, refs or {})


def normal_balance(balance: int, account_type: AccountType) -> int:
    """The balance as an operator reads it (credits on a credit meter are positive)."""
    return balance * account_type.normal_sign


def violates_non_negative(balance: int, account_type: AccountType) -> bool:
    return normal_balance(balance, account_type) < 0
