"""Gaming-day accounting's tables (migration 0023_day_close). Every table is append-only: rows are inserted,
never updated or deleted (a closed day, a count, a variance and its acceptance are records an auditor signs).

* ``day_meter_reads``: one row per gaming day whose meters were read (the instant ``at`` of the read, who made
  it). ``day_meter_snapshots``: each machine's meters (every meter of the machines table, ``game_seq``
  included), configuration, zone and bank in that read (``kind`` ``day_close``), one per (day, machine).
  Kept apart from the floor's ``machine_meter_snapshots`` (game changes, retirements): the read is keyed by
  gaming day (the unique key makes a second read of a day impossible, also under concurrent closes) and is
  written by accounting, which never writes another feature's table.
* ``closed_gaming_days``: one row per closed day: who closed it and when, the read it was closed from and the
  previous day's, the figures as JSON (roll-ups, journal, ties, liabilities, accountability).
  ``closed_day_machines``: one row per machine of a closed day (its figures, parts and ties as JSON), so the
  machine rows page through an index.
* ``drop_schedule_rules``: the drop schedule, one row per change (the latest per asset applies; asset ``*`` is
  the floor's default).
* ``drop_counts``: one row per stacker counted (notes per denomination, tickets, the counter), one count per
  (asset, stacker, drop day).
* ``count_variances``: one row per variance (drop counts, cage shift counts), one per (kind, subject, day).
  ``variance_acceptances``: one row per accepted variance: who, role, when, why.

Amounts are integer won (BIGINT); time stamps aware UTC.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, BigInteger, Date, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime

_ID = BigInteger().with_variant(Integer, "sqlite")


class DayMeterRead(Base):
    __tablename__ = "day_meter_reads"
    gaming_day: Mapped[date] = mapped_column(Date, primary_key=True)
    at: Mapped[datetime] = mapped_column(TZDateTime)
    actor: Mapped[str] = mapped_column(String(60))
    machines: Mapped[int] = mapped_column(Integer)


class DayMeterSnapshot(Base):
    __tablename__ = "day_meter_snapshots"
    id: Mapped[int] = mapped_column(_ID, primary_key=True)
    gaming_day: Mapped[date] = mapped_column(ForeignKey("day_meter_reads.gaming_day"))
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    asset_number: Mapped[str] = mapped_column(String(20))
    zone: Mapped[str] = mapped_column(String(20))
    bank: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(24))
    at: Mapped[datetime] = mapped_column(TZDateTime)
    game_id: Mapped[str] = mapped_column(String(60))
    variation: Mapped[str] = mapped_column(String(20))
    denomination: Mapped[int] = mapped_column(Integer)
    meters: Mapped[dict] = mapped_column(JSON)
    __table_args__ = (UniqueConstraint("gaming_day", "machine_id", name="uq_day_meter_snapshots_day_machine"),
                      Index("ix_day_meter_snapshots_machine_day", "machine_id", "gaming_day"))


class ClosedGamingDay(Base):
    __tablename__ = "closed_gaming_days"
    gaming_day: Mapped[date] = mapped_column(ForeignKey("day_meter_reads.gaming_day"), primary_key=True)
    closed_at: Mapped[datetime] = mapped_column(TZDateTime)
    closed_by: Mapped[str] = mapped_column(String(60))
    closed_role: Mapped[str] = mapped_column(String(20))
    read_at: Mapped[datetime] = mapped_column(TZDateTime)
    opened_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    figures: Mapped[dict] = mapped_column(JSON)


class ClosedDayMachine(Base):
    __tablename__ = "closed_day_machines"
    gaming_day: Mapped[date] = mapped_column(ForeignKey("closed_gaming_days.gaming_day"), primary_key=True)
    asset_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    zone: Mapped[str] = mapped_column(String(20))
    bank: Mapped[str] = mapped_column(String(20))
    figures: Mapped[dict] = mapped_column(JSON)
    __table_args__ = (Index("ix_closed_day_machines_day_zone_bank", "gaming_day", "zone", "bank", "asset_number"),)


class DropScheduleRule(Base):
    __tablename__ = "drop_schedule_rules"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    asset_number: Mapped[str] = mapped_column(String(20))  # "*": the floor's default
    weekdays: Mapped[list | None] = mapped_column(JSON, nullable=True)  # ISO weekdays 1-7
    every_days: Mapped[int | None] = mapped_column(Integer, nullable=True)
    anchor: Mapped[date | None] = mapped_column(Date, nullable=True)
    set_by: Mapped[str] = mapped_column(String(60))
    set_at: Mapped[datetime] = mapped_column(TZDateTime)
    reason: Mapped[str] = mapped_column(String(400), default="")
    __table_args__ = (Index("ix_drop_schedule_rules_asset_id", "asset_number", "id"),)


class DropCount(Base):
    __tablename__ = "drop_counts"
    id: Mapped[int] = mapped_column(_ID, primary_key=True)
    asset_number: Mapped[str] = mapped_column(String(20))
    stacker: Mapped[str] = mapped_column(String(20))
    gaming_day: Mapped[date] = mapped_column(Date)
    counter: Mapped[str] = mapped_column(String(60))
    counted_at: Mapped[datetime] = mapped_column(TZDateTime)
    bills: Mapped[dict] = mapped_column(JSON)  # note denomination (text) → notes
    tickets: Mapped[list] = mapped_column(JSON)  # [{"validation_number", "amount"}]
    bills_won: Mapped[int] = mapped_column(BigInteger)
    tickets_won: Mapped[int] = mapped_column(BigInteger)
    __table_args__ = (UniqueConstraint("asset_number", "stacker", "gaming_day", name="uq_drop_counts_stacker_day"),)


class CountVariance(Base):
    __tablename__ = "count_variances"
    id: Mapped[int] = mapped_column(_ID, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    subject: Mapped[str] = mapped_column(String(80))
    gaming_day: Mapped[date] = mapped_column(Date)
    counted: Mapped[int] = mapped_column(BigInteger)
    expected: Mapped[int] = mapped_column(BigInteger)
    count_difference: Mapped[int] = mapped_column(Integer, default=0)
    missing: Mapped[list] = mapped_column(JSON)
    extra: Mapped[list] = mapped_column(JSON)
    counter: Mapped[str] = mapped_column(String(60))
    balanced: Mapped[bool] = mapped_column(default=False)
    count_id: Mapped[int | None] = mapped_column(ForeignKey("drop_counts.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(TZDateTime)
    __table_args__ = (UniqueConstraint("kind", "subject", "gaming_day", name="uq_count_variances_kind_subject_day"),
                      Index("ix_count_variances_day", "gaming_day"))


class VarianceAcceptance(Base):
    __tablename__ = "variance_acceptances"
    id: Mapped[int] = mapped_column(_ID, primary_key=True)
    variance_id: Mapped[int] = mapped_column(ForeignKey("count_variances.id"), unique=True)
    accepted_by: Mapped[str] = mapped_column(String(60))
    role: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str] = mapped_column(String(400))
    at: Mapped[datetime] = mapped_column(TZDateTime)
