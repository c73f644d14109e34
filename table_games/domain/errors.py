"""Errors of the table-games rules engines.

Every refusal names the request ``field`` it is about and is a :class:`slotsys.kernel.errors.DomainError`,
so the framework's existing problem+json mapping (``slotsys.kernel.api.problems.from_domain``) renders it as-is:

* :class:`TableRuleError` (422) -- a bet or a decision the rules do not allow (unknown spot, chip unit,
  limits, split of unequal cards, double after three cards ...);
* :class:`BettingClosed` (409)  -- a bet after "no more bets" (the round is not taking bets);
* :class:`ShoeExhausted` (409)  -- the shoe (or the dealer's card input) ran out mid-coup: a misdeal.
"""

from __future__ import annotations

from typing import Any

from slotsys.kernel.errors import Conflict, ValidationFailed


class TableRuleError(ValidationFailed):
    """A bet or a decision refused by the table's rules: ``TableRuleError(field, message)``."""

    code = "table-rule"
    title = "Not allowed by the table's rules"

    def __init__(self, field: str, message: str, **extra: Any) -> None:
        super().__init__(message, field=field, **extra)


class BettingClosed(Conflict):
    code = "betting-closed"
    title = "No more bets"

    def __init__(self, message: str = "no more bets: the round is not taking bets", **extra: Any) -> None:
        super().__init__(message, field="round", **extra)


class ShoeExhausted(Conflict):
    code = "shoe-exhausted"
    title = "The shoe has no more cards"

    def __init__(self, message: str = "the shoe has no more cards (misdeal: void the coup)", **extra: Any) -> None:
        super().__init__(message, field="cards", **extra)
