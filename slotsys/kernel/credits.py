"""Promotional credits on a machine, pure: which credits a bet stakes, the machine's credit limit,
and the limits on printing promotional tickets — the maximum and cumulative dual control
(:func:`tito.domain.promo.promo_issue_decision`; docs/promotional-credits.md).

Credit types (SAS 6.03 §8 / §15, G2S ``creditType``), all in integer won:

* **cashable** — the player's money: bills, cashable tickets, wins;
* **restricted promotional** — non-cashable free play: it must be played; cashed out it prints a
  restricted promotional ticket again (never cash);
* **non-restricted promotional** — promotional credits the player may cash: played or cashed out,
  they leave the machine on the cashable ticket.

**Stake order (the field's common rule, which we follow):** a bet is taken from the restricted
meter first, then the non-restricted one, then the cashable one; every win is paid to the
cashable meter. So free play is used up before the player's own money, and a win on promotional
credits is the player's to keep.

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

RESTRICTED = "restricted"
NONRESTRICTED = "nonrestricted"
CREDIT_TYPES = (RESTRICTED, NONRESTRICTED)

SAS_CREDIT_LIMIT_EXCEEDED = "0x84"
"""SAS redemption status "transfer amount exceeded the gaming machine credit limit"."""


@dataclass(frozen=True)
class Credits:
    """A machine's three credit meters in won (each ≥ 0)."""

    cashable: int = 0
    restricted: int = 0
    nonrestricted: int = 0

    @property
    def promotional(self) -> int:
        return self.restricted + self.nonrestricted

    @property
    def total(self) -> int:
        return self.cashable + self.restricted + self.nonrestricted

    def to_dict(self) -> dict:
        return {"cashable": self.cashable, "restricted": self.restricted, "nonrestricted": self.nonrestricted}


@dataclass(frozen=True)
class Stake:
    """How a bet of ``total`` won is taken from the meters (won)."""

    restricted: int
    nonrestricted: int
    cashable: int

    @property
    def total(self) -> int:
        return self.restricted + self.nonrestricted + self.cashable

    @property
    def promotional(self) -> int:
        return self.restricted + self.nonrestricted

    def to_dict(self) -> dict:
        return {"restricted": self.restricted, "nonrestricted": self.nonrestricted, "cashable": self.cashable}


def stake(bet: int, credits: Credits) -> Stake | None:
    """Split a bet of ``bet`` won over ``credits``: restricted first, then non-restricted, then
    cashable. ``None`` when all the credits together are less than the bet (the caller refuses it).

    >>> stake(3_000, Credits(cashable=10_000, restricted=1_000, nonrestricted=1_500))
    Stake(restricted=1000, nonrestricted=1500, cashable=500)
    """
    if bet < 0:
        raise ValueError("a bet is never negative")
    if credits.total < bet:
        return None
    r = min(bet, credits.restricted)
    n = min(bet - r, credits.nonrestricted)
    return Stake(r, n, bet - r - n)


def exceeds_credit_limit(credits: Credits, amount: int, limit: int) -> bool:
    """True when accepting ``amount`` won would take the machine's credits above its credit
    ``limit`` (won; 0 = no limit): the machine then returns the ticket (SAS status 0x84)."""
    return bool(limit) and credits.total + amount > limit
