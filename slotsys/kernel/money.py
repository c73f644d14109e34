"""Money and rounding: the ONE module that rounds money (DESIGN.md §3).

Units:
    * won        -- ``int``, the unit of every balance, bet, win, ticket and award.
    * milli-won  -- ``int``, 1 won = 1,000 milli-won; used by fractional accumulators
                    (jackpot meters, contribution rates).
    * credits    -- ``int``, won / denomination on a machine.
    * ppm        -- ``int`` parts per million, used for rates (1% = 10,000 ppm).

Rules (nobody else calls ``round()`` on money):
    * payout fractions round DOWN to the won;
    * commissions round UP to the table's commission unit;
    * jackpot contributions round DOWN to the milli-won (the sub-milli part of a
      single wager is not accrued);
    * an award pays whole won and the sub-won remainder of a meter carries over;
    * theoretical win (coin-in × house edge, loyalty) rounds DOWN to the milli-won
      (:func:`theoretical_milli`), so a player's theo is never overstated; a day's theoretical hold is
      the sum of those milli-won, rounded DOWN to the won (:func:`milli_to_won_floor_signed`).
"""

from __future__ import annotations

import math
from fractions import Fraction

MILLI_PER_WON = 1_000
PPM = 1_000_000


class MoneyError(ValueError):
    """An amount that is not an integer number of won (or is out of range)."""


def require_won(value: object, *, field: str = "amount", positive: bool = True) -> int:
    """Return ``value`` as an int number of won, or raise :class:`MoneyError`.

    ``bool`` and ``float`` are refused (money is never a float).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise MoneyError(f"{field} must be an integer number of won")
    if positive and value <= 0:
        raise MoneyError(f"{field} must be greater than zero")
    if not positive and value < 0:
        raise MoneyError(f"{field} must not be negative")
    return value


def won_to_milli(won: int) -> int:
    """Won → milli-won (exact)."""
    return won * MILLI_PER_WON


def milli_split(milli: int) -> tuple[int, int]:
    """Split milli-won into (whole won, remainder milli-won), rounding DOWN.

    >>> milli_split(30_123_456)
    (30123, 456)
    """
    if milli < 0:
        raise MoneyError("a meter in milli-won is never negative")
    return divmod(milli, MILLI_PER_WON)


def milli_to_won_floor(milli: int) -> int:
    """Whole won contained in a milli-won amount (rounded down)."""
    return milli_split(milli)[0]


def contribution_milli(bet_won: int, rate_ppm: int) -> int:
    """Contribution of a wager to a meter, in milli-won, rounded DOWN.

    ``bet_won`` × ``rate_ppm`` / 1,000,000 won = ``bet_won × rate_ppm / 1,000`` milli-won.
    Example: ₩6,000 at 1% (10,000 ppm) → 60,000 milli-won (₩60).
    """
    return (bet_won * rate_ppm) // (PPM // MILLI_PER_WON)


def payout_floor(stake_won: int, numerator: int, denominator: int = 1) -> int:
    """A payout of ``stake × numerator / denominator`` rounded DOWN to the won.

    Used for odds such as 3:2 (numerator 3, denominator 2) and the no-commission
    banker-six half pay (1, 2).
    """
    if denominator <= 0:
        raise MoneyError("denominator must be positive")
    return (stake_won * numerator) // denominator


def commission_ceil(win_won: int, rate_ppm: int, unit_won: int) -> int:
    """Commission on a win, rounded UP to the table's commission unit.

    Example (pai gow page): 5% of 157 with a unit of 0.25 → 8.00; in won with the
    default unit ₩100: 5% of ₩15,700 = ₩785 → ₩800.
    """
    if unit_won <= 0:
        raise MoneyError("commission unit must be positive")
    raw_num = win_won * rate_ppm  # commission × 1,000,000
    unit_num = unit_won * PPM
    return -(-raw_num // unit_num) * unit_won


def credits_to_won(credits: int, denomination_won: int) -> int:
    """Credits on a machine of the given denomination → won (exact)."""
    return credits * denomination_won


def won_to_credits(won: int, denomination_won: int) -> tuple[int, int]:
    """Won → (whole credits, residual won that does not make a whole credit)."""
    return divmod(won, denomination_won)


def theoretical_milli(amount_won: int | Fraction, edge: Fraction) -> int:
    """Theoretical win of ``amount_won`` wagered at house ``edge`` (= 1 − RTP), in milli-won,
    rounded DOWN. Example: ₩6,000 at an edge of 6.0045…% → 360,273 milli-won (₩360.273)."""
    return math.floor(Fraction(amount_won) * Fraction(edge) * MILLI_PER_WON)


def milli_to_won_floor_signed(milli: int) -> int:
    """Whole won of a signed milli-won amount, rounded DOWN (toward minus infinity). For figures that may be
    negative, such as the theoretical win of an option whose RTP is above 100% (a meter never is: use
    :func:`milli_to_won_floor`). Example: -1,500 milli-won → -2 won."""
    return milli // MILLI_PER_WON


def format_won(won: int) -> str:
    """``1234567`` → ``'₩1,234,567'`` (display only)."""
    sign = "-" if won < 0 else ""
    return f"{sign}₩{abs(won):,}"
