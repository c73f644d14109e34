"""Mahjong tables: tables (rules, point value, house fee, buy-in range, hand counter, riichi sticks
carried), seats E/S/W/N, and every scored or drawn hand (declaration, result, points and won per seat, fee,
journal entry). Money is BIGINT won; the players' table stacks are ledger accounts
(``mahjong:<code>:stack:<player>``), not columns here. Migration: 0010_mahjong.

:class:`MahjongRepo` is registered with the unit of work as ``uow.mahjong_tables``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Integer, String, UniqueConstraint, delete, select
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.kernel.errors import NotFound
from table_games.adapters.base import ByCodeRepo, copied
from table_games.domain import model as M

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


def _table(row: MahjongTable) -> M.MahjongTable:
    return M.MahjongTable(id=row.id, code=row.code, name=row.name, rules=copied(row.rules),
                          point_value=row.point_value, fee_ppm=row.fee_ppm, fee_unit=row.fee_unit,
                          min_buy_in=row.min_buy_in, max_buy_in=row.max_buy_in, status=row.status,
                          hand_seq=row.hand_seq, riichi_pot=row.riichi_pot)


def _hand(row: MahjongHand) -> M.MahjongHand:
    return M.MahjongHand(id=row.id, table_id=row.table_id, number=row.number, kind=row.kind, rule_set=row.rule_set,
                         dealer=row.dealer, recorded_by=row.recorded_by, winner=row.winner, discarder=row.discarder,
                         declaration=copied(row.declaration), result=copied(row.result),
                         settlement=copied(row.settlement), fee=row.fee, entry_id=row.entry_id,
                         created_at=row.created_at)


class MahjongRepo(ByCodeRepo[M.MahjongTable]):
    """The mahjong repository (``uow.mahjong_tables``, :class:`table_games.services.ports.MahjongRepository`)."""

    model = MahjongTable
    noun = "mahjong table"

    def record(self, row: MahjongTable) -> M.MahjongTable:
        return _table(row)

    def create(self, table: M.MahjongTable) -> M.MahjongTable:
        return _table(self._insert(MahjongTable(
            code=table.code, name=table.name, rules=copied(table.rules), point_value=table.point_value,
            fee_ppm=table.fee_ppm, fee_unit=table.fee_unit, min_buy_in=table.min_buy_in,
            max_buy_in=table.max_buy_in, status=table.status, hand_seq=table.hand_seq, riichi_pot=table.riichi_pot)))

    def save(self, table: M.MahjongTable) -> None:
        row = self._by_id(table.id)
        row.status, row.hand_seq, row.riichi_pot = table.status, table.hand_seq, table.riichi_pot
        self.s.flush()

    def seats(self, table_id: int) -> list[M.MahjongSeat]:
        return [M.MahjongSeat(s.seat, s.player_id)
                for s in self.s.scalars(select(MahjongSeat).where(MahjongSeat.table_id == table_id)
                                        .order_by(MahjongSeat.seat))]

    def add_seat(self, table_id: int, seat: M.MahjongSeat) -> None:
        self._insert(MahjongSeat(table_id=table_id, seat=seat.seat, player_id=seat.player_id))

    def remove_seat(self, table_id: int, seat: str) -> None:
        self.s.execute(delete(MahjongSeat).where(MahjongSeat.table_id == table_id, MahjongSeat.seat == seat))

    def hand(self, table_id: int, number: int) -> M.MahjongHand:
        h = self.s.scalar(select(MahjongHand).where(MahjongHand.table_id == table_id, MahjongHand.number == number))
        if h is None:
            raise NotFound(f"no hand {number} at this table", field="number")
        return _hand(h)

    def hands(self, table_id: int, limit: int = 100) -> list[M.MahjongHand]:
        return [_hand(h) for h in self.s.scalars(select(MahjongHand).where(MahjongHand.table_id == table_id)
                                                 .order_by(MahjongHand.number.desc()).limit(limit))]

    def add_hand(self, hand: M.MahjongHand) -> M.MahjongHand:
        return _hand(self._insert(MahjongHand(
            table_id=hand.table_id, number=hand.number, kind=hand.kind, rule_set=hand.rule_set, dealer=hand.dealer,
            winner=hand.winner, discarder=hand.discarder, declaration=copied(hand.declaration),
            result=copied(hand.result), settlement=copied(hand.settlement), fee=hand.fee, entry_id=hand.entry_id,
            recorded_by=hand.recorded_by)))
