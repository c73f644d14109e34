"""Ledger accounts of a jackpot level (one function each, so nobody spells them twice).

Invariants (checked by ``GET /api/v1/audit/ledger``):

* ``jackpot:<L>:liability`` = floor(value_milli / 1000)   the visible value
* ``jackpot:<L>:reserve``   = floor(reserve_milli / 1000) the hidden pool funding resets
* ``jackpot:<L>:overflow``  = floor(overflow_milli / 1000) contributions past the ceiling
* ``jackpot:<L>:payable``   = Σ amounts of the level's hits not yet paid (decided, owed)

Expenses: ``:contributions`` (wagers' contributions), ``:seed`` (house funding of starts, resets
and second-hit top-ups), ``:adjustments`` (authorised corrections).
"""

from __future__ import annotations

from slotsys.domain import ledger as L

liability = L.jackpot_liability
contributions = L.jackpot_contributions
seed = L.jackpot_seed


def reserve(level: str) -> str:
    """Liability: the level's hidden (reserve) pool, whole won."""
    return f"jackpot:{level}:reserve"


def overflow(level: str) -> str:
    """Liability: the level's overflow pool, whole won."""
    return f"jackpot:{level}:overflow"


def payable(level: str) -> str:
    """Liability (non-negative): awards decided and not yet paid (credit, handpay, verification)."""
    return f"jackpot:{level}:payable"


def adjustments(level: str) -> str:
    """Expense: authorised value corrections (debit raises the value, credit lowers it)."""
    return f"jackpot:{level}:adjustments"


def level_accounts(level: str) -> list[tuple[str, L.AccountType, bool]]:
    """(code, type, non_negative) of every account of a level."""
    return [
        (liability(level), L.AccountType.LIABILITY, False),
        (reserve(level), L.AccountType.LIABILITY, False),
        (overflow(level), L.AccountType.LIABILITY, False),
        (payable(level), L.AccountType.LIABILITY, True),
        (contributions(level), L.AccountType.EXPENSE, False),
        (seed(level), L.AccountType.EXPENSE, False),
        (adjustments(level), L.AccountType.EXPENSE, False),
    ]
