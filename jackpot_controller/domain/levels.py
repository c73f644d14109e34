"""Jackpot level parameters: validation and eligibility (pure).

Rules (reference/slot_floor.md "Progressive jackpots" and "Mystery (must-hit-by) jackpots";
GLI-12 style, NJ 13:69E-1.39A):

* Amounts are integer **won**, rates integer **ppm** (1% = 10,000 ppm). Every rate is in
  (0, 10%] (the hidden rate may be 0).
* ``start`` is the value of the first cycle (default: ``reset``); ``reset`` the value after
  each hit; ``ceiling`` the limit of a standalone / linked progressive or the must-hit-by of a
  mystery level: ``reset ≤ start ≤ ceiling`` and ``reset < ceiling``.
* ``rate_ppm`` of every qualifying wager goes to the visible value; ``reserve_rate_ppm`` (the
  hidden rate) to the reserve, which funds the next reset (the house seed covers any shortfall).
* Contributions past the ceiling go to overflow: ``overflow="carry"`` keeps them in this level's
  overflow pool, added to the value at its next reset (up to the ceiling); ``"divert"`` sends them
  to the overflow pool of the level ``overflow_to`` (NJ 13:69E-1.39A: "added to the reset amount
  ... or distributed to another progressive").
* Eligibility: ``scope`` ``machine`` (one asset: a standalone progressive), ``bank``, ``zone`` or
  ``floor``; a wager qualifies with ``bet ≥ min_bet``.
* ``standalone`` and ``linked`` levels are won by the game's progressive ``combination`` (the level
  key the evaluator reports in ``SpinOutcome.progressive``); ``mystery`` levels by the secret
  trigger. ``second_hit_rule`` (linked): what a hit while an earlier claim is still open pays:
  ``next_value`` (the new cycle's value at its turn) or ``same_amount`` (the open claim's amount,
  the house funding any difference). ``max_award``: an award above it is never credited (the
  machine locks for verification); None: the system maximum. It must be **≥ the ceiling** (and so
  ≥ the reset and the start): every award a level can reach by its own rules (at most its ceiling)
  is then payable, and only a faulty amount (the reference's ₩42,949,672 display) ever locks a
  machine for verification. A maximum below the ceiling would lock every hit above it (one such
  level locked all 20 MASS machines within 30 s).
* ``table`` levels are the meters of table-game progressive side bets (issue 8): floor scope, no
  combination and never fed by slot wagers; the table service adds a share (``rate_ppm``, up to
  100% of the side bet) of each progressive stake and pays the hands its paytable names
  (:func:`jackpot_controller.domain.pool.table_round`).

Errors raise :class:`LevelConfigError` naming the API field.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

KINDS = ("standalone", "linked", "mystery", "table")
SCOPES = ("machine", "bank", "zone", "floor")
OVERFLOW_RULES = ("carry", "divert")
SECOND_HIT_RULES = ("next_value", "same_amount")
MAX_RATE_PPM = 100_000  # 10 %
MAX_TABLE_RATE_PPM = 1_000_000  # a table progressive may put up to all of its side bet on the meter
MAX_WON = 10**12  # BIGINT-safe bound of any amount


class LevelConfigError(ValueError):
    """Refused level parameters; ``field`` names the API field, ``message`` says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _int(name: str, v: Any, *, optional: bool = False) -> None:
    if v is None and optional:
        return
    if isinstance(v, bool) or not isinstance(v, int):
        raise LevelConfigError(name, "must be an integer")
    if v < 0:
        raise LevelConfigError(name, "must not be negative")
    if v > MAX_WON:
        raise LevelConfigError(name, f"must be at most {MAX_WON:,}")


@dataclass(frozen=True)
class LevelParams:
    """The parameters of one level (won, ppm). See the module docstring for the rules."""

    kind: str
    reset: int
    ceiling: int
    rate_ppm: int
    start: int | None = None
    reserve_rate_ppm: int = 0
    min_bet: int = 0
    scope: str = "floor"
    machine: str | None = None
    bank: str | None = None
    zone: str | None = None
    overflow: str = "carry"
    overflow_to: str | None = None
    combination: str | None = None
    max_award: int | None = None
    second_hit_rule: str = "next_value"

    @property
    def start_value(self) -> int:
        return self.reset if self.start is None else self.start

    def validate(self) -> "LevelParams":
        """Return self, or raise :class:`LevelConfigError` naming the first bad field."""
        if self.kind not in KINDS:
            raise LevelConfigError("kind", f"must be one of {', '.join(KINDS)}")
        for name in ("reset", "ceiling", "rate_ppm", "reserve_rate_ppm", "min_bet"):
            _int(name, getattr(self, name))
        _int("start", self.start, optional=True)
        _int("max_award", self.max_award, optional=True)
        if self.reset <= 0:
            raise LevelConfigError("reset", "must be greater than zero")
        if self.reset > self.ceiling:
            raise LevelConfigError("reset", f"reset ₩{self.reset:,} is above the ceiling ₩{self.ceiling:,}")
        if self.reset == self.ceiling:
            raise LevelConfigError("ceiling", "must be above the reset value")
        if self.start is not None and not self.reset <= self.start <= self.ceiling:
            raise LevelConfigError("start", "must be between the reset value and the ceiling")
        if self.kind == "table":
            if not 0 < self.rate_ppm <= MAX_TABLE_RATE_PPM:
                raise LevelConfigError("rate_ppm", "must be in (0, 1000000] ppm, i.e. (0, 100%] of the side bet")
        elif not 0 < self.rate_ppm <= MAX_RATE_PPM:
            raise LevelConfigError("rate_ppm", "must be in (0, 100000] ppm, i.e. (0, 10%]")
        if not 0 <= self.reserve_rate_ppm <= MAX_RATE_PPM:
            raise LevelConfigError("reserve_rate_ppm", "must be in [0, 100000] ppm, i.e. [0, 10%]")
        if self.max_award is not None and self.max_award <= 0:
            raise LevelConfigError("max_award", "must be greater than zero")
        if self.max_award is not None and self.max_award < self.ceiling:
            raise LevelConfigError("max_award", f"the maximum award ₩{self.max_award:,} is below the ceiling "
                                   f"₩{self.ceiling:,} (and reset ₩{self.reset:,}): every hit above it would lock "
                                   "its machine for verification")
        if self.scope not in SCOPES:
            raise LevelConfigError("scope", f"must be one of {', '.join(SCOPES)}")
        targets = {"machine": self.machine, "bank": self.bank, "zone": self.zone}
        for name, value in targets.items():
            if name == self.scope:
                if not isinstance(value, str) or not value:
                    raise LevelConfigError(name, f"a {self.scope}-wide level needs its {name}")
            elif value is not None:
                raise LevelConfigError(name, f"a {self.scope}-wide level takes no {name}")
        if self.kind == "standalone" and self.scope != "machine":
            raise LevelConfigError("scope", "a standalone progressive is owned by one machine (scope machine)")
        if self.kind == "linked" and self.scope == "machine":
            raise LevelConfigError("scope", "a linked progressive spans machines (bank, zone or floor)")
        if self.kind == "table" and self.scope != "floor":
            raise LevelConfigError("scope", "a table progressive is bound to tables, not machines (scope floor)")
        if self.kind in ("mystery", "table"):
            if self.combination is not None:
                raise LevelConfigError("combination", f"a {self.kind} level is won by "
                                       f"{'its trigger' if self.kind == 'mystery' else 'the table hand'}, not a combination")
        elif not isinstance(self.combination, str) or not self.combination:
            raise LevelConfigError("combination", f"a {self.kind} progressive needs the game's combination key")
        if self.overflow not in OVERFLOW_RULES:
            raise LevelConfigError("overflow", f"must be one of {', '.join(OVERFLOW_RULES)}")
        if self.overflow == "divert" and not self.overflow_to:
            raise LevelConfigError("overflow_to", "divert needs the level that receives the overflow")
        if self.overflow == "carry" and self.overflow_to is not None:
            raise LevelConfigError("overflow_to", "only the divert rule takes a target level")
        if self.second_hit_rule not in SECOND_HIT_RULES:
            raise LevelConfigError("second_hit_rule", f"must be one of {', '.join(SECOND_HIT_RULES)}")
        return self

    def eligible(self, asset: str, bank: str, zone: str) -> bool:
        """Whether a machine (asset, bank, zone) contributes to and can win this level (never a table level's)."""
        if self.kind == "table":
            return False
        if self.scope == "floor":
            return True
        if self.scope == "zone":
            return zone == self.zone
        if self.scope == "bank":
            return bank == self.bank
        return asset == self.machine

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LevelParams":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def with_changes(self, changes: dict[str, Any]) -> "LevelParams":
        """A copy with ``changes`` applied (unknown keys raise ``LevelConfigError``)."""
        names = {f.name for f in fields(self)}
        for k in changes:
            if k not in names:
                raise LevelConfigError(k, "is not a level parameter")
        return replace(self, **changes)
