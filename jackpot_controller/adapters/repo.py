"""Jackpot persistence. Lock order: machine row → level rows (id order) → hit rows → accounts."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, func, insert, select, update
from sqlalchemy.orm import Session

from slotsys.kernel.adapters.write_behind import execute_or_defer

from jackpot_controller.adapters.tables import (
    JackpotEvent,
    JackpotFold,
    JackpotHit,
    JackpotLevel,
    JackpotWager,
    JackpotZoneMove,
)

UNPAID = ("hit", "claimed", "handpay", "verification")
OPEN_CLAIM = ("hit", "claimed")


_NEW_WAGER = insert(JackpotWager.__table__).inline()  # built once; no implicit RETURNING (write-behind)


class LevelRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    # -- levels
    def all(self) -> list[JackpotLevel]:
        return list(self.s.scalars(select(JackpotLevel).order_by(JackpotLevel.id)))

    def all_for_update(self) -> list[JackpotLevel]:
        """Every level, row-locked in id order (the sequencer's and the operators' lock)."""
        return list(self.s.scalars(select(JackpotLevel).order_by(JackpotLevel.id).with_for_update()
                                   .execution_options(populate_existing=True)))

    def get(self, code: str, *, for_update: bool = False) -> JackpotLevel | None:
        stmt = select(JackpotLevel).where(JackpotLevel.code == code)
        if for_update:
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        return self.s.scalar(stmt)

    def by_id(self, level_id: int) -> JackpotLevel | None:
        return self.s.get(JackpotLevel, level_id)

    def add(self, level: JackpotLevel) -> JackpotLevel:
        self.s.add(level)
        self.s.flush()
        return level

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

    def add_fold(self, fold: JackpotFold) -> JackpotFold:
        self.s.add(fold)
        self.s.flush()
        return fold

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

    def key_share_machines(self, machine_ids: list[int]) -> None:
        """Lock machine rows FOR KEY SHARE in id order (what the hits' foreign keys would take
        later, taken before the accounts, so the lock order stays machine → account)."""
        from slotsys.floor.adapters.tables import Machine

        if machine_ids:
            self.s.execute(select(Machine.id).where(Machine.id.in_(machine_ids)).order_by(Machine.id)
                           .with_for_update(key_share=True, read=True))

    # -- hits
    def add_hit(self, hit: JackpotHit) -> JackpotHit:
        self.s.add(hit)
        self.s.flush()
        return hit

    def hit(self, hit_id: int, *, for_update: bool = False) -> JackpotHit | None:
        if for_update:
            return self.s.scalar(select(JackpotHit).where(JackpotHit.id == hit_id).with_for_update()
                                 .execution_options(populate_existing=True))
        return self.s.get(JackpotHit, hit_id)

    def recent_hits(self, level_id: int | None = None, limit: int = 25) -> list[JackpotHit]:
        stmt = select(JackpotHit).order_by(JackpotHit.id.desc()).limit(limit)
        if level_id is not None:
            stmt = stmt.where(JackpotHit.level_id == level_id)
        return list(self.s.scalars(stmt))

    def hits_with_status(self, statuses: tuple[str, ...], *, before: datetime | None = None,
                         machine_id: int | None = None, limit: int = 500) -> list[JackpotHit]:
        stmt = select(JackpotHit).where(JackpotHit.status.in_(statuses)).order_by(JackpotHit.id).limit(limit)
        if before is not None:
            stmt = stmt.where(JackpotHit.created_at <= before)
        if machine_id is not None:
            stmt = stmt.where(JackpotHit.machine_id == machine_id)
        return list(self.s.scalars(stmt))

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

    # -- events and zone moves
    def add_event(self, **values) -> None:
        self.s.add(JackpotEvent(**values))

    def events(self, limit: int = 100, level_code: str | None = None) -> list[JackpotEvent]:
        stmt = select(JackpotEvent).order_by(JackpotEvent.id.desc()).limit(limit)
        if level_code:
            stmt = stmt.where(JackpotEvent.level_code == level_code)
        return list(self.s.scalars(stmt))

    def zone_moves(self) -> dict[int, list[tuple[datetime, str]]]:
        """Each moved machine's zone history, oldest first."""
        out: dict[int, list[tuple[datetime, str]]] = {}
        for mid, since, zone in self.s.execute(
            select(JackpotZoneMove.machine_id, JackpotZoneMove.since, JackpotZoneMove.zone).order_by(JackpotZoneMove.id)
        ).all():
            out.setdefault(mid, []).append((since, zone))
        return out

    def add_zone_move(self, move: JackpotZoneMove) -> None:
        self.s.add(move)
        self.s.flush()
