"""Closing a gaming day: the floor's meter read, each machine's snapshots of the day, and the figures an auditor
signs, put together from the pure rules (``day_close``, ``chart``, ``liabilities``, ``drop``). Pure.

The meter read
--------------
A gaming day *D* is closed from one **meter read**: every machine's meters and configuration read at one
instant ``T_D`` at or just after the day's end (the beat reads them as the day ends; a close that finds no read
makes it). The read takes the machines' rows under a lock, so every game, bill, ticket and award committed
before ``T_D`` is in the read and none after it: a machine's day is the play between the read of the previous
day ``T_{D-1}`` and ``T_D``, and its ledger postings in ``[T_{D-1}, T_D)`` are the same play. Play between the
day's end and ``T_D`` (seconds, normally) is counted in *D*; a read later than ``late_after_s`` after the day's
end is an exception of the day (``late_meter_read``), never silently moved.

Reads go in gaming-day order: the read of *D* needs the read of *D − 1* (or no read at all: the first close of
the floor), and *D* is closed only once *D − 1* is (:func:`check_read_order`, :func:`check_close_order`).

A machine's snapshots of *D*
----------------------------
Opening: its snapshot in the read of *D − 1*; a machine with none (enrolled since, or the first close of the
floor) opens at its enrolment with every meter at zero (the machines table starts every meter at zero:
:func:`enrol_snapshot`); when that enrolment is before the day's start the machine's meters since enrolment are
counted in *D* and say so (``opened_at_enrolment``). Then the floor's own snapshots after ``T_{D-1}`` and
before ``T_D`` (game, variation or denomination changes; a retirement, which closes the machine's day); closing:
its snapshot in the read of *D* (``day_close``).

The bet options played in each segment are the game recall's rounds whose game numbers lie between the
segment's two snapshots' ``game_seq`` meters (:func:`segment_ranges`): exact, as the game number and the
meters change in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from slotsys.accounting.domain.chart import JournalSummary
from slotsys.accounting.domain.day_close import (
    CLOSING_KINDS, DEFAULT_K, MachineInfo, OptionPlay, Snapshot, close_day, meters_vs_ledger,
)
from slotsys.accounting.domain.drop import StackerCount, Variance
from slotsys.kernel.gaming_day import GamingDay
from slotsys.floor.domain.admin import SNAPSHOT_METERS
from slotsys.floor.domain.parsheet import ParSheet
from slotsys.kernel.errors import Conflict

__all__ = ["MeterRead", "FloorMachine", "DayMachine", "ClosedDay", "ClosedMachine", "RecordedVariance",
           "RecordedCount", "DayFigures", "enrol_snapshot", "check_read_order", "check_close_order",
           "segment_ranges", "assemble", "DAY_CLOSE", "ENROL"]

DAY_CLOSE, ENROL = "day_close", "enrol"


@dataclass(frozen=True)
class MeterRead:
    """The meter read of gaming ``day``: instant ``at`` (UTC), who made it (``actor``: a staff user, or
    ``system`` for the beat) and how many machines it read."""

    day: date
    at: datetime
    actor: str
    machines: int


@dataclass(frozen=True)
class FloorMachine:
    """A machine as the floor keeps it at the read: id, asset number, zone, bank, configuration, enrolment time
    and every meter (``slotsys.floor.domain.admin.SNAPSHOT_METERS``: won, counts and ``game_seq``)."""

    machine_id: int
    asset: str
    zone: str
    bank: str
    game_id: str
    variation: str
    denomination: int
    created_at: datetime
    meters: Mapping[str, int]

    def snapshot(self, at: datetime) -> Snapshot:
        return Snapshot(self.asset, at, DAY_CLOSE, self.game_id, self.variation, self.denomination, dict(self.meters))


@dataclass(frozen=True)
class DayMachine:
    """A machine of the day being closed: ``zone`` and ``bank`` as at the read (or its retirement),
    ``snapshots`` of the day in recorded order, opening first (see the module docstring), and
    ``opened_at_enrolment``: its opening is its enrolment (no earlier read has it)."""

    machine_id: int
    asset: str
    zone: str
    bank: str
    created_at: datetime
    snapshots: tuple[Snapshot, ...]
    opened_at_enrolment: bool = False

    @property
    def info(self) -> MachineInfo:
        return MachineInfo(self.asset, self.bank, self.zone)


@dataclass(frozen=True)
class ClosedDay:
    """A closed gaming day: who closed it (``closed_by``, ``closed_role``; ``system`` for the beat) and when,
    the read it was closed from (``read_at``) and the previous day's (``opened_at``; None for the floor's first
    close), and its ``figures`` (:func:`assemble`: roll-ups, journal, ties, liabilities, accountability)."""

    day: date
    closed_at: datetime
    closed_by: str
    closed_role: str
    read_at: datetime
    opened_at: datetime | None
    figures: Mapping[str, Any]


@dataclass(frozen=True)
class ClosedMachine:
    """One machine's row of a closed day: its figures (``DayClose.to_dict()["machines"]`` row) with its
    ``parts`` (per configuration) and ``ties`` (meters against the ledger)."""

    day: date
    asset: str
    zone: str
    bank: str
    figures: Mapping[str, Any]


@dataclass(frozen=True)
class RecordedVariance:
    """A variance as kept (``id``), with the drop count it came from (``count_id``; None for a shift count)."""

    id: int
    variance: Variance
    count_id: int | None = None


@dataclass(frozen=True)
class RecordedCount:
    id: int
    count: StackerCount


@dataclass
class DayFigures:
    """What a close stores: the day's ``figures`` and one row per machine (``machines``), and the variances of
    the cage and kiosk shift counts (``shift_variances``)."""

    figures: dict[str, Any]
    machines: list[ClosedMachine]
    shift_variances: list[Variance] = field(default_factory=list)


def enrol_snapshot(asset: str, created_at: datetime, game_id: str, variation: str, denomination: int) -> Snapshot:
    """A machine's opening at its enrolment: every meter zero (the machines table starts them at zero)."""
    return Snapshot(asset, created_at, ENROL, game_id, variation, denomination, {m: 0 for m in SNAPSHOT_METERS})


def check_read_order(day: date, latest: MeterRead | None) -> None:
    """The read of ``day`` may be taken after ``latest`` (the latest read so far). Raises :class:`Conflict`
    (field ``day``) when a later day was read already or a day between them was never read."""
    if latest is None or latest.day == day - timedelta(days=1):
        return
    if latest.day >= day:
        raise Conflict(f"the meters of a later gaming day ({latest.day.isoformat()}) were read already: "
                       f"{day.isoformat()} can no longer be closed", field="day")
    raise Conflict(f"close gaming day {(latest.day + timedelta(days=1)).isoformat()} first: days are closed in "
                   "order", field="day")


def check_close_order(day: date, previous: MeterRead | None, previous_closed: bool) -> None:
    """``day`` may be closed when the previous read (of ``day − 1``) belongs to a closed day, or there is none.
    Raises :class:`Conflict` (field ``day``)."""
    if previous is not None and not previous_closed:
        raise Conflict(f"close gaming day {previous.day.isoformat()} first: days are closed in order", field="day")


def segment_ranges(snapshots: Sequence[Snapshot]) -> list[tuple[tuple[str, str, int], int, int]]:
    """``(configuration, first game number, last game number)`` of each segment of ONE machine's snapshots with
    games in it: the rounds ``game_seq`` of the start snapshot < game number ≤ ``game_seq`` of the end."""
    out = []
    for a, b in zip(snapshots, snapshots[1:]):
        lo, hi = int(a.meters.get("game_seq", 0) or 0), int(b.meters.get("game_seq", 0) or 0)
        if hi > lo:
            out.append((a.config, lo + 1, hi))
    return out


def _option_plays(asset: str, config: tuple[str, str, int], rows: Iterable[tuple[Any, ...]]) -> list[OptionPlay]:
    return [OptionPlay(asset, config[0], config[1], config[2], lines, reels, multiplier, games, coin_in, choice)
            for lines, reels, multiplier, choice, games, coin_in in rows]


def assemble(gd: GamingDay, day: date, read: MeterRead, previous: MeterRead | None, machines: Sequence[DayMachine],
             plays: Mapping[str, Sequence[tuple[tuple[str, str, int], Sequence[tuple[Any, ...]]]]],
             par: Callable[[str, str], ParSheet], *, movements: Mapping[str, tuple[int, int]], journal: JournalSummary,
             liabilities: dict[str, Any], accountability: dict[str, Any], shift_variances: Iterable[Variance] = (),
             k: float = DEFAULT_K, min_games: int = 1, late_after_s: float = 600.0) -> DayFigures:
    """The figures of gaming ``day`` closed from ``read`` (``previous``: the read it opens from).

    ``plays``: asset → [(configuration, rows of ``(lines, reels, multiplier, choice, games, coin-in)``)] per
    segment; ``movements``: ledger account → (debits, credits) in ``[previous.at, read.at)``; ``journal``: the
    gaming day's journal per GL account (its bounds); ``liabilities``: ``liabilities.liabilities_report``;
    ``accountability``: ``drop.shift_accountability``. Raises ``day_close.DayCloseError`` (a meter that went
    backwards …): the day is not closed until it is explained."""
    option_plays = [p for asset, segs in plays.items() for config, rows in segs for p in _option_plays(asset, config, rows)]
    dc = close_day([m.info for m in machines], [s for m in machines for s in m.snapshots], option_plays,
                   lambda g, v: par(g, v or ""), k=k, min_games=min_games)
    ties = meters_vs_ledger(dc, movements)
    d = dc.to_dict()
    start, end = gd.bounds(day)
    by_asset = {m.asset: m for m in machines}
    rows = []
    for r in d["machines"]:
        m = by_asset[r["asset"]]
        exceptions = list(r["exceptions"])
        if m.opened_at_enrolment and m.created_at < start:
            exceptions.insert(0, {"code": "opened_at_enrolment",
                                  "detail": f"no earlier meter read has this machine: its meters since its enrolment "
                                            f"at {gd.format(m.created_at)} are counted in this day",
                                  "at": m.created_at.isoformat()})
        last = m.snapshots[-1]
        row = {**r, "exceptions": exceptions, "opened_at": m.snapshots[0].at.isoformat(), "closed_at": last.at.isoformat(),
               "retired": last.kind in CLOSING_KINDS and last.kind != DAY_CLOSE,
               "parts": [p for p in d["parts"] if p["asset"] == r["asset"]],
               "ties": [t for t in ties if t["asset"] == r["asset"]]}
        rows.append(ClosedMachine(day, r["asset"], r["zone"], r["bank"], row))
    day_exceptions = []
    late = (read.at - end).total_seconds()
    if late > late_after_s:
        day_exceptions.append({"code": "late_meter_read",
                               "detail": f"the meters were read at {gd.format(read.at)}, {late:,.0f} s after the "
                                         "gaming day ended: play in between is counted in this day",
                               "at": read.at.isoformat()})
    tie_diffs = [t for t in ties if t["difference"] != 0]
    figures = {
        "k": d["k"], "min_games": d["min_games"], "floor": d["floor"], "zones": d["zones"], "banks": d["banks"],
        "games": d["games"], "flagged": d["flagged"], "machines": len(rows),
        "exceptions": day_exceptions,
        "machine_exceptions": sum(len(r.figures["exceptions"]) for r in rows),
        "ties": {"rows": len(ties), "agree": not tie_diffs,
                 "differences": [{k_: t[k_] for k_ in ("asset", "figure", "difference")} for t in tie_diffs]},
        "journal": journal.to_dict(), "liabilities": liabilities, "accountability": accountability,
        "read": {"at": read.at.isoformat(), "actor": read.actor, "machines": read.machines},
        "opened": previous.at.isoformat() if previous else None,
        "bounds": {"start": start.isoformat(), "end": end.isoformat()},
    }
    return DayFigures(figures, rows, list(shift_variances))
