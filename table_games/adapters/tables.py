"""Table-games tables: tables (game, rules variant, limits, chip and commission units, status, the
baccarat shoe), seats, rounds (outcome, settlements) and bets. Money is BIGINT won; balances are
ledger accounts (``table:<code>:bets`` / ``table:<code>:hold``), not here. Migrations: 0006_tables, 0007_table_backers,
0008_table_poker (``progressive_level``: the jackpot controller's ``table`` level the progressive side bet feeds).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow

_BIGID = BigInteger().with_variant(Integer, "sqlite")


class GameTable(Base):
    __tablename__ = "game_tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(20), unique=True)
    game: Mapped[str] = mapped_column(String(30))
    name: Mapped[str] = mapped_column(String(60), default="")
    rules: Mapped[dict] = mapped_column(JSON, default=dict)
    limits: Mapped[dict] = mapped_column(JSON, default=dict)
    chip_unit: Mapped[int] = mapped_column(BigInteger)
    commission_unit: Mapped[int] = mapped_column(BigInteger, default=100)
    status: Mapped[str] = mapped_column(String(10), default="open")
    round_seq: Mapped[int] = mapped_column(Integer, default=0)
    shoe_no: Mapped[int] = mapped_column(Integer, default=0)
    shoe: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # baccarat: {"cards", "pos", "cut_index", "burned"}
    progressive_level: Mapped[str | None] = mapped_column(String(40), nullable=True)  # 0008: a jackpot ``table`` level
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("status IN ('open', 'closed', 'private')", name="status"),
        CheckConstraint("chip_unit > 0 AND commission_unit > 0", name="units"),
    )


class TableSeat(Base):
    __tablename__ = "table_seats"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    seat: Mapped[str] = mapped_column(String(10))
    player_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    sat_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("table_id", "seat", name="uq_table_seats_seat"),)


class TableBacker(Base):
    """A seated player's permission for ``player_id`` (a spectator) to back the box at ``seat``. Live only while
    ``granted_by_player`` still sits there; revoked by deleting the row (migration 0007_table_backers)."""

    __tablename__ = "table_backers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    seat: Mapped[str] = mapped_column(String(10))
    player_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    granted_by_player: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    granted_by: Mapped[str] = mapped_column(String(80))
    granted_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("table_id", "seat", "player_id", name="uq_table_backers_backer"),)


class TableRound(Base):
    __tablename__ = "table_rounds"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(15), default="betting")
    mode: Mapped[str | None] = mapped_column(String(10), nullable=True)  # rng | input
    shoe_no: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # in play: mode, cards, decisions (+ pai gow banker)
    outcome: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    settlements: Mapped[list | None] = mapped_column(JSON, nullable=True)
    house_net: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    opened_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    settled_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    __table_args__ = (
        UniqueConstraint("table_id", "number", name="uq_table_rounds_number"),
        CheckConstraint("status IN ('betting', 'no_more_bets', 'settled', 'void')", name="status"),
    )


class TableBet(Base):
    __tablename__ = "table_bets"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    round_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("table_rounds.id"), index=True)
    player_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    spot: Mapped[str] = mapped_column(String(40))
    box: Mapped[str | None] = mapped_column(String(10), nullable=True)
    amount: Mapped[int] = mapped_column(BigInteger)
    cap: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    entry_id: Mapped[int | None] = mapped_column(_BIGID, nullable=True)
    colour: Mapped[str | None] = mapped_column(String(20), nullable=True)  # roulette: bet in this colour's chips
    placed_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (CheckConstraint("amount > 0", name="amount"),)


class ColourStack(Base):
    """Roulette colour chips a seated player holds (their value sits in ``table:<code>:chips``)."""

    __tablename__ = "table_colour_stacks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    player_id: Mapped[int] = mapped_column(_BIGID, ForeignKey("players.id"))
    colour: Mapped[str] = mapped_column(String(20))
    chip_value: Mapped[int] = mapped_column(BigInteger)
    chips: Mapped[int] = mapped_column(BigInteger, default=0)
    __table_args__ = (UniqueConstraint("table_id", "colour", name="uq_table_colour_stacks_colour"),
                      UniqueConstraint("table_id", "player_id", name="uq_table_colour_stacks_player"),
                      CheckConstraint("chip_value > 0 AND chips >= 0", name="chips"))
