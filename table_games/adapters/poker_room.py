"""Poker room tables (migration 0009_poker_room): poker tables (rules in ``rules`` JSON, the button),
seats (one per player per table), hands (pokerkit inputs: starting stacks in pokerkit order, the CSPRNG-shuffled
deck, the player actions as PHH strings; at the end the PHH text, finishing stacks, rake and the journal entry).
A player's table stack is a ledger account (``poker:<code>:stack:<player>``), not a column here.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Integer, String, Text, UniqueConstraint, delete, select
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.kernel.errors import NotFound
from table_games.adapters.base import ByCodeRepo, copied
from table_games.domain import model as M

_BIGID = BigInteger().with_variant(Integer, "sqlite")


class PokerTable(Base):
    __tablename__ = "poker_tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(20), unique=True)
    name: Mapped[str] = mapped_column(String(60), default="")
    rules: Mapped[dict] = mapped_column(JSON, default=dict)  # table_games.domain.poker_room.RoomConfig
    status: Mapped[str] = mapped_column(String(10), default="open")
    button_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hand_seq: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (CheckConstraint("status IN ('open', 'closed')", name="status"),)


class PokerSeat(Base):
    __tablename__ = "poker_seats"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("poker_tables.id"))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    sat_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("table_id", "seat", name="uq_poker_seats_seat"),
                      UniqueConstraint("table_id", "player_id", name="uq_poker_seats_player"),
                      CheckConstraint("seat >= 1 AND seat <= 10", name="seat"))


class PokerHand(Base):
    __tablename__ = "poker_hands"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("poker_tables.id"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(10), default="in_play")
    rules: Mapped[dict] = mapped_column(JSON, default=dict)  # the table's rules when the hand began
    button_seat: Mapped[int] = mapped_column(Integer)
    seats: Mapped[list] = mapped_column(JSON, default=list)  # [{"seat", "player_id"}] in pokerkit order
    starting_stacks: Mapped[list] = mapped_column(JSON, default=list)
    deck: Mapped[list] = mapped_column(JSON, default=list)  # the shuffled deck (never shown while in play)
    actions: Mapped[list] = mapped_column(JSON, default=list)  # PHH player actions, e.g. "p2 cbr 6000"
    phh: Mapped[str | None] = mapped_column(Text, nullable=True)
    finishing_stacks: Mapped[list | None] = mapped_column(JSON, nullable=True)
    rake: Mapped[int] = mapped_column(BigInteger, default=0)
    results: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    entry_id: Mapped[int | None] = mapped_column(_BIGID, nullable=True)
    started_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    __table_args__ = (UniqueConstraint("table_id", "number", name="uq_poker_hands_number"),
                      CheckConstraint("status IN ('in_play', 'complete')", name="status"),
                      CheckConstraint("rake >= 0", name="rake"))


def _table(row: PokerTable) -> M.PokerTable:
    return M.PokerTable(id=row.id, code=row.code, name=row.name, rules=copied(row.rules), status=row.status,
                        button_seat=row.button_seat, hand_seq=row.hand_seq)


def _hand(row: PokerHand) -> M.PokerHand:
    return M.PokerHand(id=row.id, table_id=row.table_id, number=row.number, rules=copied(row.rules),
                       button_seat=row.button_seat, seats=copied(row.seats), starting_stacks=copied(row.starting_stacks),
                       deck=copied(row.deck), actions=copied(row.actions), status=row.status, phh=row.phh,
                       finishing_stacks=copied(row.finishing_stacks), rake=row.rake, results=copied(row.results),
                       entry_id=row.entry_id, started_at=row.started_at, ended_at=row.ended_at)


class PokerRepo(ByCodeRepo[M.PokerTable]):
    """The poker room's repository (``uow.poker_tables``, :class:`table_games.services.ports.PokerRoomRepository`)."""

    model = PokerTable
    noun = "poker table"

    def record(self, row: PokerTable) -> M.PokerTable:
        return _table(row)

    def create(self, table: M.PokerTable) -> M.PokerTable:
        return _table(self._insert(PokerTable(code=table.code, name=table.name, rules=copied(table.rules),
                                              status=table.status, button_seat=table.button_seat,
                                              hand_seq=table.hand_seq)))

    def save(self, table: M.PokerTable) -> None:
        row = self._by_id(table.id)
        row.status, row.button_seat, row.hand_seq = table.status, table.button_seat, table.hand_seq
        self.s.flush()

    def seats(self, table_id: int) -> list[M.PokerSeat]:
        return [M.PokerSeat(s.seat, s.player_id)
                for s in self.s.scalars(select(PokerSeat).where(PokerSeat.table_id == table_id).order_by(PokerSeat.seat))]

    def add_seat(self, table_id: int, seat: M.PokerSeat) -> None:
        self._insert(PokerSeat(table_id=table_id, seat=seat.seat, player_id=seat.player_id))

    def remove_seat(self, table_id: int, seat: int) -> None:
        self.s.execute(delete(PokerSeat).where(PokerSeat.table_id == table_id, PokerSeat.seat == seat))

    def _hand_row(self, table_id: int, number: int) -> PokerHand:
        h = self.s.scalar(select(PokerHand).where(PokerHand.table_id == table_id, PokerHand.number == number))
        if h is None:
            raise NotFound(f"no hand {number} at this table", field="hand")
        return h

    def hand(self, table_id: int, number: int) -> M.PokerHand:
        return _hand(self._hand_row(table_id, number))

    def hands(self, table_id: int, limit: int = 50) -> list[M.PokerHand]:
        return [_hand(h) for h in self.s.scalars(select(PokerHand).where(PokerHand.table_id == table_id)
                                                 .order_by(PokerHand.number.desc()).limit(limit))]

    def add_hand(self, hand: M.PokerHand) -> M.PokerHand:
        return _hand(self._insert(PokerHand(
            table_id=hand.table_id, number=hand.number, status=hand.status, rules=copied(hand.rules),
            button_seat=hand.button_seat, seats=copied(hand.seats), starting_stacks=copied(hand.starting_stacks),
            deck=copied(hand.deck), actions=copied(hand.actions), rake=hand.rake, started_at=hand.started_at)))

    def save_hand(self, hand: M.PokerHand) -> None:
        row = self._hand_row(hand.table_id, hand.number)
        row.actions, row.status, row.phh = copied(hand.actions), hand.status, hand.phh
        row.finishing_stacks, row.rake, row.results = copied(hand.finishing_stacks), hand.rake, copied(hand.results)
        row.entry_id, row.ended_at = hand.entry_id, hand.ended_at
        self.s.flush()
