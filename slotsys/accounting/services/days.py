"""The gaming-day close as use cases: read the floor's meters as a day ends, close the day an auditor signs, read
its report, journal and documents. Rules: ``slotsys.accounting.domain.closing`` (the read and its order),
``day_close`` (the figures), ``chart``, ``liabilities``, ``drop`` (accountability), ``report`` (the documents).

A close runs in three transactions, so that games are held back only for the milliseconds of the read:

1. the **meter read** (if the day has none yet): every machine's row locked ``FOR SHARE``, its meters copied at
   one instant (``uow.day_close.add_read``);
2. the **figures**, read from one database snapshot (REPEATABLE READ) of immutable inputs — the two reads, the
   floor's snapshots between them, the game recall's rounds by game number, the ledger's entries by time — and
   of the sub-ledgers as they stand now (tickets, jackpot meters, wallets, points);
3. the **record**: the closed day and its machine rows, the cage shift variances, the audit-log entry,
   under the accounting lock; a day closed meanwhile (a concurrent close) is returned as it was.

Roles: closing needs ``auditor`` (or the beat, as ``system``); reading needs ``auditor`` or ``supervisor``
(admin holds every role). Errors: :class:`Conflict` (409, field ``day``: the day has not ended, an earlier day
is not closed yet, a meter went backwards …), :class:`NotFound` (404, field ``day``: not closed),
:class:`ValidationFailed` (422: a bad cursor or filter).
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import date, datetime, timedelta
from typing import Any

import structlog

from slotsys.accounting.domain import chart
from slotsys.accounting.domain.charts import (
    HoldPoint, HourBucket, LevelHistory, LevelHit, hold_band, hourly_coin_in, value_history,
)
from slotsys.accounting.domain.closing import (
    ClosedDay, DayFigures, DayMachine, MeterRead, assemble, check_close_order, check_read_order, enrol_snapshot,
    segment_ranges,
)
from slotsys.accounting.domain.day_close import DayCloseError
from slotsys.accounting.domain.drop import shift_accountability, variance_summary
from slotsys.kernel.gaming_day import GamingDay
from slotsys.accounting.domain.liabilities import (
    jackpot_liability, liabilities_report, points_liability, ticket_liability, wallet_liability,
)
from slotsys.accounting.domain.report import Document, day_report_of, journal_document_of
from slotsys.accounting.services.ports import AccountingUnitOfWork, DaySourceReads, ParSheets
from slotsys.accounting.services.results import (
    CloseDueResult, ClosedDayItem, ClosedDayList, DayCloseResult, DayReport, JournalResult, MeterReadResult,
)
from slotsys.accounting.settings import AccountingSettings
from slotsys.kernel import accounts, audit_log
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once

log = structlog.get_logger("slotsys.accounting")

CLOSERS = ("auditor",)
READERS = ("auditor", "supervisor")
MAX_PAGE = 500


def _cursor(asset: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"after": asset}).encode()).decode().rstrip("=")


def _after(cursor: str | None) -> str | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        after = json.loads(raw)["after"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise ValidationFailed("cursor is not one this list returned", field="cursor") from None
    if not isinstance(after, str):
        raise ValidationFailed("cursor is not one this list returned", field="cursor")
    return after


class DayCloseService:
    """Meter reads, day closes and closed days' reads (see the module docstring). ``gaming_day``: THE gaming-day
    policy of the floor; ``par_sheets``: the floor's exact par sheets; ``settings``: the beat's timing and the
    theoretical-hold flag."""

    def __init__(self, ctx: ServiceContext, *, gaming_day: GamingDay, par_sheets: ParSheets,
                 settings: AccountingSettings) -> None:
        self.ctx = ctx
        self.gd = gaming_day
        self.par_sheets = par_sheets
        self.settings = settings

    # ------------------------------------------------------------------ the meter read
    def _ended(self, day: date) -> datetime:
        end = self.gd.bounds(day)[1]
        if self.ctx.clock.now() < end:
            raise Conflict(f"gaming day {day.isoformat()} has not ended: it ends at {self.gd.format(end)}", field="day")
        return end

    def read_meters(self, principal: Principal | None, day: date) -> MeterReadResult:
        """The meter read of gaming ``day``, taken now if it has none (``Conflict`` when the day has not ended or
        the reads would go out of order). Idempotent: a read once taken is returned as it is."""
        if principal is not None:
            require_role(principal, *CLOSERS)
        end = self._ended(day)
        actor = principal.name if principal else "system"
        with self.ctx.uow() as uow:
            uow.day_close.lock()
            read = uow.day_close.read(day)
            if read is None:
                check_read_order(day, uow.day_close.latest_read())
                machines = uow.day_sources.lock_floor(created_before=end)
                read = MeterRead(day, self.ctx.clock.now(), actor, len(machines))  # after the lock: see closing.py
                uow.day_close.add_read(read, machines)
                uow.commit()
                log.info("accounting.meters_read", day=day.isoformat(), machines=len(machines),
                         late_s=round((read.at - end).total_seconds(), 3))
        return MeterReadResult(day=read.day, at=read.at, actor=read.actor, machines=read.machines)

    # ------------------------------------------------------------------ the figures
    def _machines(self, uow: AccountingUnitOfWork, day: date, read: MeterRead, previous: MeterRead | None) -> list[DayMachine]:
        src, records = uow.day_sources, uow.day_close
        end = self.gd.bounds(day)[1]
        snaps = records.read_snapshots(day)
        prev = records.read_snapshots(previous.day) if previous else {}
        after = previous.at if previous else None
        retired = [mid for mid in src.retired_between(after, read.at) if mid not in snaps]
        info = src.machines([*snaps, *retired])
        retired = [mid for mid in retired if info[mid].created_at < end]
        own = src.floor_snapshots([*snaps, *retired], after, read.at)
        out = []
        for mid in [*snaps, *retired]:
            fm = info[mid]
            between = own.get(mid, [])
            closing = snaps[mid][0] if mid in snaps else None
            if closing is None and not (between and between[-1].kind == "retire"):
                continue  # retired without its final snapshot: nothing the close can count
            if mid in prev:
                opening, at_enrolment = prev[mid][0], False
            else:
                first = between[0] if between and between[0].kind == "game_change_before" else (closing or between[-1])
                opening = enrol_snapshot(fm.asset, fm.created_at, first.game_id, first.variation, first.denomination)
                at_enrolment = True
            zone, bank = (snaps[mid][1], snaps[mid][2]) if mid in snaps else (fm.zone, fm.bank)
            seq = (opening, *between, *((closing,) if closing is not None else ()))
            out.append(DayMachine(mid, fm.asset, zone, bank, fm.created_at, seq, at_enrolment))
        return sorted(out, key=lambda m: m.asset)

    def _liabilities(self, src: DaySourceReads, as_of: datetime) -> dict[str, Any]:
        balances = src.balances(codes=[accounts.TICKETS_OUTSTANDING], codes_like=["jackpot:%"])
        tickets = ticket_liability(src.outstanding_tickets(as_of), as_of, balances.get(accounts.TICKETS_OUTSTANDING, 0),
                                   self.gd)
        jackpots = jackpot_liability(src.jackpot_levels(), balances)
        wallets = wallet_liability(src.wallets())
        players, promo, cash = src.points()
        points = points_liability(players, promo_won_per_point=promo, cash_won_per_point=cash)
        return {**liabilities_report(tickets=tickets, jackpots=jackpots, wallets=wallets, points=points),
                "as_of": as_of.isoformat()}

    def _figures(self, day: date, read: MeterRead, previous: MeterRead | None) -> DayFigures:
        start, end = self.gd.bounds(day)
        with self.ctx.uow(readonly=True) as uow:
            src = uow.day_sources
            src.consistent()
            machines = self._machines(uow, day, read, previous)
            plays = {m.asset: [(cfg, src.option_play(m.machine_id, lo, hi)) for cfg, lo, hi in segment_ranges(m.snapshots)]
                     for m in machines}
            since = previous.at if previous else None
            ties = {code: (d, c) for code, d, c, _ in src.movements(since, read.at, codes_like="machine:%")}
            journal = chart.summarise_totals(src.movements(start, end), entries=src.entries(start, end))
            as_of = self.ctx.clock.now()
            liabilities = self._liabilities(src, as_of)
            shifts = self.gd.shifts(day)
            drawers = src.drawer_shifts(day, shifts, as_of)
            accountability = shift_accountability([*drawers, *src.kiosk_shifts(day, shifts)])
            shift_variances = [v for v in (a.as_variance() for a in drawers) if v is not None]
        try:
            return assemble(self.gd, day, read, previous, machines, plays, self.par_sheets.par_sheet,
                            movements=ties, journal=journal, liabilities=liabilities, accountability=accountability,
                            shift_variances=shift_variances, k=self.settings.flag_k,
                            min_games=self.settings.flag_min_games, late_after_s=self.settings.late_read_after_s)
        except DayCloseError as e:
            raise Conflict(f"gaming day {day.isoformat()} cannot be closed: {e}", field="meters", asset=e.asset,
                           **{k: v for k, v in e.detail.items() if isinstance(v, (int, str))}) from None
        except chart.UnmappedAccount as e:
            raise Conflict(f"gaming day {day.isoformat()} cannot be closed: ledger account {e.code!r} has no GL "
                           "account in the chart of accounts", field="journal", account=e.code) from None

    # ------------------------------------------------------------------ the close
    @staticmethod
    def _result(c: ClosedDay, newly: bool) -> DayCloseResult:
        f = c.figures
        floor = f["floor"]
        return DayCloseResult(
            day=c.day, newly_closed=newly, closed_at=c.closed_at, closed_by=c.closed_by, read_at=c.read_at,
            opened_at=c.opened_at, machines=f["machines"], coin_in=floor["coin_in"], coin_out=floor["coin_out"],
            hold=floor["hold"], theo_hold=floor["theo_won"], jackpots=floor["jackpot_out"] or 0,
            bills_in=floor["bills_in"], flagged=f["flagged"],
            exceptions=f["machine_exceptions"] + len(f["exceptions"]), ties_agree=f["ties"]["agree"],
            journal_balanced=f["journal"]["balanced"], liabilities_agree=f["liabilities"]["all_agree"])

    def close_day(self, principal: Principal, day: date, key: OnceKey) -> Once[DayCloseResult]:
        """Close gaming ``day`` (auditor; exactly once per Idempotency-Key). Closing a closed day returns it
        (``newly_closed`` False)."""
        require_role(principal, *CLOSERS)
        return self._close(principal, day, key)

    def close_day_as_system(self, day: date) -> DayCloseResult:
        """The beat's close of gaming ``day`` (actor ``system``)."""
        return self._close(None, day, None).result

    def _close(self, principal: Principal | None, day: date, key: OnceKey | None) -> Once[DayCloseResult]:
        self._ended(day)
        with self.ctx.uow(readonly=True) as uow:
            done = uow.day_close.closed(day) is not None
        figures: DayFigures | None = None
        read: MeterRead | None = None
        if not done:
            self.read_meters(principal, day)
            with self.ctx.uow(readonly=True) as uow:
                read = uow.day_close.read(day)
                previous = uow.day_close.read_before(day)
                check_close_order(day, previous, previous is not None and uow.day_close.closed(previous.day) is not None)
            assert read is not None
            figures = self._figures(day, read, previous)

        def fn(uow: AccountingUnitOfWork) -> DayCloseResult:
            uow.day_close.lock()
            closed = uow.day_close.closed(day)
            if closed is not None:
                return self._result(closed, False)
            assert figures is not None and read is not None  # only a day closed since the check above has none
            previous = uow.day_close.read_before(day)
            check_close_order(day, previous, previous is not None and uow.day_close.closed(previous.day) is not None)
            now = self.ctx.clock.now()
            closed = ClosedDay(day, now, principal.name if principal else "system",
                               (principal.role or principal.kind) if principal else "system", read.at,
                               previous.at if previous else None, figures.figures)
            if not uow.day_close.add_closed(closed, figures.machines):
                return self._result(uow.day_close.closed(day), False)
            uow.drops.add_variances(figures.shift_variances, at=now)
            floor = figures.figures["floor"]
            audit_log.record(uow, principal, "gaming_day.close", f"gaming_day:{day.isoformat()}",
                             after={"coin_in": floor["coin_in"], "hold": floor["hold"], "theo_hold": floor["theo_won"],
                                    "machines": figures.figures["machines"]},
                             detail={"read_at": read.at.isoformat(), "flagged": figures.figures["flagged"],
                                     "ties_agree": figures.figures["ties"]["agree"],
                                     "liabilities_agree": figures.figures["liabilities"]["all_agree"]}, at=now)
            log.info("accounting.day_closed", day=day.isoformat(), machines=figures.figures["machines"],
                     by=closed.closed_by)
            return self._result(closed, True)

        if key is not None:
            return run_once(self.ctx, key, fn, result=DayCloseResult)
        with self.ctx.uow() as uow:
            out = fn(uow)
            uow.commit()
        return Once(out, False)

    def close_due(self) -> CloseDueResult:
        """The beat: read the meters of every ended gaming day not read yet (oldest first, from the latest read,
        or yesterday on a floor never closed), and close each read day once ``close_after_s`` have passed since
        its end. At most a week of days per run."""
        now = self.ctx.clock.now()
        yesterday = self.gd.day_of(now) - timedelta(days=1)
        with self.ctx.uow(readonly=True) as uow:
            latest = uow.day_close.latest_read()
            first_open = latest.day if latest and uow.day_close.closed(latest.day) is None else None
        day = first_open or (latest.day + timedelta(days=1) if latest else yesterday)
        read, closed = [], []
        for _ in range(7):
            if day > yesterday:
                return CloseDueResult(read=read, closed=closed)
            with self.ctx.uow(readonly=True) as uow:
                has_read, is_closed = uow.day_close.read(day) is not None, uow.day_close.closed(day) is not None
            if not has_read:
                self.read_meters(None, day)
                read.append(day)
            if not is_closed:
                due = self.gd.bounds(day)[1] + timedelta(seconds=self.settings.close_after_s)
                if self.ctx.clock.now() < due:
                    return CloseDueResult(read=read, closed=closed, waiting=f"{day.isoformat()} closes at "
                                                                             f"{self.gd.format(due)}")
                self.close_day_as_system(day)
                closed.append(day)
            day += timedelta(days=1)
        return CloseDueResult(read=read, closed=closed, waiting="a week of days per run: the next run goes on")

    # ------------------------------------------------------------------ reads
    def _closed(self, uow: AccountingUnitOfWork, day: date) -> ClosedDay:
        closed = uow.day_close.closed(day)
        if closed is None:
            raise NotFound(f"gaming day {day.isoformat()} is not closed", field="day")
        return closed

    def closed_days(self, principal: Principal, *, cursor: str | None = None, limit: int = 31) -> ClosedDayList:
        """The closed gaming days, newest first, ``limit`` (1 … 500) a page from before ``cursor`` (the previous
        page's ``next_cursor``): what the reports screen offers to pick (auditor, supervisor)."""
        require_role(principal, *READERS)
        if not 1 <= limit <= MAX_PAGE:
            raise ValidationFailed(f"limit must be 1 … {MAX_PAGE}", field="limit")
        after = _after(cursor)
        try:
            before = date.fromisoformat(after) if after is not None else None
        except ValueError:
            raise ValidationFailed("cursor is not one this list returned", field="cursor") from None
        with self.ctx.uow(readonly=True) as uow:
            first = uow.day_close.first_closed_day()
            latest = uow.day_close.latest_read()
            last = before - timedelta(days=1) if before else (latest.day if latest else None)
            found = sorted(uow.day_close.closed_days(first, last), reverse=True) if first and last else []
        page = found[:limit]
        return ClosedDayList(days=[ClosedDayItem(day=d, label=self.gd.describe(d)) for d in page],
                             next_cursor=_cursor(page[-1].isoformat()) if len(found) > limit else None)

    def day_report(self, principal: Principal, day: date, *, zone: str | None = None, bank: str | None = None,
                   machine: str | None = None, cursor: str | None = None, limit: int = 100) -> DayReport:
        """A closed day's report (auditor, supervisor): machine rows in asset order, ``limit`` (1 … 500) a page
        from after ``cursor``; filters ``zone``, ``bank``, ``machine`` (asset). ``NotFound`` when not closed."""
        require_role(principal, *READERS)
        if not 1 <= limit <= MAX_PAGE:
            raise ValidationFailed(f"limit must be 1 … {MAX_PAGE}", field="limit")
        after = _after(cursor)
        with self.ctx.uow(readonly=True) as uow:
            c = self._closed(uow, day)
            rows = uow.day_close.machine_rows(day, zone=zone, bank=bank, asset=machine, after=after, limit=limit + 1)
            variances = uow.drops.variances(day=day)
        f = c.figures
        page = rows[:limit]
        return DayReport(
            day=day, label=self.gd.describe(day), zone=self.gd.zone, closed_at=c.closed_at, closed_by=c.closed_by,
            closed_role=c.closed_role, read_at=c.read_at, opened_at=c.opened_at, k=f["k"], min_games=f["min_games"],
            floor=f["floor"], zones=[z for z in f["zones"] if zone is None or z["zone"] == zone],
            banks=[b for b in f["banks"] if bank is None or b["bank"] == bank],
            games=f["games"], flagged=f["flagged"], exceptions=f["exceptions"], ties=f["ties"],
            journal={k: f["journal"][k] for k in ("total", "balanced", "entries")}, liabilities=f["liabilities"],
            accountability=f["accountability"], variances=variance_summary(r.variance for r in variances),
            machines=[dict(r.figures) for r in page],
            next_cursor=_cursor(page[-1].asset) if len(rows) > limit else None,
            filters={"zone": zone, "bank": bank, "machine": machine, "limit": limit})

    # ------------------------------------------------------------------ the charts' figures
    def hold_chart(self, principal: Principal, day: date, *, zone: str | None = None, bank: str | None = None,
                   machine: str | None = None) -> tuple[list[HoldPoint], float]:
        """Per machine of closed ``day`` (the report's filters, every matching machine, asset order): actual
        against theoretical hold with the band E[hold] ± k · SD[hold] (``charts.hold_band``); and k. Auditor,
        supervisor; ``NotFound`` when not closed."""
        require_role(principal, *READERS)
        with self.ctx.uow(readonly=True) as uow:
            c = self._closed(uow, day)
            rows = uow.day_close.machine_rows(day, zone=zone, bank=bank, asset=machine)
        k = float(c.figures["k"])
        return hold_band(({"asset": r.asset, **r.figures} for r in rows), k), k

    def coin_in_by_hour(self, principal: Principal, day: date, *, zone: str | None = None, bank: str | None = None,
                        machine: str | None = None) -> list[HourBucket]:
        """Coin-in and games per hour of closed ``day`` from the game recall (``charts.hourly_coin_in``), over the
        close's window: from the previous day's meter read (or the day's start on the floor's first close) to
        this day's read, so the hours sum to the recall's coin-in of the day's meters. Filters as the report's
        (the machines of the closed day's rows). Auditor, supervisor; ``NotFound`` when not closed."""
        require_role(principal, *READERS)
        start, _ = self.gd.bounds(day)
        with self.ctx.uow(readonly=True) as uow:
            c = self._closed(uow, day)
            assets = None
            if zone or bank or machine:
                assets = [r.asset for r in uow.day_close.machine_rows(day, zone=zone, bank=bank, asset=machine)]
            since = max(c.opened_at, start) if c.opened_at else start
            return hourly_coin_in(self.gd, day, uow.day_sources.round_coin_in(since, c.read_at, assets))

    def jackpot_history(self, principal: Principal, day: date, level: str) -> LevelHistory:
        """Jackpot ``level``'s visible value over closed ``day``: the staircase of its ledger account
        ``jackpot:<L>:liability`` (``charts.value_history``) and the day's hits. Auditor, supervisor;
        ``NotFound`` (field ``day``) when not closed, (field ``level``) for a level without that account."""
        require_role(principal, *READERS)
        start, end = self.gd.bounds(day)
        with self.ctx.uow(readonly=True) as uow:
            self._closed(uow, day)
            src = uow.day_sources
            history = src.account_history(accounts.jackpot_liability(level), start, end)
            if history is None:
                raise NotFound(f"jackpot level {level} has no ledger account", field="level")
            hits = [LevelHit(at, amount, value // 1000) for at, amount, value in src.level_hits(level, start, end)]
        opening, moves = history
        return value_history(level, self.gd, day, opening, moves, hits)

    def journal(self, principal: Principal, day: date) -> JournalResult:
        """The closed day's journal per GL account (auditor, supervisor)."""
        require_role(principal, *READERS)
        with self.ctx.uow(readonly=True) as uow:
            j = self._closed(uow, day).figures["journal"]
        return JournalResult(day=day, label=self.gd.describe(day), rows=j["rows"], total=j["total"],
                             balanced=j["balanced"], entries=j["entries"])

    def document(self, principal: Principal, day: date, kind: str = "day_report") -> Document:
        """The document an auditor signs for a closed day (auditor, supervisor): ``day_report`` (every section:
        figures, exceptions, ties, drop variances as they stand now, accountability, liabilities, journal) or
        ``journal`` (the journal summary with the chart of accounts). The writers (XLSX, PDF, CSV) render it."""
        require_role(principal, *READERS)
        if kind not in ("day_report", "journal"):
            raise ValidationFailed("document must be day_report or journal", field="document")
        with self.ctx.uow(readonly=True) as uow:
            c = self._closed(uow, day)
            rows = uow.day_close.machine_rows(day) if kind == "day_report" else []
            variances = uow.drops.variances(day=day, limit=100_000) if kind == "day_report" else []
        f = c.figures
        notes = [("마감 Closed by", f"{c.closed_by} ({c.closed_role}), {self.gd.format(c.closed_at)}"),
                 ("미터 판독 Meters read at", self.gd.format(c.read_at))]
        now = self.ctx.clock.now()
        if kind == "journal":
            return journal_document_of(self.gd, day, f["journal"], generated_at=now, notes=notes)
        machines = [dict(r.figures) for r in rows]
        d = {**f, "machines": machines}
        ties = [t for m in machines for t in m.get("ties", [])]
        day_exceptions = [{"asset": "—", **e} for e in f["exceptions"]]
        doc = day_report_of(self.gd, day, d, f["journal"], generated_at=now, ties=ties, liabilities=f["liabilities"],
                            drop=variance_summary(r.variance for r in variances), accountability=f["accountability"],
                            notes=notes)
        if day_exceptions:
            doc.section("exceptions").rows[:0] = day_exceptions
        return doc
