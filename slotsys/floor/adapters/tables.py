"""The slot floor's tables: zones, machines (with their meters), game rounds (recall) and the machine event log.

Money columns are BIGINT won. Timestamps are UTC.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, SmallInteger, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, registry

from slotsys.floor.domain.machine import Machine
from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow

mapper_registry = registry(metadata=Base.metadata)


class Zone(Base):
    """A floor zone (VIP, MASS …). ``code`` never changes (jackpot levels and banks reference it); ``name`` may be
    renamed; ``retired_at`` set when the zone is retired (migration 0018: only with no active machine or bank)."""

    __tablename__ = "zones"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    retired_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


# The machine is a domain object (slotsys.floor.domain.machine.Machine) mapped onto this table (imperative
# mapping: the domain class imports no SQLAlchemy). Meters are won unless stated; they change only with a game or a
# money event and never go backwards. TITO's columns (validation scheme, SAS validation ID, sequence, generation,
# ticket sequence) and the floor administration's are documented on the domain class.
machines = Table(
    "machines",
    Base.metadata,
    Column("id", Integer, primary_key=True),
    Column("asset_number", String(20), unique=True, nullable=False),
    Column("zone", String(20), ForeignKey("zones.code"), nullable=False),
    Column("bank", String(20), default="", nullable=False),
    Column("denomination", Integer, nullable=False),  # won per credit
    Column("game_id", String(60), nullable=False),
    Column("variation", String(20), default="", nullable=False),
    Column("status", String(16), default="active", nullable=False),  # active | locked
    Column("lock_reason", String(200), default="", nullable=False),
    Column("key_hash", String(64), unique=True, nullable=False),
    Column("game_seq", BigInteger, default=0, nullable=False),
    Column("ticket_seq", Integer, default=0, nullable=False),
    Column("validation_scheme", String(8), default="system", server_default="system", nullable=False),
    Column("sas_validation_id", Integer, nullable=True, unique=True, index=True),
    Column("sas_sequence", Integer, default=0, server_default="0", nullable=False),  # next, 0..0xFFFFFF
    Column("sas_generation", Integer, default=0, server_default="0", nullable=False),
    Column("handpay_out", BigInteger, default=0, server_default="0", nullable=False),  # handpay receipts, won
    Column("handpay_out_count", Integer, default=0, server_default="0", nullable=False),
    Column("coin_in", BigInteger, default=0, nullable=False),
    Column("coin_out", BigInteger, default=0, nullable=False),
    Column("jackpot_out", BigInteger, default=0, nullable=False),  # progressive/mystery awards
    Column("games_played", BigInteger, default=0, nullable=False),
    Column("games_won", BigInteger, default=0, nullable=False),
    Column("bills_in", BigInteger, default=0, nullable=False),
    Column("tickets_in", BigInteger, default=0, nullable=False),
    Column("tickets_out", BigInteger, default=0, nullable=False),
    Column("tickets_in_count", Integer, default=0, nullable=False),
    Column("tickets_out_count", Integer, default=0, nullable=False),
    Column("created_at", TZDateTime, default=utcnow, nullable=False),
    Column("restricted_played", BigInteger, default=0, server_default="0", nullable=False),
    Column("nonrestricted_played", BigInteger, default=0, server_default="0", nullable=False),
    Column("credit_limit", BigInteger, nullable=True),
    Column("outcome_source", String(8), default="server", server_default="server", nullable=False),
    Column("serial", String(40), default="", server_default="", nullable=False),
    Column("manufacturer", String(60), default="", server_default="", nullable=False),
    Column("model", String(60), default="", server_default="", nullable=False),
    Column("denominations", JSON, nullable=True),
    Column("max_bet", BigInteger, nullable=True),
    Column("plan_x", Integer, nullable=True),
    Column("plan_y", Integer, nullable=True),
    Column("retired_at", TZDateTime, nullable=True),
    Column("sas_meter_base", JSON, nullable=True),  # {"machine": {...}, "floor": {...}} at the first SAS enrolment
)


mapper_registry.map_imperatively(Machine, machines)


class GameRound(Base):
    __tablename__ = "game_rounds"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    game_number: Mapped[int] = mapped_column(BigInteger)
    bet: Mapped[dict] = mapped_column(JSON)
    bet_won: Mapped[int] = mapped_column(BigInteger)
    win_won: Mapped[int] = mapped_column(BigInteger)
    outcome: Mapped[dict] = mapped_column(JSON)  # stops, window, wins
    jackpots: Mapped[list] = mapped_column(JSON, default=list)
    credits_before: Mapped[int] = mapped_column(BigInteger)
    credits_after: Mapped[int] = mapped_column(BigInteger)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("machine_id", "game_number", name="machine_game"),)


class MachineEventRow(Base):
    """The machine event log (migration 0017): one row per event a machine reported (``source`` ``api`` or
    ``sas``) or the system noticed (``system``: offline, a refused game report). ``kind`` is the event's name
    in the vocabulary of ``slotsys.floor.domain.machine_events`` (SAS general exception codes; ``sas_code`` the
    exception code where SAS has one), ``game_number`` the game in progress when known, ``at`` the time the
    service recorded it (UTC), ``reported_at`` the machine's own time stamp if it sent one."""

    __tablename__ = "machine_events"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    reported_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    kind: Mapped[str] = mapped_column(String(40))
    sas_code: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    source: Mapped[str] = mapped_column(String(8), default="api")
    game_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_machine_events_machine_at", "machine_id", "at"),
                      Index("ix_machine_events_kind_at", "kind", "at"))


Index("ix_machines_plan_cell", Machine.plan_x, Machine.plan_y, unique=True)  # one machine per floor-plan cell (0018)
Index("ix_game_rounds_machine_recent", GameRound.machine_id, GameRound.game_number.desc())
Index("ix_game_rounds_created_at", GameRound.created_at)  # the floor screens' "today" figures (migration 0011)
