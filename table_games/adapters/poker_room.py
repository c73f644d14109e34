"""Poker room tables (issue 9; migration 0009_poker_room): poker tables (rules in ``rules`` JSON, the button),
seats (one per player per table), hands (pokerkit inputs: starting stacks in pokerkit order, the CSPRNG-shuffled
deck, the player actions as PHH strings; at the end the PHH text, finishing stacks, rake and the journal entry).
A player's table stack is a ledger account (``poker:<code>:stack:<player>``), not a column here.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Integer, String, Text, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.kernel.errors import NotFound
from table_games.adapters.base import ByCodeRepo

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


class PokerRepo(ByCodeRepo):
    """Repository over the poker-room tables, bound to a unit of work's session (``PokerRepo(uow.session)``)."""

    model = PokerTable
    noun = "poker table"

    def seats(self, table_id: int) -> list[PokerSeat]:
        return list(self.s.scalars(select(PokerSeat).where(PokerSeat.table_id == table_id).order_by(PokerSeat.seat)))

    def hand(self, table_id: int, number: int) -> PokerHand:
        h = self.s.scalar(select(PokerHand).where(PokerHand.table_id == table_id, PokerHand.number == number))
        if h is None:
            raise NotFound(f"no hand {number} at this table", field="hand")
        return h

    def hands(self, table_id: int, limit: int = 50) -> list[PokerHand]:
        return list(self.s.scalars(select(PokerHand).where(PokerHand.table_id == table_id)
                                   .order_by(PokerHand.number.desc()).limit(limit)))
