"""Jackpot level and hit tables. Meters in milli-won, awards in won."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.adapters.db import Base, TZDateTime, utcnow


class JackpotLevel(Base):
    __tablename__ = "jackpot_levels"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(16), default="mystery")
    zone: Mapped[str | None] = mapped_column(ForeignKey("zones.code"), nullable=True)  # None: floor-wide
    reset_won: Mapped[int] = mapped_column(BigInteger)
    ceiling_won: Mapped[int] = mapped_column(BigInteger)
    rate_ppm: Mapped[int] = mapped_column(Integer)
    min_bet_won: Mapped[int] = mapped_column(BigInteger, default=0)
    value_milli: Mapped[int] = mapped_column(BigInteger)
    trigger_milli: Mapped[int] = mapped_column(BigInteger)  # secret: never served by the API
    cycle: Mapped[int] = mapped_column(Integer, default=1)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    qualifying_coin_in: Mapped[int] = mapped_column(BigInteger, default=0)
    hits: Mapped[int] = mapped_column(Integer, default=0)
    total_won: Mapped[int] = mapped_column(BigInteger, default=0)
    updated_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)


class JackpotHit(Base):
    __tablename__ = "jackpot_hits"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    level_id: Mapped[int] = mapped_column(ForeignKey("jackpot_levels.id"), index=True)
    cycle: Mapped[int] = mapped_column(Integer)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    zone: Mapped[str] = mapped_column(String(20))
    game_number: Mapped[int] = mapped_column(BigInteger)
    amount_won: Mapped[int] = mapped_column(BigInteger)
    trigger_milli: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="credited")
    announced: Mapped[bool] = mapped_column(Boolean, default=False)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
