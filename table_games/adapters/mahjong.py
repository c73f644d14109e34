"""Mahjong tables (issue 9): tables (rules, point value, house fee, buy-in range, hand counter, riichi sticks
carried), seats E/S/W/N, and every scored or drawn hand (declaration, result, points and won per seat, fee,
journal entry). Money is BIGINT won; the players' table stacks are ledger accounts
(``mahjong:<code>:stack:<player>``), not columns here. Migration: 0010_mahjong.

:class:`MahjongRepo` is bound to a unit of work's session (``MahjongRepo(uow.session)``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Integer, String, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.kernel.errors import NotFound
from table_games.adapters.base import ByCodeRepo

_BIGID = BigInteger().with_variant(Integer, "sqlite")


class MahjongTable(Base):
    __tablename__ = "mahjong_tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(20), unique=True)
    name: Mapped[str] = mapped_column(String(60), default="")
    rules: Mapped[dict] = mapped_column(JSON, default=dict)  # {"rule_set": "riichi" | "korean", ...}
    point_value: Mapped[int] = mapped_column(BigInteger)  # won per point
    fee_ppm: Mapped[int] = mapped_column(Integer, default=0)  # house fee: ppm of the winner's take
    fee_unit: Mapped[int] = mapped_column(BigInteger, default=100)  # the fee rounds UP to this unit
    min_buy_in: Mapped[int] = mapped_column(BigInteger)
    max_buy_in: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(10), default="open")
    hand_seq: Mapped[int] = mapped_column(Integer, default=0)  # hands recorded (scored or drawn)
    riichi_pot: Mapped[int] = mapped_column(Integer, default=0)  # riichi sticks carried on the table
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("status IN ('open', 'closed')", name="status"),
        CheckConstraint("point_value > 0 AND fee_unit > 0 AND fee_ppm >= 0 AND fee_ppm <= 1000000", name="money"),
        CheckConstraint("min_buy_in > 0 AND max_buy_in >= min_buy_in", name="buy_in"),
        CheckConstraint("hand_seq >= 0 AND riichi_pot >= 0", name="counters"),
    )


class MahjongSeat(Base):
    __tablename__ = "mahjong_seats"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("mahjong_tables.id"))
    seat: Mapped[str] = mapped_column(String(1))
    player_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    sat_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        UniqueConstraint("table_id", "seat", name="uq_mahjong_seats_seat"),
        UniqueConstraint("table_id", "player_id", name="uq_mahjong_seats_player"),
        CheckConstraint("seat IN ('E', 'S', 'W', 'N')", name="seat"),
    )


class MahjongHand(Base):
    """A recorded hand: ``kind`` win (scored and settled) or draw (riichi sticks to the pot)."""

    __tablename__ = "mahjong_hands"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("mahjong_tables.id"))
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(5))
    rule_set: Mapped[str] = mapped_column(String(10))
    dealer: Mapped[str] = mapped_column(String(1))
    winner: Mapped[str | None] = mapped_column(String(1), nullable=True)
    discarder: Mapped[str | None] = mapped_column(String(1), nullable=True)
    declaration: Mapped[dict] = mapped_column(JSON, default=dict)  # tiles, melds, win tile, flags, indicators
    result: Mapped[dict] = mapped_column(JSON, default=dict)  # han, fu, yaku, limit, payments (points)
    settlement: Mapped[dict] = mapped_column(JSON, default=dict)  # per seat: player, points, won; sticks; fee
    fee: Mapped[int] = mapped_column(BigInteger, default=0)
    entry_id: Mapped[int | None] = mapped_column(_BIGID, nullable=True)
    recorded_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        UniqueConstraint("table_id", "number", name="uq_mahjong_hands_number"),
        CheckConstraint("kind IN ('win', 'draw')", name="kind"),
        CheckConstraint("fee >= 0", name="fee"),
    )


class MahjongRepo(ByCodeRepo):
    model = MahjongTable
    noun = "mahjong table"

    def seats(self, table_id: int) -> list[MahjongSeat]:
        return list(self.s.scalars(select(MahjongSeat).where(MahjongSeat.table_id == table_id)
                                   .order_by(MahjongSeat.seat)))

    def hand(self, table_id: int, number: int) -> MahjongHand:
        h = self.s.scalar(select(MahjongHand).where(MahjongHand.table_id == table_id, MahjongHand.number == number))
        if h is None:
            raise NotFound(f"no hand {number} at this table", field="number")
        return h

    def hands(self, table_id: int, limit: int = 100) -> list[MahjongHand]:
        return list(self.s.scalars(select(MahjongHand).where(MahjongHand.table_id == table_id)
                                   .order_by(MahjongHand.number.desc()).limit(limit)))
