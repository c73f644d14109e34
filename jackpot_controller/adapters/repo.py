"""Jackpot persistence (``uow.levels``: :class:`jackpot_controller.services.ports.LevelRepository`).

Reads return the frozen records of :mod:`jackpot_controller.domain.records`; changes are made here, on the
rows this transaction loaded, so they are written with the next flush or the commit. The repository lives as
long as its transaction and holds the rows it loaded: the session's identity map holds unchanged rows only
weakly, and a row read again would cost a round trip (nine level rows per fold). Lock order: level rows (id
order) → hit rows → accounts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from sqlalchemy import BigInteger, func, insert, select, update
from sqlalchemy.orm import Session

from jackpot_controller.adapters.tables import (
    JackpotEvent,
    JackpotFold,
    JackpotHit,
    JackpotLevel,
    JackpotWager,
    JackpotZoneMove,
)
from jackpot_controller.domain import records as R
from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.pool import Pool
from slotsys.kernel.adapters.db import utcnow
from slotsys.kernel.adapters.write_behind import execute_or_defer

UNPAID = R.UNPAID
OPEN_CLAIM = R.OPEN_CLAIM

_NEW_WAGER = insert(JackpotWager.__table__).inline()  # built once; no implicit RETURNING (write-behind)
_HIT_FIELDS = frozenset(R.HIT_FIELDS) - {"id"}


def level_record(row: JackpotLevel) -> R.Level:
    values = {f: getattr(row, f) for f in R.LEVEL_FIELDS}
    if values["pending"] is not None:
        values["pending"] = dict(values["pending"])
    return R.Level(**values)


def hit_record(row: JackpotHit) -> R.Hit:
    return R.Hit(**{f: getattr(row, f) for f in R.HIT_FIELDS})


def event_record(row: JackpotEvent) -> R.JackpotEvent:
    return R.JackpotEvent(**{f: getattr(row, f) for f in R.EVENT_FIELDS})


def write_params(level: JackpotLevel, p: LevelParams) -> None:
    level.kind = p.kind
    level.reset_won, level.ceiling_won, level.rate_ppm = p.reset, p.ceiling, p.rate_ppm
    level.start_won = p.start_value
    level.reserve_rate_ppm, level.min_bet_won = p.reserve_rate_ppm, p.min_bet
    level.scope, level.scope_machine, level.scope_bank, level.zone = p.scope, p.machine, p.bank, p.zone
    level.overflow_rule, level.overflow_to = p.overflow, p.overflow_to
    level.combination, level.max_award_won, level.second_hit_rule = p.combination, p.max_award, p.second_hit_rule


def write_pool(level: JackpotLevel, p: Pool) -> None:
    """Store a pool's meters (and, after a reset, its new parameters) on the row."""
    if (level.cycle, level.value_milli, level.reserve_milli, level.overflow_milli, level.qualifying_coin_in) == (
            p.cycle, p.value_milli, p.reserve_milli, p.overflow_milli, p.coin_in):
        return  # nothing happened to this level
    if level.cycle != p.cycle:
        write_params(level, p.params)
        level.pending = None
        level.pending_at = None
        level.cycle_started_at = p.cycle_started
        level.cycle = p.cycle
    level.value_milli, level.trigger_milli = p.value_milli, p.trigger_milli
    level.reserve_milli, level.overflow_milli = p.reserve_milli, p.overflow_milli
    level.qualifying_coin_in, level.contributed_milli = p.coin_in, p.contributed_milli
    level.hits, level.total_won, level.seeded_won = p.hits, p.total_won, p.seeded_won
    level.updated_at = utcnow()


class LevelRepo:
    def __init__(self, session: Session) -> None:
        self.s = session
        self._levels: dict[int, JackpotLevel] = {}  # the rows this transaction loaded (see the module doc)
        self._hits: dict[int, JackpotHit] = {}
        self._folds: dict[int, JackpotFold] = {}

    # -- levels
    def _level(self, row: JackpotLevel | None) -> R.Level | None:
        if row is None:
            return None
        self._levels[row.id] = row
        return level_record(row)

    def _row(self, level_id: int) -> JackpotLevel:
        row = self._levels.get(level_id) or self.s.get(JackpotLevel, level_id)
        if row is None:
            raise LookupError(f"jackpot level id {level_id} does not exist")
        self._levels[level_id] = row
        return row

    def all(self) -> list[R.Level]:
        return [self._level(r) for r in self.s.scalars(select(JackpotLevel).order_by(JackpotLevel.id))]

    def lock_all(self) -> list[R.Level]:
        """Every level, row-locked in id order (the sequencer's and the operators' lock)."""
        return [self._level(r) for r in self.s.scalars(
            select(JackpotLevel).order_by(JackpotLevel.id).with_for_update().execution_options(populate_existing=True))]

    def get(self, code: str, *, for_update: bool = False) -> R.Level | None:
        stmt = select(JackpotLevel).where(JackpotLevel.code == code)
        if for_update:
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        return self._level(self.s.scalar(stmt))

    def by_id(self, level_id: int) -> R.Level | None:
        row = self._levels.get(level_id) or self.s.get(JackpotLevel, level_id)
        return self._level(row)

    def create(self, *, code: str, name: str, params: LevelParams, value_milli: int, trigger_milli: int,
               seeded_won: int) -> R.Level:
        now = utcnow()
        row = JackpotLevel(code=code, name=name, value_milli=value_milli, trigger_milli=trigger_milli, cycle=1,
                           paused=False, qualifying_coin_in=0, contributed_milli=0, seeded_won=seeded_won, hits=0,
                           total_won=0, reserve_milli=0, overflow_milli=0, cycle_started_at=now, updated_at=now)
        write_params(row, params)
        self.s.add(row)
        self.s.flush()
        return self._level(row)

    def save_pools(self, pools: Iterable[Pool]) -> None:
        for p in pools:
            write_pool(self._row(p.id), p)

    def update_level(self, level_id: int, *, name: str | None = None, pending: dict[str, Any] | None = None,
                     pending_at: datetime | None = None, paused: bool | None = None, value_milli: int | None = None,
                     trigger_milli: int | None = None) -> R.Level:
        row = self._row(level_id)
        for attr, value in (("name", name), ("pending", pending), ("pending_at", pending_at), ("paused", paused),
                            ("value_milli", value_milli), ("trigger_milli", trigger_milli)):
            if value is not None:
                setattr(row, attr, value)
        return level_record(row)

    def add_overflow(self, level_id: int, milli: int) -> R.Level:
        row = self._row(level_id)
        row.overflow_milli += milli
        return level_record(row)

    def codes_in_zone(self, zone: str) -> list[str]:
        return list(self.s.scalars(select(JackpotLevel.code).where(JackpotLevel.zone == zone)))

    # -- wagers (the sequencer's queue)
    def record_wager(self, *, defer: bool = False, **values) -> None:
        """One INSERT in the spin's transaction (no hot row is touched); ``defer``: it may wait for
        the commit when the unit of work batches its writes (not when the spin itself folds it)."""
        execute_or_defer(self.s, _NEW_WAGER, values, allowed=defer)

    def has_pending(self) -> bool:
        return self.s.scalar(select(JackpotWager.id).where(JackpotWager.fold_id.is_(None)).limit(1)) is not None

    def pending_wagers(self, limit: int) -> list:
        return list(self.s.execute(
            select(JackpotWager.id, JackpotWager.machine_id, JackpotWager.asset, JackpotWager.bank, JackpotWager.zone,
                   JackpotWager.bet_won, JackpotWager.progressive, JackpotWager.game_number, JackpotWager.created_at)
            .where(JackpotWager.fold_id.is_(None)).order_by(JackpotWager.id).limit(limit)
        ).all())

    def pending_count(self) -> int:
        return int(self.s.scalar(select(func.count()).select_from(JackpotWager).where(JackpotWager.fold_id.is_(None))) or 0)

    def oldest_pending_at(self) -> datetime | None:
        return self.s.scalar(select(func.min(JackpotWager.created_at)).where(JackpotWager.fold_id.is_(None)))

    def add_fold(self, *, wagers: int, first_wager: int, last_wager: int, hits: int, created_at: datetime) -> int:
        fold = JackpotFold(wagers=wagers, first_wager=first_wager, last_wager=last_wager, hits=hits,
                           created_at=created_at)
        self.s.add(fold)
        self.s.flush()
        self._folds[fold.id] = fold
        return fold.id

    def set_fold_entry(self, fold_id: int, entry_id: int | None) -> None:
        (self._folds.get(fold_id) or self.s.get(JackpotFold, fold_id)).entry_id = entry_id

    def mark_folded(self, ids: list[int], fold_id: int) -> int:
        """Mark exactly these wagers folded (by id: a wager committed meanwhile is not touched). On PostgreSQL
        the ids travel as one array parameter (``id = ANY(:ids)``): one bind instead of thousands. No wager row
        is loaded in the session, so the ORM is told not to look for them (``synchronize_session=False``)."""
        if self.s.get_bind().dialect.name == "postgresql":
            from sqlalchemy import any_, bindparam
            from sqlalchemy.dialects.postgresql import ARRAY

            return self.s.execute(update(JackpotWager).where(
                JackpotWager.id == any_(bindparam("ids", type_=ARRAY(BigInteger))), JackpotWager.fold_id.is_(None))
                .values(fold_id=fold_id).execution_options(synchronize_session=False), {"ids": ids}).rowcount
        n = 0
        for i in range(0, len(ids), 1000):
            chunk = ids[i:i + 1000]
            n += self.s.execute(update(JackpotWager).where(JackpotWager.id.in_(chunk), JackpotWager.fold_id.is_(None))
                                .values(fold_id=fold_id).execution_options(synchronize_session=False)).rowcount
        return n

    # -- hits
    def _hit(self, row: JackpotHit | None) -> R.Hit | None:
        if row is None:
            return None
        self._hits[row.id] = row
        return hit_record(row)

    def add_hit(self, **values: Any) -> R.Hit:
        row = JackpotHit(**values)
        self.s.add(row)
        self.s.flush()
        return self._hit(row)

    def hit(self, hit_id: int, *, for_update: bool = False) -> R.Hit | None:
        if for_update:
            row = self.s.scalar(select(JackpotHit).where(JackpotHit.id == hit_id).with_for_update()
                                .execution_options(populate_existing=True))
        else:
            row = self._hits.get(hit_id) or self.s.get(JackpotHit, hit_id)
        return self._hit(row)

    def update_hit(self, hit_id: int, **changes: Any) -> R.Hit:
        unknown = set(changes) - _HIT_FIELDS
        if unknown:
            raise ValueError(f"not a hit field: {', '.join(sorted(unknown))}")
        row = self._hits.get(hit_id) or self.s.get(JackpotHit, hit_id)
        if row is None:
            raise LookupError(f"jackpot hit {hit_id} does not exist")
        for k, v in changes.items():
            setattr(row, k, v)
        return self._hit(row)

    def recent_hits(self, level_id: int | None = None, limit: int = 25) -> list[R.Hit]:
        stmt = select(JackpotHit).order_by(JackpotHit.id.desc()).limit(limit)
        if level_id is not None:
            stmt = stmt.where(JackpotHit.level_id == level_id)
        return [hit_record(r) for r in self.s.scalars(stmt)]

    def hits_with_status(self, statuses: tuple[str, ...], *, before: datetime | None = None,
                         machine_id: int | None = None, limit: int = 500) -> list[R.Hit]:
        stmt = select(JackpotHit).where(JackpotHit.status.in_(statuses)).order_by(JackpotHit.id).limit(limit)
        if before is not None:
            stmt = stmt.where(JackpotHit.created_at <= before)
        if machine_id is not None:
            stmt = stmt.where(JackpotHit.machine_id == machine_id)
        return [hit_record(r) for r in self.s.scalars(stmt)]

    def locks_waiting_on(self, machine_id: int) -> list[R.Hit]:
        self.s.flush()  # this transaction's own status changes count
        return self.hits_with_status(R.LOCKS, machine_id=machine_id)

    def open_claims(self, since: datetime) -> dict[int, list[int]]:
        """Amounts of hits still open (hit / claimed) since ``since``, by level id, oldest first."""
        rows = self.s.execute(
            select(JackpotHit.level_id, JackpotHit.amount_won)
            .where(JackpotHit.status.in_(OPEN_CLAIM), JackpotHit.created_at >= since).order_by(JackpotHit.id)
        ).all()
        out: dict[int, list[int]] = {}
        for level_id, amount in rows:
            out.setdefault(level_id, []).append(int(amount))
        return out

    def unpaid_by_level(self) -> dict[int, int]:
        rows = self.s.execute(
            select(JackpotHit.level_id, func.sum(JackpotHit.amount_won))
            .where(JackpotHit.status.in_(UNPAID)).group_by(JackpotHit.level_id)
        ).all()
        return {lid: int(total) for lid, total in rows}

    def jackpot_out_by_machine(self, since: datetime) -> dict[int, int]:
        rows = self.s.execute(select(JackpotHit.machine_id, func.sum(JackpotHit.amount_won))
                              .where(JackpotHit.created_at >= since).group_by(JackpotHit.machine_id)).all()
        return {mid: int(total or 0) for mid, total in rows}

    # -- events and zone moves
    def add_event(self, **values) -> None:
        self.s.add(JackpotEvent(**values))

    def events(self, limit: int = 100, level_code: str | None = None) -> list[R.JackpotEvent]:
        stmt = select(JackpotEvent).order_by(JackpotEvent.id.desc()).limit(limit)
        if level_code:
            stmt = stmt.where(JackpotEvent.level_code == level_code)
        return [event_record(r) for r in self.s.scalars(stmt)]

    def zone_moves(self) -> dict[int, list[tuple[datetime, str]]]:
        """Each moved machine's zone history, oldest first."""
        out: dict[int, list[tuple[datetime, str]]] = {}
        for mid, since, zone in self.s.execute(
            select(JackpotZoneMove.machine_id, JackpotZoneMove.since, JackpotZoneMove.zone).order_by(JackpotZoneMove.id)
        ).all():
            out.setdefault(mid, []).append((since, zone))
        return out

    def add_zone_move(self, *, machine_id: int, zone: str, since: datetime, by: str) -> None:
        self.s.add(JackpotZoneMove(machine_id=machine_id, zone=zone, since=since, by=by))
        self.s.flush()
