"""Accounting's repositories: its own append-only records (``DayCloseRepo``, ``DropRepo``) and the day's inputs
read from the other features' tables (``DaySources``).

``DaySources`` reads the floor's, the ticket system's, the jackpot controller's, the players' and the cage's
tables through **table clauses** (``sqlalchemy.table``: names and columns only, no ORM class of another
feature), and the kernel's ledger tables. It never writes them; the one lock it takes is the meter read's
``FOR SHARE`` on the machines' rows (PostgreSQL), which waits for games in progress and holds new ones back for
the milliseconds of the read (see ``slotsys.accounting.domain.closing``).

Every method returns domain records (frozen dataclasses of ``slotsys.accounting.domain``) or plain tuples.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from sqlalchemy import JSON, BigInteger, Integer, String, and_, case, column, func, or_, select, table, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from slotsys.accounting.adapters.tables import (
    ClosedDayMachine, ClosedGamingDay, CountVariance, DayMeterRead, DayMeterSnapshot, DropCount, DropScheduleRule,
    VarianceAcceptance,
)
from slotsys.accounting.domain.closing import (
    ClosedDay, ClosedMachine, FloorMachine, MeterRead, RecordedCount, RecordedVariance,
)
from slotsys.accounting.domain.day_close import Snapshot
from slotsys.accounting.domain.drop import (
    ACCEPTED, BALANCED, OPEN, CountedTicket, DropRule, DropSchedule, ShiftAccount, StackerCount, Variance,
)
from slotsys.kernel.gaming_day import Shift
from slotsys.accounting.domain.liabilities import LevelMeters, PlayerPoints, TicketRecord, WalletRecord
from slotsys.floor.domain.admin import SNAPSHOT_METERS
from slotsys.kernel import accounts
from slotsys.kernel.adapters.db import Account, JournalEntryRow, PostingRow, TZDateTime

__all__ = ["DayCloseRepo", "DropRepo", "DaySources", "ACCOUNTING_LOCK_KEY"]

# One advisory-lock key for every read and close of a gaming day (PostgreSQL): they run one at a time, in order.
ACCOUNTING_LOCK_KEY = int.from_bytes(b"SLOTACC1", "big")

_BIG = BigInteger()


def _pg(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


# ---------------------------------------------------------------------------------------------- other features' tables
_machines = table("machines", column("id", Integer), column("asset_number", String), column("zone", String),
                  column("bank", String), column("game_id", String), column("variation", String),
                  column("denomination", Integer), column("created_at", TZDateTime), column("retired_at", TZDateTime),
                  *(column(m, _BIG) for m in SNAPSHOT_METERS))
_floor_snapshots = table("machine_meter_snapshots", column("id", _BIG), column("machine_id", Integer),
                         column("asset_number", String), column("kind", String), column("at", TZDateTime),
                         column("game_id", String), column("variation", String), column("denomination", Integer),
                         column("meters", JSON))
_rounds = table("game_rounds", column("machine_id", Integer), column("game_number", _BIG), column("bet", JSON),
                column("bet_won", _BIG), column("outcome", JSON), column("created_at", TZDateTime))
_tickets = table("tickets", column("validation_number", String), column("type", String), column("amount", _BIG),
                 column("status", String), column("issued_at", TZDateTime), column("redeemed_at", TZDateTime),
                 column("voided_at", TZDateTime), column("redeemed_channel", String),
                 column("redeemed_location", String))
_levels = table("jackpot_levels", column("id", Integer), column("code", String), column("value_milli", _BIG),
                column("reserve_milli", _BIG), column("overflow_milli", _BIG))
_hits = table("jackpot_hits", column("level_id", Integer), column("amount_won", _BIG), column("status", String),
              column("value_milli", _BIG), column("created_at", TZDateTime))
_players = table("players", column("id", Integer), column("points_milli", _BIG), column("points_held_milli", _BIG))
_points = table("points_journal", column("player_id", Integer), column("points_milli", _BIG))
_program = table("loyalty_program", column("id", Integer), column("promo_won_per_point", Integer),
                 column("cash_won_per_point", Integer))
_drawers = table("drawer_sessions", column("id", Integer), column("cage", String), column("drawer", String),
                 column("cashier", String), column("opening_float", _BIG), column("opened_at", TZDateTime),
                 column("closed_at", TZDateTime), column("counted_cash", _BIG))

# jackpot_controller.adapters.repo.UNPAID: the hit states whose award is still owed (``jackpot:<L>:payable``)
UNPAID_HIT_STATES = ("hit", "claimed", "handpay", "verification", "at_machine")
# tito.domain.tickets.OUTSTANDING_STATES are those without a redemption or void time: read by the times instead
_DRAWER_OPEN_CLOSE = ("cage.drawer_open", "cage.drawer_close")


def _meters(row) -> dict[str, int]:
    return {m: int(getattr(row, m) or 0) for m in SNAPSHOT_METERS}


# ---------------------------------------------------------------------------------------------- the day close's records
class DayCloseRepo:
    """Meter reads, their snapshots, closed days and their machine rows (insert and read only)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def lock(self) -> None:
        """Serialise the reads and closes of gaming days until the transaction ends (PostgreSQL advisory lock;
        on SQLite every writing transaction is already serialised by ``BEGIN IMMEDIATE``)."""
        if _pg(self.s):
            self.s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": ACCOUNTING_LOCK_KEY})

    # ---- reads
    @staticmethod
    def _read(r: DayMeterRead | None) -> MeterRead | None:
        return None if r is None else MeterRead(r.gaming_day, r.at, r.actor, r.machines)

    def read(self, day: date) -> MeterRead | None:
        return self._read(self.s.get(DayMeterRead, day))

    def latest_read(self) -> MeterRead | None:
        return self._read(self.s.scalar(select(DayMeterRead).order_by(DayMeterRead.gaming_day.desc()).limit(1)))

    def read_before(self, day: date) -> MeterRead | None:
        return self._read(self.s.scalar(select(DayMeterRead).where(DayMeterRead.gaming_day < day)
                                        .order_by(DayMeterRead.gaming_day.desc()).limit(1)))

    def add_read(self, read: MeterRead, machines: Sequence[FloorMachine]) -> None:
        self.s.add(DayMeterRead(gaming_day=read.day, at=read.at, actor=read.actor, machines=read.machines))
        self.s.flush()
        self.s.add_all(DayMeterSnapshot(gaming_day=read.day, machine_id=m.machine_id, asset_number=m.asset, zone=m.zone,
                                        bank=m.bank, kind="day_close", at=read.at, game_id=m.game_id,
                                        variation=m.variation, denomination=m.denomination, meters=dict(m.meters))
                       for m in machines)
        self.s.flush()

    def read_snapshots(self, day: date) -> dict[int, tuple[Snapshot, str, str]]:
        """machine id → (its snapshot in the read of ``day``, zone, bank)."""
        rows = self.s.scalars(select(DayMeterSnapshot).where(DayMeterSnapshot.gaming_day == day))
        return {r.machine_id: (Snapshot(r.asset_number, r.at, r.kind, r.game_id, r.variation, r.denomination,
                                        dict(r.meters)), r.zone, r.bank) for r in rows}

    # ---- closed days
    @staticmethod
    def _closed(r: ClosedGamingDay | None) -> ClosedDay | None:
        if r is None:
            return None
        return ClosedDay(r.gaming_day, r.closed_at, r.closed_by, r.closed_role, r.read_at, r.opened_at, r.figures)

    def closed(self, day: date) -> ClosedDay | None:
        return self._closed(self.s.get(ClosedGamingDay, day))

    def closed_days(self, first: date, last: date) -> set[date]:
        return set(self.s.scalars(select(ClosedGamingDay.gaming_day)
                                  .where(ClosedGamingDay.gaming_day >= first, ClosedGamingDay.gaming_day <= last)))

    def first_closed_day(self) -> date | None:
        return self.s.scalar(select(func.min(ClosedGamingDay.gaming_day)))

    def add_closed(self, closed: ClosedDay, machines: Iterable[ClosedMachine]) -> bool:
        """Insert a closed day and its machine rows in a savepoint: False (nothing inserted) if the day was closed
        meanwhile."""
        try:
            with self.s.begin_nested():
                self.s.add(ClosedGamingDay(gaming_day=closed.day, closed_at=closed.closed_at, closed_by=closed.closed_by,
                                           closed_role=closed.closed_role, read_at=closed.read_at,
                                           opened_at=closed.opened_at, figures=dict(closed.figures)))
                self.s.flush()
        except IntegrityError:
            return False
        self.s.add_all(ClosedDayMachine(gaming_day=m.day, asset_number=m.asset, zone=m.zone, bank=m.bank,
                                        figures=dict(m.figures)) for m in machines)
        self.s.flush()
        return True

    def machine_rows(self, day: date, *, zone: str | None = None, bank: str | None = None, asset: str | None = None,
                     after: str | None = None, limit: int | None = None) -> list[ClosedMachine]:
        """The machine rows of a closed day in asset order, filtered, from after the asset ``after`` (keyset)."""
        q = select(ClosedDayMachine).where(ClosedDayMachine.gaming_day == day)
        if zone is not None:
            q = q.where(ClosedDayMachine.zone == zone)
        if bank is not None:
            q = q.where(ClosedDayMachine.bank == bank)
        if asset is not None:
            q = q.where(ClosedDayMachine.asset_number == asset)
        if after is not None:
            q = q.where(ClosedDayMachine.asset_number > after)
        q = q.order_by(ClosedDayMachine.asset_number)
        if limit is not None:
            q = q.limit(limit)
        return [ClosedMachine(r.gaming_day, r.asset_number, r.zone, r.bank, r.figures) for r in self.s.scalars(q)]

    def machine_days(self, asset: str, first: date, last: date) -> dict[date, ClosedMachine]:
        rows = self.s.scalars(select(ClosedDayMachine).where(ClosedDayMachine.asset_number == asset,
                                                             ClosedDayMachine.gaming_day >= first,
                                                             ClosedDayMachine.gaming_day <= last))
        return {r.gaming_day: ClosedMachine(r.gaming_day, r.asset_number, r.zone, r.bank, r.figures) for r in rows}


# ---------------------------------------------------------------------------------------------- drop and count
class DropRepo:
    """The drop schedule, stacker counts, variances and their acceptances (insert and read only)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    # ---- schedule
    def schedule(self) -> DropSchedule:
        """The rules in force: the latest row per asset (``*``: the floor's default; none: every day)."""
        latest = select(DropScheduleRule.asset_number, func.max(DropScheduleRule.id).label("id")) \
            .group_by(DropScheduleRule.asset_number).subquery()
        rows = self.s.scalars(select(DropScheduleRule).join(latest, DropScheduleRule.id == latest.c.id))
        default, machines = DropRule(), {}
        for r in rows:
            rule = DropRule(every_days=r.every_days, anchor=r.anchor) if r.every_days else \
                DropRule(weekdays=frozenset(r.weekdays or range(1, 8)))
            if r.asset_number == "*":
                default = rule
            else:
                machines[r.asset_number] = rule
        return DropSchedule(default, machines)

    def add_rule(self, asset: str, rule: DropRule, *, by: str, at: datetime, reason: str) -> None:
        self.s.add(DropScheduleRule(asset_number=asset, weekdays=None if rule.every_days else sorted(rule.weekdays),
                                    every_days=rule.every_days, anchor=rule.anchor, set_by=by, set_at=at,
                                    reason=reason))
        self.s.flush()

    # ---- counts
    def add_count(self, count: StackerCount) -> int | None:
        """Insert a count in a savepoint: its id, or None when that stacker of that drop day was counted already."""
        row = DropCount(asset_number=count.asset, stacker=count.stacker, gaming_day=count.day, counter=count.counter,
                        counted_at=count.counted_at, bills={str(d): n for d, n in sorted(count.bills.items())},
                        tickets=[{"validation_number": t.validation_number, "amount": t.amount} for t in count.tickets],
                        bills_won=count.bills_won, tickets_won=count.tickets_won)
        try:
            with self.s.begin_nested():
                self.s.add(row)
                self.s.flush()
        except IntegrityError:
            return None
        return row.id

    def count(self, count_id: int) -> RecordedCount | None:
        r = self.s.get(DropCount, count_id)
        if r is None:
            return None
        return RecordedCount(r.id, StackerCount(r.asset_number, r.stacker, r.gaming_day, r.counter, r.counted_at,
                                                {int(d): n for d, n in r.bills.items()},
                                                tuple(CountedTicket(t["validation_number"], t["amount"])
                                                      for t in r.tickets)))

    # ---- variances
    def add_variances(self, variances: Iterable[Variance], *, at: datetime, count_id: int | None = None
                      ) -> list[RecordedVariance]:
        """Insert variances; one already kept for the same (kind, subject, day) is left as it is and returned."""
        out = []
        for v in variances:
            row = CountVariance(kind=v.kind, subject=v.subject, gaming_day=v.day, counted=v.counted, expected=v.expected,
                                count_difference=v.count_difference, missing=list(v.missing), extra=list(v.extra),
                                counter=v.counter, balanced=v.state == BALANCED, count_id=count_id, created_at=at)
            try:
                with self.s.begin_nested():
                    self.s.add(row)
                    self.s.flush()
                out.append(RecordedVariance(row.id, v, count_id))
            except IntegrityError:
                old = self.s.scalar(select(CountVariance.id).where(CountVariance.kind == v.kind,
                                                                  CountVariance.subject == v.subject,
                                                                  CountVariance.gaming_day == v.day))
                out.append(self.variance(old))
        return out

    def _rows(self, q) -> list[RecordedVariance]:
        out = []
        for v, a in self.s.execute(q).all():
            state = ACCEPTED if a is not None else BALANCED if v.balanced else OPEN
            out.append(RecordedVariance(v.id, Variance(
                v.kind, v.subject, v.gaming_day, int(v.counted), int(v.expected), v.counter, v.count_difference,
                tuple(v.missing or ()), tuple(v.extra or ()), state, a.accepted_by if a else None,
                a.role if a else None, a.at if a else None, a.reason if a else None), v.count_id))
        return out

    def _query(self):
        return select(CountVariance, VarianceAcceptance).outerjoin(
            VarianceAcceptance, VarianceAcceptance.variance_id == CountVariance.id)

    def variance(self, variance_id: int) -> RecordedVariance | None:
        rows = self._rows(self._query().where(CountVariance.id == variance_id))
        return rows[0] if rows else None

    def variances(self, *, state: str | None = None, day: date | None = None, limit: int = 500) -> list[RecordedVariance]:
        """Variances (oldest first), by ``state`` (open | accepted | balanced) and gaming ``day``."""
        q = self._query()
        if day is not None:
            q = q.where(CountVariance.gaming_day == day)
        if state == OPEN:
            q = q.where(VarianceAcceptance.id.is_(None), CountVariance.balanced.is_(False))
        elif state == ACCEPTED:
            q = q.where(VarianceAcceptance.id.is_not(None))
        elif state == BALANCED:
            q = q.where(CountVariance.balanced.is_(True))
        return self._rows(q.order_by(CountVariance.id).limit(limit))

    def accept(self, variance_id: int, *, by: str, role: str, reason: str, at: datetime) -> bool:
        """Record an acceptance in a savepoint: False if the variance was accepted meanwhile (the unique key)."""
        try:
            with self.s.begin_nested():
                self.s.add(VarianceAcceptance(variance_id=variance_id, accepted_by=by, role=role, reason=reason, at=at))
                self.s.flush()
        except IntegrityError:
            return False
        return True


# ---------------------------------------------------------------------------------------------- the day's inputs
class DaySources:
    """The day close's inputs from the floor, the ledger and the sub-ledgers (read only; see the module docstring)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def consistent(self) -> None:
        """Read everything that follows from one snapshot of the database (PostgreSQL REPEATABLE READ; a SQLite
        read transaction is one snapshot already). Call first in a read-only transaction."""
        if _pg(self.s):
            self.s.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))

    # ---- the floor
    def _machine(self, r) -> FloorMachine:
        return FloorMachine(r.id, r.asset_number, r.zone, r.bank or "", r.game_id, r.variation or "", r.denomination,
                            r.created_at, _meters(r))

    def lock_floor(self, *, created_before: datetime) -> list[FloorMachine]:
        """Every machine on the floor (not retired) enrolled before ``created_before``, its row locked ``FOR
        SHARE`` until the transaction ends (PostgreSQL), in id order."""
        q = select(_machines).where(_machines.c.retired_at.is_(None), _machines.c.created_at < created_before) \
            .order_by(_machines.c.id)
        if _pg(self.s):
            q = q.with_for_update(read=True)
        return [self._machine(r) for r in self.s.execute(q).all()]

    def machines(self, ids: Iterable[int]) -> dict[int, FloorMachine]:
        ids = list(ids)
        if not ids:
            return {}
        return {r.id: self._machine(r) for r in self.s.execute(select(_machines).where(_machines.c.id.in_(ids))).all()}

    def asset_exists(self, asset: str) -> bool:
        return self.s.scalar(select(_machines.c.id).where(_machines.c.asset_number == asset)) is not None

    def retired_between(self, after: datetime | None, until: datetime) -> list[int]:
        """Ids of the machines retired in ``(after, until)`` (``after`` None: any time before ``until``)."""
        q = select(_machines.c.id).where(_machines.c.retired_at.is_not(None), _machines.c.retired_at < until)
        if after is not None:
            q = q.where(_machines.c.retired_at > after)
        return list(self.s.scalars(q))

    def floor_snapshots(self, machine_ids: Iterable[int], after: datetime | None, until: datetime
                        ) -> dict[int, list[Snapshot]]:
        """The floor's own snapshots (game changes, retirements …) of these machines taken in ``(after, until)``,
        in recorded order."""
        ids = list(machine_ids)
        out: dict[int, list[Snapshot]] = defaultdict(list)
        if not ids:
            return out
        t = _floor_snapshots
        q = select(t).where(t.c.machine_id.in_(ids), t.c.at < until).order_by(t.c.at, t.c.id)
        if after is not None:
            q = q.where(t.c.at > after)
        for r in self.s.execute(q).all():
            out[r.machine_id].append(Snapshot(r.asset_number, r.at, r.kind, r.game_id, r.variation or "",
                                              r.denomination, dict(r.meters)))
        return out

    def option_play(self, machine_id: int, first: int, last: int) -> list[tuple[int | None, int | None, int, int | None,
                                                                                int, int]]:
        """The recall's rounds of one machine with game numbers ``first`` … ``last`` per bet option and free-games
        choice: ``(lines, reels, multiplier, choice, games, coin-in won)`` (a round reported from meters counts
        its ``games``)."""
        r = _rounds
        lines, reels = r.c.bet["lines"].as_integer(), r.c.bet["reels"].as_integer()
        mult, choice = r.c.bet["multiplier"].as_integer(), r.c.outcome["choice"].as_integer()
        games = func.coalesce(r.c.outcome["games"].as_integer(), 1)
        q = select(lines, reels, mult, choice, func.sum(games), func.sum(r.c.bet_won)) \
            .where(r.c.machine_id == machine_id, r.c.game_number >= first, r.c.game_number <= last) \
            .group_by(lines, reels, mult, choice)
        return [(a, b, int(c), d, int(g), int(w)) for a, b, c, d, g, w in self.s.execute(q).all()]

    def round_coin_in(self, since: datetime, until: datetime, assets: Sequence[str] | None = None
                      ) -> Iterable[tuple[datetime, int, int]]:
        """The recall's rounds recorded in ``[since, until)``, in time order: ``(at, coin-in won, games)`` (a round
        reported from meters counts its ``games``); ``assets``: only those machines' rounds (None: every
        machine). One row per round, streamed: a chart's bucketing is the domain's (``charts.hourly_coin_in``)."""
        r, m = _rounds, _machines
        games = func.coalesce(r.c.outcome["games"].as_integer(), 1)
        q = select(r.c.created_at, r.c.bet_won, games).where(r.c.created_at >= since, r.c.created_at < until)
        if assets is not None:
            q = q.select_from(r.join(m, m.c.id == r.c.machine_id)).where(m.c.asset_number.in_(list(assets)))
        for at, won, g in self.s.execute(q.order_by(r.c.created_at).execution_options(yield_per=5_000)):
            yield at, int(won), int(g or 1)

    def account_history(self, code: str, since: datetime, until: datetime
                        ) -> tuple[int, list[tuple[datetime, int]]] | None:
        """One ledger account's normal balance (won) before ``since`` and its net movement per journal entry in
        ``[since, until)``, in entry order (normal-sign won: a credit raises a liability); None when the
        account does not exist."""
        acc = self.s.execute(select(Account.id, Account.normal_sign).where(Account.code == code)).first()
        if acc is None:
            return None
        aid, sign = acc
        opening = self.s.scalar(select(func.coalesce(func.sum(PostingRow.amount), 0)).select_from(PostingRow)
                                .join(JournalEntryRow, JournalEntryRow.id == PostingRow.entry_id)
                                .where(PostingRow.account_id == aid, JournalEntryRow.created_at < since))
        q = select(JournalEntryRow.created_at, func.sum(PostingRow.amount)).select_from(PostingRow) \
            .join(JournalEntryRow, JournalEntryRow.id == PostingRow.entry_id) \
            .where(PostingRow.account_id == aid, JournalEntryRow.created_at >= since,
                   JournalEntryRow.created_at < until) \
            .group_by(JournalEntryRow.id, JournalEntryRow.created_at) \
            .order_by(JournalEntryRow.created_at, JournalEntryRow.id)
        return int(opening or 0) * sign, [(at, int(a) * sign) for at, a in self.s.execute(q).all()]

    def level_hits(self, level: str, since: datetime, until: datetime) -> list[tuple[datetime, int, int]]:
        """The hits of jackpot level ``level`` decided in ``[since, until)``, in time order: ``(at, amount won,
        the meter's value in milli-won when decided)``."""
        h, lv = _hits, _levels
        q = select(h.c.created_at, h.c.amount_won, h.c.value_milli).select_from(h.join(lv, lv.c.id == h.c.level_id)) \
            .where(lv.c.code == level, h.c.created_at >= since, h.c.created_at < until).order_by(h.c.created_at)
        return [(at, int(a), int(v or 0)) for at, a, v in self.s.execute(q).all()]

    # ---- the ledger
    def _window(self, since: datetime | None, until: datetime):
        cond = [JournalEntryRow.created_at < until]
        if since is not None:
            cond.append(JournalEntryRow.created_at >= since)
        return and_(*cond)

    def movements(self, since: datetime | None, until: datetime, *, codes_like: str | None = None
                  ) -> list[tuple[str, int, int, int]]:
        """Per ledger account: ``(code, debits, credits, postings)`` of the entries made in ``[since, until)``
        (debits, credits ≥ 0 won); ``codes_like``: a SQL LIKE pattern of the codes."""
        amount = PostingRow.amount
        q = select(Account.code, func.coalesce(func.sum(case((amount > 0, amount), else_=0)), 0),
                   func.coalesce(func.sum(case((amount < 0, -amount), else_=0)), 0), func.count(PostingRow.id)) \
            .select_from(JournalEntryRow).join(PostingRow, PostingRow.entry_id == JournalEntryRow.id) \
            .join(Account, Account.id == PostingRow.account_id).where(self._window(since, until)).group_by(Account.code)
        if codes_like is not None:
            q = q.where(Account.code.like(codes_like))
        return [(c, int(d), int(cr), int(n)) for c, d, cr, n in self.s.execute(q).all()]

    def entries(self, since: datetime | None, until: datetime) -> int:
        return int(self.s.scalar(select(func.count(JournalEntryRow.id)).where(self._window(since, until))) or 0)

    def balances(self, *, codes_like: Sequence[str] = (), codes: Sequence[str] = ()) -> dict[str, int]:
        """Ledger accounts' cached balances as an accountant reads them (normal sign), by code."""
        cond = [Account.code.like(p) for p in codes_like] + ([Account.code.in_(list(codes))] if codes else [])
        if not cond:
            return {}
        q = select(Account.code, Account.balance * Account.normal_sign).where(or_(*cond))
        return {c: int(b) for c, b in self.s.execute(q).all()}

    def journal_balances(self, *, codes_like: str) -> dict[str, int]:
        """The same accounts' balances from their journal (Σ postings, normal sign), by code."""
        q = select(Account.code, func.coalesce(func.sum(PostingRow.amount), 0) * Account.normal_sign) \
            .select_from(Account).join(PostingRow, PostingRow.account_id == Account.id, isouter=True) \
            .where(Account.code.like(codes_like)).group_by(Account.code, Account.normal_sign)
        return {c: int(b) for c, b in self.s.execute(q).all()}

    # ---- liabilities
    def outstanding_tickets(self, as_of: datetime) -> list[TicketRecord]:
        """Tickets issued before ``as_of`` and neither redeemed nor voided before it."""
        t = _tickets
        q = select(t.c.validation_number, t.c.type, t.c.amount, t.c.issued_at, t.c.redeemed_at, t.c.voided_at).where(
            t.c.issued_at < as_of, or_(t.c.redeemed_at.is_(None), t.c.redeemed_at >= as_of),
            or_(t.c.voided_at.is_(None), t.c.voided_at >= as_of))
        return [TicketRecord(vn, typ, int(a), i, r, v) for vn, typ, a, i, r, v in self.s.execute(q).all()]

    def jackpot_levels(self) -> list[LevelMeters]:
        unpaid: dict[int, list[int]] = defaultdict(list)
        for level_id, amount in self.s.execute(select(_hits.c.level_id, _hits.c.amount_won)
                                               .where(_hits.c.status.in_(UNPAID_HIT_STATES))).all():
            unpaid[level_id].append(int(amount))
        rows = self.s.execute(select(_levels).order_by(_levels.c.code)).all()
        return [LevelMeters(r.code, int(r.value_milli), int(r.reserve_milli or 0), int(r.overflow_milli or 0),
                            tuple(unpaid.get(r.id, ()))) for r in rows]

    def wallets(self) -> list[WalletRecord]:
        """Each player wallet account: its cached balance (the player's record) against its journal."""
        out = []
        for wallet, builder in (("cashable", accounts.player_cashable), ("promo", accounts.player_promo)):
            like = builder(0).replace(":0:", ":%:")
            cached, journal = self.balances(codes_like=[like]), self.journal_balances(codes_like=like)
            for code, record in cached.items():
                player = code.split(":")[1]
                if player.isdigit():
                    out.append(WalletRecord(int(player), wallet, record, journal.get(code, 0)))
        return out

    def points(self) -> tuple[list[PlayerPoints], int, int]:
        """Each player's points against the Σ of their points journal, and the program's redemption rates (won
        per point: promotional, cash)."""
        journal = dict(self.s.execute(select(_points.c.player_id, func.sum(_points.c.points_milli))
                                      .group_by(_points.c.player_id)).all())
        players = [PlayerPoints(pid, int(bal), int(journal.get(pid) or 0), int(held or 0))
                   for pid, bal, held in self.s.execute(select(_players.c.id, _players.c.points_milli,
                                                               _players.c.points_held_milli)).all()]
        rates = self.s.execute(select(_program.c.promo_won_per_point, _program.c.cash_won_per_point)).first()
        promo, cash = (int(rates[0]), int(rates[1])) if rates else (0, 0)
        return players, promo, cash

    # ---- drop and accountability
    def machine_redemptions(self, asset: str, since: datetime | None, until: datetime) -> list[CountedTicket]:
        """Tickets the ticket system redeemed at machine ``asset`` in ``[since, until)``."""
        t = _tickets
        q = select(t.c.validation_number, t.c.amount).where(
            t.c.redeemed_channel == "machine", t.c.redeemed_location == asset, t.c.redeemed_at < until)
        if since is not None:
            q = q.where(t.c.redeemed_at >= since)
        return [CountedTicket(vn, int(a)) for vn, a in self.s.execute(q.order_by(t.c.validation_number)).all()]

    def _account_flows(self, code: str, since: datetime | None, until: datetime, *,
                       skip_kinds: Sequence[str] = ()) -> tuple[dict[str, int], dict[str, int]]:
        """Debits and credits of one account in ``[since, until)`` per journal entry kind."""
        amount = PostingRow.amount
        q = select(JournalEntryRow.kind, func.coalesce(func.sum(case((amount > 0, amount), else_=0)), 0),
                   func.coalesce(func.sum(case((amount < 0, -amount), else_=0)), 0)) \
            .select_from(JournalEntryRow).join(PostingRow, PostingRow.entry_id == JournalEntryRow.id) \
            .join(Account, Account.id == PostingRow.account_id) \
            .where(Account.code == code, self._window(since, until)).group_by(JournalEntryRow.kind)
        if skip_kinds:
            q = q.where(JournalEntryRow.kind.not_in(list(skip_kinds)))
        ins, outs = {}, {}
        for kind, d, c in self.s.execute(q).all():
            if d:
                ins[kind] = int(d)
            if c:
                outs[kind] = int(c)
        return ins, outs

    def drawer_shifts(self, day: date, shifts: Sequence[Shift], until: datetime) -> list[ShiftAccount]:
        """Each cashier drawer session opened during the gaming day, in the shift it opened in: its opening float,
        its drawer account's movements while open (the opening and count-out entries aside) and the cash counted
        at its count-out (None while still open)."""
        start, end = shifts[0].start, shifts[-1].end
        q = select(_drawers).where(_drawers.c.opened_at >= start, _drawers.c.opened_at < end) \
            .order_by(_drawers.c.opened_at, _drawers.c.id)
        out = []
        for r in self.s.execute(q).all():
            shift = next(s for s in shifts if s.start <= r.opened_at < s.end)
            closed = r.closed_at if r.closed_at is not None else until
            ins, outs = self._account_flows(accounts.cashier_drawer(r.drawer, r.cage), r.opened_at, closed,
                                            skip_kinds=_DRAWER_OPEN_CLOSE)
            out.append(ShiftAccount("cage", f"{r.cage}:{r.drawer}#{r.id}", shift.name, day, int(r.opening_float), ins,
                                    outs, None if r.counted_cash is None else int(r.counted_cash), r.cashier))
        return out

    def kiosk_shifts(self, day: date, shifts: Sequence[Shift]) -> list[ShiftAccount]:
        """Each kiosk's cassette per shift: its balance at the shift's start, fills in and tickets paid out.
        Kiosk cassettes are not counted per shift by any feature yet: ``counted`` is None (listed as not counted)."""
        like = accounts.kiosk_cassette("%")
        codes = sorted(self.s.scalars(select(Account.code).where(Account.code.like(like))))
        out = []
        for code in codes:
            kiosk = code.split(":")[1]
            for s in shifts:
                opening = int(self.s.scalar(
                    select(func.coalesce(func.sum(PostingRow.amount), 0)).select_from(PostingRow)
                    .join(JournalEntryRow, JournalEntryRow.id == PostingRow.entry_id)
                    .join(Account, Account.id == PostingRow.account_id)
                    .where(Account.code == code, JournalEntryRow.created_at < s.start)) or 0)
                ins, outs = self._account_flows(code, s.start, s.end)
                out.append(ShiftAccount("kiosk", kiosk, s.name, day, max(opening, 0), ins, outs, None))
        return out
