"""Folding wagers into jackpot pools in one total order (pure).

The sequencer (``jackpot_controller.services.sequencer``) hands this module the recorded wagers
in their fold order and the levels' states; this module applies every wager to every level it
qualifies for, decides the hits and computes the whole-won ledger flows. Rules
(reference/slot_floor.md; GLI-12 style):

* Meters are integer **milli-won**: a wager adds ``bet × rate_ppm / 1000`` milli-won (rounded
  down, :func:`slotsys.kernel.money.contribution_milli`) to the value and ``bet ×
  reserve_rate_ppm / 1000`` to the reserve; ``coin_in`` counts qualifying wagers (won).
* **Mystery**: the wager whose contribution makes the value reach the trigger wins the trigger
  value in whole won; the sub-won part of the trigger and the contribution beyond it carry into
  the next cycle. **Standalone / linked**: the wager's contribution is added first, then its
  progressive combination wins the whole-won value; the sub-won remainder carries. Contributions
  past the ceiling go to overflow (this level's, or the ``overflow_to`` level's).
* A **second hit** on a linked level while an earlier claim is open: ``next_value`` pays the new
  cycle's value; ``same_amount`` pays max(open claim, value), the house seed funding the top-up.
* **Reset** after a hit: pending parameters take effect; the new value is ``reset`` (funded from
  the reserve's whole won first, the house seed for the rest) + the carried remainder + the
  overflow's whole won (up to the ceiling, and for a mystery level up to the new trigger); a
  value still above its limit — the ceiling, and for a mystery level the new trigger — moves its
  excess (whole won, rounded up) to overflow. A mystery level draws a new trigger uniformly in
  [reset, ceiling].
* **The meter never shows more than the next hit pays.** A mystery hit pays the trigger, so the
  value is kept ≤ the trigger: the carried excess of a crossing wager (what it contributed past the
  trigger) is at most the gap between the new trigger and the reset, the rest waits in overflow
  (the bug this rule fixes: with a new trigger of ₩100,004 and ₩10 carried onto a reset of
  ₩99,999, the meter read ₩100,009 and the hit paid ₩100,004). A progressive hit pays the value
  itself. Property-tested over many folds (tests/unit/test_mystery.py): displayed ≤ payable.
* The value never decreases except by a hit; no contribution is dropped: Σ contributions =
  growth of (value + reserve + overflow) + 1000 × (awards − seeds), per fold and in total.

Ledger (won): every movement between pools is a whole number of won, so the whole-won part a
pool gained from contributions is its floor's change minus those transfers
(:meth:`Pool.ledger_legs`); after posting, each pool's account equals floor(pool / 1000).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from slotsys.kernel import accounts
from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.mystery import RandomSource, draw_trigger
from slotsys.kernel.money import MILLI_PER_WON, contribution_milli, payout_floor


@dataclass(frozen=True)
class Wager:
    """A recorded wager: its id (the fold order within a batch), where it was played, the bet
    (won) and the progressive level keys its outcome won."""

    id: int
    machine_id: int
    asset: str
    bank: str
    zone: str
    bet: int
    progressive: tuple[str, ...] = ()


@dataclass(frozen=True)
class HitDecision:
    """A hit decided by the fold: ``amount`` (won) is owed to the wager's machine.

    ``value_milli``: the meter when it was won (raw, for the hit record); ``trigger_milli``: the
    mystery trigger (0 otherwise); ``topup``: won funded by the house under ``same_amount``;
    ``second_hit``: a hit while an earlier claim of the level was open (``rule`` applied)."""

    level_id: int
    level_code: str
    wager: Wager
    cycle: int
    amount: int
    value_milli: int
    trigger_milli: int
    topup: int = 0
    second_hit: bool = False
    rule: str = ""
    open_claim_amount: int = 0


@dataclass
class Flows:
    """Whole-won transfers of one pool during a fold (all ≥ 0)."""

    award: int = 0  # value → payable
    reserve_used: int = 0  # reserve → value (funds the reset)
    seed: int = 0  # house → value (rest of the reset, the start)
    release: int = 0  # overflow → value at a reset
    cap: int = 0  # value → overflow (value above the ceiling)
    topup: int = 0  # house → payable (same_amount second hit)


@dataclass
class Pool:
    """A level's working state during a fold (mutable). Meters in milli-won unless named ``_won``."""

    id: int
    code: str
    params: LevelParams
    value_milli: int
    trigger_milli: int
    cycle: int
    pending: LevelParams | None = None
    paused: bool = False
    reserve_milli: int = 0
    overflow_milli: int = 0
    coin_in: int = 0
    contributed_milli: int = 0
    hits: int = 0
    total_won: int = 0
    seeded_won: int = 0
    cycle_started: Any = None  # opaque to the domain (the service's timestamp)
    open_claims: list[int] = field(default_factory=list)  # amounts of open claims (linked)
    flows: Flows = field(default_factory=Flows)
    _floors: tuple[int, int, int] = (0, 0, 0)

    def __post_init__(self) -> None:
        self._floors = self.floors()

    def floors(self) -> tuple[int, int, int]:
        return (self.value_milli // MILLI_PER_WON, self.reserve_milli // MILLI_PER_WON,
                self.overflow_milli // MILLI_PER_WON)

    @property
    def changed(self) -> bool:
        return self.floors() != self._floors or self.flows != Flows()

    def ledger_legs(self) -> list[tuple[str, str, int]]:
        """(debit, credit, won) legs that move this pool's accounts from their floors at the
        start of the fold to their floors now. Amounts are ≥ 0 (zero legs are dropped by the
        entry builder)."""
        f, code = self.flows, self.code
        v0, r0, o0 = self._floors
        v1, r1, o1 = self.floors()
        c_value = (v1 - v0) - (-f.award + f.reserve_used + f.seed + f.release - f.cap)
        c_reserve = (r1 - r0) + f.reserve_used
        c_overflow = (o1 - o0) - (f.cap - f.release)
        if min(c_value, c_reserve, c_overflow) < 0:  # pragma: no cover - would be a bug in this module
            raise AssertionError(f"negative contribution on {code}: {c_value}, {c_reserve}, {c_overflow}")
        return [
            (accounts.jackpot_contributions(code), accounts.jackpot_liability(code), c_value),
            (accounts.jackpot_contributions(code), accounts.jackpot_reserve(code), c_reserve),
            (accounts.jackpot_contributions(code), accounts.jackpot_overflow(code), c_overflow),
            (accounts.jackpot_liability(code), accounts.jackpot_payable(code), f.award),
            (accounts.jackpot_reserve(code), accounts.jackpot_liability(code), f.reserve_used),
            (accounts.jackpot_seed(code), accounts.jackpot_liability(code), f.seed),
            (accounts.jackpot_overflow(code), accounts.jackpot_liability(code), f.release),
            (accounts.jackpot_liability(code), accounts.jackpot_overflow(code), f.cap),
            (accounts.jackpot_seed(code), accounts.jackpot_payable(code), f.topup),
        ]


def open_cycle(params: LevelParams, rng: RandomSource) -> tuple[int, int]:
    """(value_milli, trigger_milli) of a new level's first cycle (trigger 0 unless mystery)."""
    params.validate()
    start = params.start_value
    trigger = draw_trigger(start, params.ceiling, rng) if params.kind == "mystery" else 0
    return start * MILLI_PER_WON, trigger


ZoneOf = Callable[[Pool, Wager], str]


def apply_wager(pools: list[Pool], wager: Wager, rng: RandomSource, *, now: Any = None,
                zone_of: ZoneOf | None = None) -> list[HitDecision]:
    """Apply one wager to every level (``pools`` in id order) it qualifies for; return the hits.

    ``zone_of(pool, wager)``: the machine's zone as it counts for the pool's current cycle (a
    machine moved between zones counts in its old zone until the level's next reset); default:
    the wager's zone. ``now`` is stored as the new cycle's start on a reset.
    """
    by_code = {p.code: p for p in pools}
    hits: list[HitDecision] = []
    for p in pools:
        if p.paused:
            continue
        prm = p.params
        zone = zone_of(p, wager) if zone_of else wager.zone
        if not prm.eligible(wager.asset, wager.bank, zone) or wager.bet < prm.min_bet:
            continue
        c = contribution_milli(wager.bet, prm.rate_ppm)
        r = contribution_milli(wager.bet, prm.reserve_rate_ppm)
        p.coin_in += wager.bet
        p.contributed_milli += c + r
        p.reserve_milli += r
        if prm.kind == "mystery":
            total = p.value_milli + c
            if total >= p.trigger_milli:
                award = p.trigger_milli // MILLI_PER_WON
                trigger = p.trigger_milli
                p.value_milli = total
                hits.append(_hit(p, wager, award, total, trigger, rng, now))
            else:
                p.value_milli = total
            continue
        room = max(0, prm.ceiling * MILLI_PER_WON - p.value_milli)
        to_value = min(c, room)
        p.value_milli += to_value
        excess = c - to_value
        if excess:
            target = by_code.get(prm.overflow_to) if prm.overflow == "divert" and prm.overflow_to else None
            (target or p).overflow_milli += excess
        if prm.combination and prm.combination in wager.progressive:
            hits.append(_hit(p, wager, p.value_milli // MILLI_PER_WON, p.value_milli, 0, rng, now))
    return hits


def _hit(p: Pool, wager: Wager, award: int, value_milli: int, trigger: int, rng: RandomSource, now: Any) -> HitDecision:
    """Pay ``award`` (whole won) out of the value, apply the second-hit rule, reset the level."""
    prm = p.params
    topup, second, rule, open_amount = 0, False, "", 0
    if prm.kind == "linked" and p.open_claims:
        second, rule, open_amount = True, prm.second_hit_rule, p.open_claims[-1]
        if rule == "same_amount":
            topup = max(0, open_amount - award)
    p.value_milli -= award * MILLI_PER_WON
    p.flows.award += award
    p.flows.topup += topup
    decision = HitDecision(p.id, p.code, wager, p.cycle, award + topup, value_milli, trigger, topup, second, rule,
                           open_amount)
    p.hits += 1
    p.total_won += award + topup
    p.seeded_won += topup
    if prm.kind == "linked":
        p.open_claims.append(award + topup)
    _reset(p, rng, now)
    return decision


def _reset(p: Pool, rng: RandomSource, now: Any) -> None:
    if p.pending is not None:  # parameter changes take effect after the hit
        p.params, p.pending = p.pending, None
    prm = p.params
    p.cycle += 1
    p.cycle_started = now
    reset_won = prm.reset
    used = min(p.reserve_milli // MILLI_PER_WON, reset_won)
    p.reserve_milli -= used * MILLI_PER_WON
    p.flows.reserve_used += used
    p.flows.seed += reset_won - used
    p.seeded_won += reset_won - used
    p.value_milli += reset_won * MILLI_PER_WON  # the carried remainder is already in value_milli
    if prm.kind == "mystery":
        p.trigger_milli = draw_trigger(prm.reset, prm.ceiling, rng)
        limit = p.trigger_milli
    else:
        limit = prm.ceiling * MILLI_PER_WON
    if p.overflow_milli >= MILLI_PER_WON:
        release = min(p.overflow_milli // MILLI_PER_WON, max(0, limit - p.value_milli) // MILLI_PER_WON)
        p.overflow_milli -= release * MILLI_PER_WON
        p.value_milli += release * MILLI_PER_WON
        p.flows.release += release
    over = p.value_milli - limit
    if over > 0:  # carried excess above the limit: never shown, it waits in overflow
        cap = -(-over // MILLI_PER_WON)
        p.value_milli -= cap * MILLI_PER_WON
        p.overflow_milli += cap * MILLI_PER_WON
        p.flows.cap += cap


def fold(pools: list[Pool], wagers: Iterable[Wager], rng: RandomSource, *, now: Any = None,
         zone_of: ZoneOf | None = None) -> list[HitDecision]:
    """Apply ``wagers`` in order (the total order of contributions); return every hit in order."""
    hits: list[HitDecision] = []
    for w in wagers:
        hits.extend(apply_wager(pools, w, rng, now=now, zone_of=zone_of))
    return hits


# ------------------------------------------------------------------ table progressives (issue 8)
@dataclass(frozen=True)
class TableClaim:
    """A table hand's progressive award: ``meter_ppm`` of the meter (1,000,000 = all of it), shared
    equally by ``shared_by`` hands of the same ``line`` in the round, or ``fixed`` won."""

    line: str
    meter_ppm: int = 0
    fixed: int = 0
    shared_by: int = 1


@dataclass(frozen=True)
class TablePaid:
    """What one claim was paid (won): ``from_meter`` out of the value, ``from_house`` funded by the
    house (fixed lines, via the level's seed account); ``meter`` the whole-won meter it was computed
    on; ``cycle`` the cycle it was won in."""

    claim: TableClaim
    amount: int
    from_meter: int
    from_house: int
    meter: int
    cycle: int


def table_round(pool: Pool, stakes: Iterable[int], claims: list[TableClaim], rng: RandomSource, *,
                now: Any = None) -> list[TablePaid]:
    """One table round on a ``table`` level: contributions first, then the awards (pure).

    * each progressive stake (won) adds ``stake × rate_ppm / 1000`` milli-won to the value (past the
      ceiling: to overflow) and ``stake × reserve_rate_ppm / 1000`` to the reserve;
    * then the claims, line by line in the order given (best first): every hand of a line is paid
      from the same meter (whole won, after this round's contributions and the earlier lines):
      ``floor(meter × ppm / (10⁶ × shared_by))``, so hands sharing a line split it equally and the
      won that does not divide stays on the meter; a **fixed** line is paid by the house (seed →
      payable), the meter untouched;
    * a line paying 100% of the meter resets the level (``reset`` funded from the reserve, then the
      house seed; the carried remainder stays), as a slot hit does.

    No milli-won is created or lost: value + reserve + overflow grows by the contributions plus the
    seeds, less the awards (``Pool.ledger_legs`` posts the whole-won part).
    """
    prm = pool.params
    for stake in stakes:
        contributed = contribution_milli(stake, prm.rate_ppm)
        reserved = contribution_milli(stake, prm.reserve_rate_ppm)
        pool.coin_in += stake
        pool.contributed_milli += contributed + reserved
        pool.reserve_milli += reserved
        to_value = min(contributed, max(0, prm.ceiling * MILLI_PER_WON - pool.value_milli))
        pool.value_milli += to_value
        pool.overflow_milli += contributed - to_value
    paid: list[TablePaid | None] = [None] * len(claims)
    for line in dict.fromkeys(c.line for c in claims):
        meter = pool.value_milli // MILLI_PER_WON
        cycle = pool.cycle
        resets = False
        for i, c in enumerate(claims):
            if c.line != line:
                continue
            if c.fixed:
                amount, from_meter = c.fixed, 0
                pool.flows.topup += amount
                pool.seeded_won += amount
            else:
                amount = from_meter = payout_floor(meter, c.meter_ppm, 1_000_000 * c.shared_by)
                pool.value_milli -= amount * MILLI_PER_WON
                pool.flows.award += amount
                resets = resets or c.meter_ppm >= 1_000_000
            pool.hits += 1
            pool.total_won += amount
            paid[i] = TablePaid(c, amount, from_meter, amount - from_meter, meter, cycle)
        if resets:
            _reset(pool, rng, now)
    return [p for p in paid if p is not None]


def displayed_won(value_milli: int, kind: str, trigger_milli: int) -> int:
    """The whole won a sign shows for a level: the value, and for a mystery level never more than
    its trigger (what the next hit pays). With :func:`_reset` keeping value ≤ trigger this is the
    value itself; the bound only guards rows written before that rule."""
    won = value_milli // MILLI_PER_WON
    if kind == "mystery" and trigger_milli > 0:
        won = min(won, trigger_milli // MILLI_PER_WON)
    return won


def payout_if_hit_now(p: Pool) -> int:
    """Whole won the level's next hit would pay (before any contribution): the trigger of a mystery
    level, the value of a progressive (table levels: the value, the 100% line)."""
    if p.params.kind == "mystery":
        return p.trigger_milli // MILLI_PER_WON
    return p.value_milli // MILLI_PER_WON


def corrected_trigger(params: LevelParams, old_value_milli: int, new_value_milli: int, trigger_milli: int,
                      rng: RandomSource) -> int:
    """The mystery trigger after an authorised correction of the value (milli-won in and out).

    Rule (we chose **redraw**, docs/jackpots.md): a correction that *raises* the value redraws the
    secret trigger uniformly in [new value + ₩1, ceiling] whole won (the ceiling itself when the
    value is set to the ceiling: the next qualifying wager then hits, paying the ceiling). A
    correction that lowers the value keeps the trigger (it is above the old value, so above the
    new one). So the value stays below the trigger, the hit never pays less than the meter shows,
    and — because every rise redraws whether or not it passed the old trigger — a correction tells
    the operator nothing about where the trigger was (refusing corrections above the trigger would
    let one find it by bisection). Given the value, the redrawn trigger has the same distribution
    as the original draw conditioned on not having hit yet (uniform above the value). Other kinds:
    returned unchanged (0)."""
    if params.kind != "mystery" or new_value_milli <= old_value_milli:
        return trigger_milli
    new_won = new_value_milli // MILLI_PER_WON
    low = min(new_won + 1, params.ceiling)
    return draw_trigger(low, params.ceiling, rng)


def correction_legs(code: str, old_milli: int, new_won: int) -> tuple[int, list[tuple[str, str, int]]]:
    """An authorised correction of a value to ``new_won`` whole won (the sub-won part is kept):
    returns the new value_milli and the ledger legs (adjustments ↔ liability)."""
    frac = old_milli % MILLI_PER_WON
    new_milli = new_won * MILLI_PER_WON + frac
    delta = new_won - old_milli // MILLI_PER_WON
    if delta >= 0:
        return new_milli, [(accounts.jackpot_adjustments(code), accounts.jackpot_liability(code), delta)]
    return new_milli, [(accounts.jackpot_liability(code), accounts.jackpot_adjustments(code), -delta)]
