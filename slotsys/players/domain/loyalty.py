"""Loyalty rules, pure (reference/slot_floor.md "Loyalty"; docs/architecture.md "Players").

Units:
    * points       -- ``int``; a balance and every accrual are kept in **milli-points**
                      (1 point = 1,000), so the fractional progress of a player toward the
                      next whole point is carried between games and sessions;
    * won          -- ``int``, as everywhere (coin-in, redemption values, transfer limits);
    * milli-won    -- ``int``, theoretical win (coin-in × house edge) before it turns into points;
    * permille     -- ``int``, tier multipliers (1,000 = ×1.00, 1,250 = ×1.25);
    * ppm          -- ``int``, a table game's house edge (5,000 ppm = 0.5%).

Rules:
    * **Accrual** (:func:`accrue`): a rule per scope (machine or table > zone/pit area > the
      default) says what earns points: ``coin_in`` (one point per ``won_per_point`` won wagered)
      or ``theo`` (one point per ``won_per_point`` won of theoretical win, coin-in × (1 − RTP)).
      Base milli-points round DOWN per game (the sub-milli-point part of one game is not
      carried); the tier multiplier applies to the base, also rounding DOWN. Tier progress
      counts the base points (before the multiplier), so a multiplier never feeds itself.
    * **Tiers** (:func:`tier_for`): the highest tier whose threshold (whole points of tier
      progress) the player has reached; tiers only go up here (no demotion review).
    * **Expiry** (:func:`points_expired`): every point (and the fractional progress) expires
      when the player has had no points activity (play, rating, redemption) for the program's
      idle period.
    * **Redemption** (:func:`redemption_value`): whole points × the program's won-per-point
      rate for the chosen kind (promotional credits or cash); points are debited only when the
      credits are acknowledged, and a balance never goes below zero or below what is held.
    * **Transfers** (:func:`check_transfer`): per-transfer limit (422) and per-gaming-day limit
      per direction (409); the gaming day starts at a configured UTC hour (21:00 UTC = 06:00 KST).
    * **PIN** (:func:`pin_retry_after`, :func:`after_pin_failure`): after 3 consecutive wrong PINs
      further tries wait :data:`PIN_THROTTLE_SECONDS` from the last failure (429, not counted);
      the 5th consecutive wrong PIN blocks the card; a right PIN resets the count.
    * **Table ratings** (:func:`rated_play`): handle = average bet × hours × decisions per hour;
      theoretical win = handle × house edge; points through the same rules as slots.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from fractions import Fraction
from typing import Iterable, Mapping

from slotsys.kernel.errors import Conflict, DomainError, ValidationFailed
from slotsys.kernel.money import theoretical_milli

MILLI_PER_POINT = 1_000
PERMILLE = 1_000
PPM = 1_000_000

PIN_THROTTLE_AFTER = 3
PIN_BLOCK_AFTER = 5
PIN_THROTTLE_SECONDS = 60

CARD_PREFIX = "9410"  # the casino's card range (16 digits, Luhn check digit last)
CARD_STATES = ("active", "lost", "blocked", "replaced")
SESSION_METERS = ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won")


# ------------------------------------------------------------------ errors
class PinIncorrect(DomainError):
    status = 403
    code = "pin-incorrect"
    title = "Wrong PIN"


class PinThrottled(DomainError):
    status = 429
    code = "pin-throttled"
    title = "Too many wrong PINs: wait before trying again"


class CardNotUsable(DomainError):
    status = 403
    code = "card-not-usable"
    title = "The card cannot be used"


class CardLost(CardNotUsable):
    code = "card-lost"
    title = "The card is reported lost"


class CardBlocked(CardNotUsable):
    code = "card-blocked"
    title = "The card is blocked"


class MachineCardedByOther(Conflict):
    code = "machine-carded-by-another-player"
    title = "Another player's card is in this machine"


class PlayerCardedElsewhere(Conflict):
    code = "player-carded-elsewhere"
    title = "The player's card is in another machine"


class NotCarded(Conflict):
    code = "no-carded-player"
    title = "No player card is in this machine"


class TransferAboveLimit(ValidationFailed):
    code = "transfer-above-limit"
    title = "The transfer is above the per-transfer limit"


class DailyLimitReached(Conflict):
    code = "daily-limit-reached"
    title = "The transfer would pass the daily limit"


class InsufficientPoints(Conflict):
    code = "insufficient-points"
    title = "Not enough points"


# ------------------------------------------------------------------ accrual
class Basis(str, Enum):
    COIN_IN = "coin_in"
    THEO = "theo"


RULE_SCOPES = ("default", "zone", "machine", "table")


@dataclass(frozen=True)
class AccrualRule:
    """What earns one point: ``won_per_point`` won of coin-in (``coin_in``) or of theoretical
    win (``theo``). ``scope``/``key`` say where it applies (``("machine", "M020")``,
    ``("zone", "VIP")``, ``("table", "BJ-01")``, ``("default", "")``)."""

    basis: Basis
    won_per_point: int
    scope: str = "default"
    key: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "basis", Basis(self.basis))
        if isinstance(self.won_per_point, bool) or not isinstance(self.won_per_point, int) or self.won_per_point <= 0:
            raise ValidationFailed("won_per_point must be a positive integer", field="won_per_point")
        if self.scope not in RULE_SCOPES:
            raise ValidationFailed(f"scope must be one of {', '.join(RULE_SCOPES)}", field="scope")
        if (self.scope == "default") != (self.key == ""):
            raise ValidationFailed("the default rule has no key; every other scope needs one", field="key")


def resolve_rule(rules: Iterable[AccrualRule], *, machine: str | None = None, table: str | None = None,
                 zone: str | None = None) -> AccrualRule:
    """The rule that applies: the machine's (or table's) own rule, else its zone's (a pit area
    for tables), else the default. Raises ``LookupError`` when there is no default."""
    by = {(r.scope, r.key): r for r in rules}
    for k in (("machine", machine), ("table", table), ("zone", zone), ("default", "")):
        if k[1] is not None and k in by:
            return by[k]
    raise LookupError("no default accrual rule is configured")


@dataclass(frozen=True)
class Tier:
    """A tier: reached at ``threshold_points`` whole points of tier progress; multiplies accruals
    by ``multiplier_permille`` / 1,000."""

    code: str
    name: str
    threshold_points: int
    multiplier_permille: int


def tier_for(tiers: Iterable[Tier], tier_points_milli: int) -> Tier:
    """The highest tier whose threshold is reached (tiers are ordered by threshold)."""
    reached = [t for t in tiers if t.threshold_points * MILLI_PER_POINT <= tier_points_milli]
    if not reached:
        raise LookupError("no tier has a threshold of 0")
    return max(reached, key=lambda t: t.threshold_points)


@dataclass(frozen=True)
class Accrual:
    """One accrual: ``theo_milli`` (milli-won of theoretical win), ``base_milli`` (milli-points
    before the tier multiplier; counts toward the tier) and ``points_milli`` (credited)."""

    theo_milli: int
    base_milli: int
    points_milli: int


def accrue(rule: AccrualRule, coin_in_won: int | Fraction, house_edge: Fraction, multiplier_permille: int) -> Accrual:
    """Points earned by ``coin_in_won`` of play at ``house_edge`` (= 1 − RTP) under ``rule``.

    Example: coin-in ₩6,000, rule ``coin_in`` ₩1,000/point, ×1.25 → base 6,000 milli-points,
    credited 7,500 milli-points (7.5 points). Theo at RTP 93.99545% → ₩360.273… → 360,273 milli-won.
    """
    if coin_in_won < 0:
        raise ValueError("coin-in is never negative")
    if not 0 <= house_edge <= 1:
        raise ValueError("a house edge lies between 0 and 1")
    theo = theoretical_milli(coin_in_won, house_edge)
    if rule.basis is Basis.COIN_IN:
        base = math.floor(Fraction(coin_in_won) * MILLI_PER_POINT / rule.won_per_point)
    else:
        base = theo // rule.won_per_point  # milli-won / (won per point) = milli-points
    return Accrual(theo, base, base * multiplier_permille // PERMILLE)


def point_earning_coin_in(cashable_won: int, promotional_won: int, *, promo_earns: bool = False) -> int:
    """The part of a game's coin-in (won) that earns points: the cashable stake, plus the
    promotional stake (restricted and non-restricted credits) only when the program says so
    (``SLOTSYS_LOYALTY_PROMO_EARNS_POINTS``). The house rule, as on most floors: free play earns no
    points, because it is the house's own money. Theoretical win still counts the whole coin-in."""
    if cashable_won < 0 or promotional_won < 0:
        raise ValueError("coin-in is never negative")
    return cashable_won + promotional_won if promo_earns else cashable_won


def rated_play(average_bet_won: int, minutes: int, decisions_per_hour: int, house_edge_ppm: int) -> tuple[Fraction, Fraction]:
    """A table rating → (handle in won, house edge): handle = average bet × minutes / 60 ×
    decisions per hour (exact; the pit rates whole minutes)."""
    for name, v in (("average_bet", average_bet_won), ("minutes", minutes), ("decisions_per_hour", decisions_per_hour)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValidationFailed(f"{name} must be a positive integer", field=name)
    if isinstance(house_edge_ppm, bool) or not isinstance(house_edge_ppm, int) or not 0 < house_edge_ppm < PPM:
        raise ValidationFailed("house_edge_ppm must be an integer between 1 and 999,999 ppm", field="house_edge_ppm")
    return Fraction(average_bet_won * minutes * decisions_per_hour, 60), Fraction(house_edge_ppm, PPM)


# ------------------------------------------------------------------ expiry, redemption
def points_expire_at(last_activity_at: datetime, idle_days: int) -> datetime:
    return last_activity_at + timedelta(days=idle_days)


def points_expired(last_activity_at: datetime, now: datetime, idle_days: int) -> bool:
    """True when the idle period since the last points activity has fully elapsed."""
    return now >= points_expire_at(last_activity_at, idle_days)


def require_points(value: object, *, field: str = "points") -> int:
    """A positive whole number of points (422 naming ``field`` otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValidationFailed("points must be a positive whole number", field=field)
    return value


def redemption_value(points: int, won_per_point: int) -> int:
    """Won that ``points`` whole points are worth at ``won_per_point`` (exact)."""
    return require_points(points) * won_per_point


def check_available(points: int, balance_milli: int, held_milli: int) -> None:
    """Refuse (409, field ``points``) a redemption of more whole points than are free."""
    free = balance_milli - held_milli
    if points * MILLI_PER_POINT > free:
        raise InsufficientPoints(
            f"{points:,} points requested but only {max(free, 0) // MILLI_PER_POINT:,} are available",
            field="points", available=max(free, 0) // MILLI_PER_POINT,
        )


# ------------------------------------------------------------------ transfers
DIRECTIONS = ("to_machine", "to_wallet")


@dataclass(frozen=True)
class TransferLimits:
    per_transfer_won: int
    daily_to_machine_won: int
    daily_to_wallet_won: int

    def daily(self, direction: str) -> int:
        return self.daily_to_machine_won if direction == "to_machine" else self.daily_to_wallet_won


def check_transfer(limits: TransferLimits, direction: str, amount: int, used_today: int) -> None:
    """Refuse a transfer above the per-transfer limit (422) or one that would take the day's
    total in ``direction`` past the daily limit (409); both name the field ``amount``."""
    if amount > limits.per_transfer_won:
        raise TransferAboveLimit(
            f"₩{amount:,} is above the per-transfer limit of ₩{limits.per_transfer_won:,}",
            field="amount", limit=limits.per_transfer_won,
        )
    daily = limits.daily(direction)
    if used_today + amount > daily:
        remaining = max(daily - used_today, 0)
        raise DailyLimitReached(
            f"₩{amount:,} would pass the daily {direction.replace('_', ' ')} limit of ₩{daily:,} "
            f"(₩{remaining:,} left today)", field="amount", limit=daily, remaining=remaining,
        )


# ------------------------------------------------------------------ PIN
_PIN = re.compile(r"^[0-9]{4,6}$")


def require_pin_format(pin: object) -> str:
    """A PIN is 4 to 6 digits, given as a string (422 naming ``pin``)."""
    if not isinstance(pin, str) or not _PIN.match(pin):
        raise ValidationFailed("pin must be 4 to 6 digits", field="pin")
    return pin


def pin_retry_after(failures: int, last_failure_at: datetime | None, now: datetime) -> int:
    """Seconds the card must wait before the next PIN try (0: it may try now)."""
    if failures < PIN_THROTTLE_AFTER or last_failure_at is None:
        return 0
    wait = (last_failure_at + timedelta(seconds=PIN_THROTTLE_SECONDS) - now).total_seconds()
    return max(0, math.ceil(wait))


def after_pin_failure(failures: int) -> tuple[int, bool]:
    """(new consecutive failure count, whether the card is now blocked)."""
    n = failures + 1
    return n, n >= PIN_BLOCK_AFTER


# ------------------------------------------------------------------ cards
def luhn_check_digit(digits: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def new_card_number(randbelow) -> str:
    """A 16-digit card number: the casino prefix, 11 random digits, a Luhn check digit."""
    body = CARD_PREFIX + "".join(str(randbelow(10)) for _ in range(11))
    return body + luhn_check_digit(body)


def normalize_card_number(raw: object) -> str:
    """A presented card number (spaces/dashes allowed) → 16 digits, or 422 naming ``card_number``."""
    if not isinstance(raw, str):
        raise ValidationFailed("card_number must be a string of 16 digits", field="card_number")
    s = re.sub(r"[\s-]", "", raw)
    if not re.fullmatch(r"[0-9]{16}", s):
        raise ValidationFailed("card_number must be 16 digits", field="card_number")
    if luhn_check_digit(s[:-1]) != s[-1]:
        raise ValidationFailed("card_number check digit is wrong (mistyped?)", field="card_number")
    return s


# ------------------------------------------------------------------ sessions
def meter_delta(start: Mapping[str, int], end: Mapping[str, int]) -> dict[str, int]:
    """Session meters as the change of the machine's meters between card-in and card-out."""
    return {k: end[k] - start[k] for k in SESSION_METERS}
