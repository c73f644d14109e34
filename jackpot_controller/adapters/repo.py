"""Jackpot level persistence. Levels are locked in id order inside the spin transaction."""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel


class LevelRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def eligible_for_update(self, zone: str) -> list[JackpotLevel]:
        """Active levels of the machine's zone and the floor-wide ones, row-locked in id order."""
        return list(
            self.s.scalars(
                select(JackpotLevel)
                .where(or_(JackpotLevel.zone == zone, JackpotLevel.zone.is_(None)), JackpotLevel.paused.is_(False))
                .order_by(JackpotLevel.id)
                .with_for_update()
            )
        )

    def all(self) -> list[JackpotLevel]:
        return list(self.s.scalars(select(JackpotLevel).order_by(JackpotLevel.id)))

    def get(self, code: str) -> JackpotLevel | None:
        return self.s.scalar(select(JackpotLevel).where(JackpotLevel.code == code))

    def add(self, level: JackpotLevel) -> JackpotLevel:
        self.s.add(level)
        self.s.flush()
        return level

    def add_hit(self, hit: JackpotHit) -> JackpotHit:
        self.s.add(hit)
        self.s.flush()
        return hit

    def hit(self, hit_id: int) -> JackpotHit | None:
        return self.s.get(JackpotHit, hit_id)

    def recent_hits(self, level_id: int | None = None, limit: int = 25) -> list[JackpotHit]:
        stmt = select(JackpotHit).order_by(JackpotHit.id.desc()).limit(limit)
        if level_id is not None:
            stmt = stmt.where(JackpotHit.level_id == level_id)
        return list(self.s.scalars(stmt))
