"""The day close of the slot floor: a gaming day's figures per machine from its meter snapshots, rolled up per
bank, zone, game and floor, with theoretical hold from the exact par sheet and its statistical variance. Pure.

Input
-----
* :class:`MachineInfo` per machine: asset number, bank and zone (as at the close).
* :class:`Snapshot` s per machine, in the order they were recorded (snapshots are append-only): the day's
  opening (``day_open``, the previous day's ``day_close`` taken at the same boundary, or ``enrol`` for a
  machine enrolled during the day), every snapshot taken at a game or
  denomination change (``game_change_before`` / ``game_change_after`` …) and the closing one (``day_close``, or
  ``retire``). Each carries the machine's configuration (game, paytable variation, denomination) and its
  meters (:data:`METERS`; won unless the name ends in ``_count``, ``games_played`` / ``games_won`` counts).
* :class:`OptionPlay` per machine, configuration and bet option: the games played and coin-in of that option
  (from the game recall, ``game_rounds``), which the meters do not split.
* ``par``: ``par(game_id, variation) → ParSheet`` (``slotsys.floor.domain.parsheet.par_sheet``).

Segments
--------
Consecutive snapshots of a machine bound a *segment*; a segment's figures are the meter differences
``end − start`` and its configuration is the start snapshot's. The day's figures of a machine are the sum of
its segments, kept apart per configuration (a *part*: machine × game × variation × denomination), so a
machine that changed game during the day counts in both games' roll-ups. Meters never go backwards: a
decrease raises :class:`DayCloseError` (a RAM clear or a wrong snapshot needs an investigation, not a
figure). A segment with play whose end snapshot shows another configuration is reported as an exception
(``configuration_changed_in_segment``: the play is counted in the start configuration). A first snapshot that
is not an opening one, or a last that is not a closing one, is reported too (play outside the snapshots is
not counted).

Figures (won unless stated)
---------------------------
* coin-in, coin-out, jackpots (``jackpot_out``: progressive and mystery awards, paid from the jackpot
  liabilities, not from the machine's hold), handpays (``handpay_out`` / ``_count``: cancelled credits paid by
  hand, owed out of credits already counted in coin-out or bills), bills in, tickets in / out (amount and
  count), promotional in / out, games played and won, promotional credits played (restricted /
  non-restricted: the part of coin-in staked from promotional credits);
* **actual hold** (game win) = coin-in − coin-out; the ledger's ``machine:<asset>:hold`` moves by exactly this
  (``Cr`` every stake, ``Dr`` every win); **hold %** = hold / coin-in;
* **theoretical hold** = Σ over the bet options played of (coin-in of the option × house edge of the option),
  house edge = 1 − RTP of the exact par sheet (the free-games choice's figures when a choice is given, else the
  option's default). Each option's product rounds DOWN to the milli-won (``money.theoretical_milli``); a part's
  milli-won sum rounds DOWN to the won (``money.milli_to_won_floor_signed``); a machine's and every roll-up's
  theoretical hold (won) is the sum of its parts, so every total is the sum of its rows. Progressive awards are
  not in the par sheet's RTP, as they are not in coin-out.

Variance against expectation
----------------------------
For one bet option o played ``n_o`` games at a bet of ``b_o`` won each, the win of one game divided by the bet
has mean RTP_o and standard deviation σ_o (the par sheet's ``sd``, free games included). The games are
independent, so the option's hold ``H_o = n_o·b_o − Σ win`` has

    E[H_o]   = n_o · b_o · (1 − RTP_o) = C_o · edge_o            (C_o = coin-in of the option)
    Var[H_o] = n_o · (b_o · σ_o)²      = C_o² · σ_o² / n_o

and a part, machine or roll-up (a sum over independent options and machines) has
``E[H] = Σ E[H_o]``, ``SD[H] = √(Σ Var[H_o])``; its **z-score** is ``(actual hold − E[H]) / SD[H]`` and it is
**flagged** when ``|z| > k`` (``k`` configurable, default 3) and it played at least ``min_games`` games.

Assumptions: every bet of an option costs the same (the option's credits × the part's denomination, which is
exact within a part); games are independent; the distribution of the hold is near normal (central limit
theorem). A game's win distribution is strongly skewed (rare top awards), so over a few hundred games the
normal approximation understates the chance of a large negative hold: a flag on a small sample is a prompt to
look, not a finding. ``E[H]`` in the z-score is the exact product (no rounding). Play the recall does not
attribute to an option (meter coin-in − Σ option coin-in, reported as ``coin_in_unattributed`` with an
``unattributed_play`` exception) carries no theoretical hold and no variance, and leaves the z-score of its
part and of every roll-up containing it empty (None): the hold it is part of has no expectation to test.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

from slotsys.kernel import accounts
from slotsys.kernel.money import milli_to_won_floor_signed, theoretical_milli
from slotsys.floor.domain.parsheet import ParSheet

__all__ = [
    "METERS", "COUNT_METERS", "REQUIRED_METERS", "OPENING_KINDS", "CLOSING_KINDS", "DEFAULT_K", "DayCloseError",
    "MachineInfo", "Snapshot", "OptionPlay", "Segment", "Figures", "Part", "MachineDay", "RollUp", "DayClose",
    "segments", "close_day", "meters_vs_ledger",
]

# Meter names of a snapshot (slotsys.floor.domain.admin.SNAPSHOT_METERS plus promo_in / promo_out, which
# the machines table does not keep yet: a snapshot without them reports those figures as None).
METERS = ("coin_in", "coin_out", "jackpot_out", "handpay_out", "handpay_out_count", "bills_in", "tickets_in",
          "tickets_in_count", "tickets_out", "tickets_out_count", "promo_in", "promo_out", "restricted_played",
          "nonrestricted_played", "games_played", "games_won")
COUNT_METERS = ("handpay_out_count", "tickets_in_count", "tickets_out_count", "games_played", "games_won")
REQUIRED_METERS = ("coin_in", "coin_out", "games_played")
# One snapshot at the boundary may serve both days: the previous day's ``day_close`` opens the next.
OPENING_KINDS = ("day_open", "day_close", "enrol")
CLOSING_KINDS = ("day_close", "retire")
DEFAULT_K = 3.0


class DayCloseError(ValueError):
    """Input the day close cannot account for: a meter that went backwards (``meter``, ``start``, ``end``),
    a snapshot missing a required meter, snapshots out of time order, a machine without snapshots, a naive
    time stamp, or a bet option the par sheet does not have. ``asset`` names the machine."""

    def __init__(self, message: str, *, asset: str, **detail: Any) -> None:
        super().__init__(f"{asset}: {message}")
        self.asset = asset
        self.detail = detail


@dataclass(frozen=True)
class MachineInfo:
    asset: str
    bank: str
    zone: str


@dataclass(frozen=True)
class Snapshot:
    """A machine's meters (``{name: int}``, names from :data:`METERS`) and configuration at ``at`` (aware)."""

    asset: str
    at: datetime
    kind: str
    game_id: str
    variation: str
    denomination: int
    meters: Mapping[str, int]

    @property
    def config(self) -> tuple[str, str, int]:
        return (self.game_id, self.variation, self.denomination)


@dataclass(frozen=True)
class OptionPlay:
    """Games and coin-in (won) of one bet option on one machine configuration during the day. ``choice``: the
    free-games choice index (None: the option's default figures)."""

    asset: str
    game_id: str
    variation: str
    denomination: int
    lines: int | None
    reels: int | None
    multiplier: int
    games: int
    coin_in: int
    choice: int | None = None

    @property
    def config(self) -> tuple[str, str, int]:
        return (self.game_id, self.variation, self.denomination)


@dataclass(frozen=True)
class Segment:
    """Meter differences between two consecutive snapshots of a machine, in the start's configuration."""

    asset: str
    start: datetime
    end: datetime
    game_id: str
    variation: str
    denomination: int
    deltas: Mapping[str, int | None]
    configuration_changed: bool = False

    @property
    def config(self) -> tuple[str, str, int]:
        return (self.game_id, self.variation, self.denomination)

    @property
    def has_play(self) -> bool:
        return any(v for v in self.deltas.values())


@dataclass
class Figures:
    """The day's figures of a part, machine or roll-up (see the module docstring). ``meters``: name → won or
    count (None: not metered on some machine). ``theo_milli``: Σ of the options' rounded-down milli-won;
    ``theo_won``: Σ of the parts' whole won; ``expected``: the exact E[hold] (won, a Fraction) and ``variance``
    the Var[hold] (won², float) of the attributed play."""

    meters: dict[str, int | None] = field(default_factory=lambda: {m: 0 for m in METERS})
    theo_milli: int = 0
    theo_won: int = 0
    expected: Fraction = Fraction(0)
    variance: float = 0.0
    coin_in_attributed: int = 0
    games_attributed: int = 0

    def add(self, other: "Figures") -> None:
        for m in METERS:
            a, b = self.meters.get(m), other.meters.get(m)
            self.meters[m] = None if a is None or b is None else a + b
        self.theo_milli += other.theo_milli
        self.theo_won += other.theo_won
        self.expected += other.expected
        self.variance += other.variance
        self.coin_in_attributed += other.coin_in_attributed
        self.games_attributed += other.games_attributed

    # ---- derived figures
    @property
    def coin_in(self) -> int:
        return self.meters["coin_in"] or 0

    @property
    def hold(self) -> int:
        """Actual hold (game win), won: coin-in − coin-out."""
        return (self.meters["coin_in"] or 0) - (self.meters["coin_out"] or 0)

    @property
    def hold_pct(self) -> float | None:
        return self.hold / self.coin_in if self.coin_in else None

    @property
    def theo_pct(self) -> float | None:
        return float(self.expected / self.coin_in_attributed) if self.coin_in_attributed else None

    @property
    def coin_in_unattributed(self) -> int:
        return self.coin_in - self.coin_in_attributed

    @property
    def games_unattributed(self) -> int:
        return (self.meters["games_played"] or 0) - self.games_attributed

    @property
    def hold_variance(self) -> int:
        """Actual hold − theoretical hold (whole won)."""
        return self.hold - self.theo_won

    @property
    def sd(self) -> float:
        """Standard deviation of the hold (won) under the par sheet."""
        return math.sqrt(self.variance)

    @property
    def z(self) -> float | None:
        """(actual hold − E[hold]) / SD[hold]; None without attributed play or with unattributed coin-in."""
        if self.variance <= 0 or self.coin_in_unattributed:
            return None  # no play, or the meters' hold mixes in play without a par sheet figure
        return float(self.hold - self.expected) / self.sd

    def flagged(self, k: float, min_games: int) -> bool:
        z = self.z
        return z is not None and abs(z) > k and (self.meters["games_played"] or 0) >= min_games

    def to_dict(self, k: float, min_games: int) -> dict[str, Any]:
        z = self.z
        return {**{m: self.meters[m] for m in METERS}, "hold": self.hold, "hold_pct": self.hold_pct,
                "theo_won": self.theo_won, "theo_milli": self.theo_milli, "theo_pct": self.theo_pct,
                "hold_variance": self.hold_variance, "expected_hold": float(self.expected),
                "sd_hold": self.sd if self.variance > 0 else None, "z": z, "flagged": self.flagged(k, min_games),
                "coin_in_unattributed": self.coin_in_unattributed, "games_unattributed": self.games_unattributed}


@dataclass
class Part:
    """One machine's play in one configuration."""

    asset: str
    game_id: str
    variation: str
    denomination: int
    figures: Figures = field(default_factory=Figures)


@dataclass
class MachineDay:
    asset: str
    bank: str
    zone: str
    parts: list[Part]
    figures: Figures
    exceptions: list[dict[str, Any]]

    @property
    def games(self) -> list[str]:
        return sorted({p.game_id for p in self.parts})


@dataclass
class RollUp:
    """Figures of a group: ``level`` (bank, zone, game, floor), its ``key`` and the machines in it."""

    level: str
    key: str
    machines: list[str]
    figures: Figures


@dataclass
class DayClose:
    """The day's figures. ``machines`` in asset order; ``banks``/``zones``/``games`` in key order; ``floor``;
    ``k`` and ``min_games`` the flag's parameters."""

    machines: list[MachineDay]
    banks: list[RollUp]
    zones: list[RollUp]
    games: list[RollUp]
    floor: RollUp
    k: float
    min_games: int

    def flagged(self) -> list[MachineDay]:
        """Machines outside ±k SD of their theoretical hold."""
        return [m for m in self.machines if m.figures.flagged(self.k, self.min_games)]

    def machine(self, asset: str) -> MachineDay:
        for m in self.machines:
            if m.asset == asset:
                return m
        raise KeyError(asset)

    def to_dict(self) -> dict[str, Any]:
        k, g = self.k, self.min_games

        def roll(r: RollUp) -> dict[str, Any]:
            return {r.level: r.key, "machines": len(r.machines), **r.figures.to_dict(k, g)}

        return {
            "k": k, "min_games": g,
            "machines": [{"asset": m.asset, "bank": m.bank, "zone": m.zone, "games": ",".join(m.games),
                          **m.figures.to_dict(k, g), "exceptions": [dict(e) for e in m.exceptions]}
                         for m in self.machines],
            "parts": [{"asset": m.asset, "game": p.game_id, "variation": p.variation, "denomination": p.denomination,
                       **p.figures.to_dict(k, g)} for m in self.machines for p in m.parts],
            "banks": [roll(r) for r in self.banks], "zones": [roll(r) for r in self.zones],
            "games": [roll(r) for r in self.games], "floor": roll(self.floor),
            "flagged": [m.asset for m in self.flagged()],
        }


# ---------------------------------------------------------------------------------------------- segments
def _meters_of(s: Snapshot) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for m in METERS:
        v = s.meters.get(m)
        if v is None:
            if m in REQUIRED_METERS:
                raise DayCloseError(f"snapshot {s.kind} at {s.at.isoformat()} has no {m} meter", asset=s.asset, meter=m)
            out[m] = None
        elif isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise DayCloseError(f"meter {m} must be an integer ≥ 0", asset=s.asset, meter=m, value=v)
        else:
            out[m] = v
    return out


def segments(snapshots: Sequence[Snapshot]) -> list[Segment]:
    """The segments of ONE machine's snapshots (recorded order). Raises :class:`DayCloseError` for a meter
    that decreased, snapshots of several machines, time stamps out of order or naive."""
    if not snapshots:
        return []
    asset = snapshots[0].asset
    out = []
    for s in snapshots:
        if s.asset != asset:
            raise DayCloseError(f"snapshot of {s.asset} among this machine's", asset=asset)
        if s.at.tzinfo is None:
            raise DayCloseError("snapshot time stamps must be aware (UTC)", asset=asset)
    for a, b in zip(snapshots, snapshots[1:]):
        if b.at < a.at:
            raise DayCloseError(f"snapshots out of time order ({a.at.isoformat()} then {b.at.isoformat()})", asset=asset)
        ma, mb = _meters_of(a), _meters_of(b)
        deltas: dict[str, int | None] = {}
        for m in METERS:
            start, end = ma[m], mb[m]
            if start is None or end is None:
                deltas[m] = None
                continue
            d = end - start
            if d < 0:
                raise DayCloseError(f"meter {m} went backwards from {start} to {end} between {a.kind} at "
                                    f"{a.at.isoformat()} and {b.kind} at {b.at.isoformat()}", asset=asset, meter=m,
                                    start=start, end=end)
            deltas[m] = d
        seg = Segment(asset, a.at, b.at, a.game_id, a.variation, a.denomination, deltas, a.config != b.config)
        out.append(seg)
    return out


# ---------------------------------------------------------------------------------------------- options
def _option_figures(sheet: ParSheet, play: OptionPlay) -> tuple[Fraction, float]:
    """(RTP, SD) of the option played (the free-games choice's when given)."""
    try:
        of = sheet.option(lines=play.lines, reels=play.reels, multiplier=play.multiplier)
    except KeyError:
        raise DayCloseError(f"{play.game_id}/{play.variation} has no bet option lines={play.lines} "
                            f"reels={play.reels} multiplier={play.multiplier}", asset=play.asset) from None
    if play.choice is None or not of.by_choice:
        return of.rtp, of.sd
    for c in of.by_choice:
        if c.choice == play.choice:
            return c.rtp, c.sd
    raise DayCloseError(f"{play.game_id}/{play.variation} has no free-games choice {play.choice}", asset=play.asset)


def _theoretical(figs: Figures, plays: Iterable[OptionPlay], par: Callable[[str, str], ParSheet]) -> None:
    milli = 0
    for p in plays:
        if p.games < 0 or p.coin_in < 0:
            raise DayCloseError("option play must not be negative", asset=p.asset)
        if not p.games:
            continue
        rtp, sd = _option_figures(par(p.game_id, p.variation), p)
        edge = 1 - rtp
        milli += theoretical_milli(p.coin_in, edge)
        figs.expected += p.coin_in * edge
        figs.variance += (p.coin_in * p.coin_in / p.games) * sd * sd
        figs.coin_in_attributed += p.coin_in
        figs.games_attributed += p.games
    figs.theo_milli = milli
    figs.theo_won = milli_to_won_floor_signed(milli)


# ---------------------------------------------------------------------------------------------- the close
def close_day(machines: Iterable[MachineInfo], snapshots: Iterable[Snapshot], plays: Iterable[OptionPlay],
              par: Callable[[str, str], ParSheet], *, k: float = DEFAULT_K, min_games: int = 1) -> DayClose:
    """The day close of the floor (see the module docstring).

    ``snapshots`` of every machine in recorded order (they may be interleaved across machines); ``plays`` the
    option play per machine and configuration; ``par(game_id, variation)`` the exact par sheet. Returns a
    :class:`DayClose`. Raises :class:`DayCloseError` (a meter went backwards, a machine without snapshots,
    snapshots or play of a machine not in ``machines``, an unknown bet option) and ``ValueError`` for ``k`` ≤ 0.
    """
    if k <= 0:
        raise ValueError("k must be positive")
    info = {m.asset: m for m in machines}
    snaps: dict[str, list[Snapshot]] = defaultdict(list)
    for s in snapshots:
        if s.asset not in info:
            raise DayCloseError("snapshot of a machine not on the floor list", asset=s.asset)
        snaps[s.asset].append(s)
    play_by: dict[str, dict[tuple[str, str, int], list[OptionPlay]]] = defaultdict(lambda: defaultdict(list))
    for p in plays:
        if p.asset not in info:
            raise DayCloseError("option play of a machine not on the floor list", asset=p.asset)
        play_by[p.asset][p.config].append(p)

    days: list[MachineDay] = []
    for asset in sorted(info):
        mi = info[asset]
        ss = snaps.get(asset)
        if not ss:
            raise DayCloseError("no meter snapshot for the day", asset=asset)
        exceptions: list[dict[str, Any]] = []
        if ss[0].kind not in OPENING_KINDS:
            exceptions.append({"code": "no_opening_snapshot", "detail": f"first snapshot is {ss[0].kind}",
                               "at": ss[0].at.isoformat()})
        if ss[-1].kind not in CLOSING_KINDS:
            exceptions.append({"code": "no_closing_snapshot", "detail": f"last snapshot is {ss[-1].kind}",
                               "at": ss[-1].at.isoformat()})
        parts: dict[tuple[str, str, int], Part] = {}
        for seg in segments(ss):
            if seg.configuration_changed and seg.has_play:
                exceptions.append({"code": "configuration_changed_in_segment",
                                   "detail": "play between two snapshots of different configurations, counted in "
                                             f"{seg.game_id}/{seg.variation} at ₩{seg.denomination:,}",
                                   "at": seg.end.isoformat()})
            part = parts.get(seg.config)
            if part is None:
                part = parts[seg.config] = Part(asset, *seg.config)
            f = part.figures
            for m in METERS:
                a, d = f.meters[m], seg.deltas[m]
                f.meters[m] = None if a is None or d is None else a + d
        own_play = play_by.get(asset, {})
        for g, v, d in sorted(set(own_play) - set(parts)):
            exceptions.append({"code": "play_without_segment",
                               "detail": f"option play recorded for {g}/{v} at ₩{d:,}, which no segment shows"})
        total = Figures()
        for cfg in sorted(parts):
            part = parts[cfg]
            _theoretical(part.figures, own_play.get(cfg, ()), par)
            f = part.figures
            if f.coin_in_unattributed or f.games_unattributed:
                exceptions.append({"code": "unattributed_play",
                                   "detail": f"{cfg[0]}/{cfg[1]}: coin-in ₩{f.coin_in_unattributed:,} and "
                                             f"{f.games_unattributed} games not attributed to a bet option"})
            total.add(f)
        days.append(MachineDay(asset, mi.bank, mi.zone, [parts[c] for c in sorted(parts)], total, exceptions))

    def rollup(level: str, key_of: Callable[[MachineDay, Part], str]) -> list[RollUp]:
        groups: dict[str, RollUp] = {}
        for md in days:
            for p in md.parts:
                key = key_of(md, p)
                r = groups.get(key)
                if r is None:
                    r = groups[key] = RollUp(level, key, [], Figures())
                if md.asset not in r.machines:
                    r.machines.append(md.asset)
                r.figures.add(p.figures)
        return [groups[k_] for k_ in sorted(groups)]

    floor = rollup("floor", lambda md, p: "floor")
    return DayClose(days, rollup("bank", lambda md, p: md.bank), rollup("zone", lambda md, p: md.zone),
                    rollup("game", lambda md, p: p.game_id),
                    floor[0] if floor else RollUp("floor", "floor", [], Figures()), k, min_games)


def meters_vs_ledger(day: DayClose, movements: Mapping[str, tuple[int, int]]) -> list[dict[str, Any]]:
    """Each machine's meters against its ledger accounts' movements of the same gaming day.

    ``movements``: account code → (debits, credits), both ≥ 0 won (``chart.account_movements``). Compared:
    actual hold vs credits − debits of ``machine:<asset>:hold``; bills in vs the debits of
    ``machine:<asset>:drop`` (its credits are drops taken to the count room). Returns one row per machine and
    figure: ``{"asset", "figure", "meters", "ledger", "difference" (meters − ledger)}``; a difference is an
    exception for the auditor, never a correction."""
    rows = []
    for m in day.machines:
        d_hold, c_hold = movements.get(accounts.machine_hold(m.asset), (0, 0))
        d_drop, _ = movements.get(accounts.machine_drop(m.asset), (0, 0))
        bills = m.figures.meters["bills_in"]
        for figure, meters, ledger in (("hold", m.figures.hold, c_hold - d_hold), ("bills_in", bills, d_drop)):
            if meters is None:
                continue
            rows.append({"asset": m.asset, "figure": figure, "meters": meters, "ledger": ledger,
                         "difference": meters - ledger})
    return rows
