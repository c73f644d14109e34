"""Floor administration's tables and repository (migration 0018_floor_admin): banks and machine meter snapshots.

* ``banks``: a bank of machines in one zone (``code`` as machines.bank holds it, ``orientation`` of the bank on
  the floor plan: N/E/S/W, the side its players face), retired with ``retired_at``.
* ``machine_meter_snapshots``: a machine's meters and game configuration at a change that needs them kept
  (``kind``: ``enrol``, ``game_change_before``, ``game_change_after``, ``retire``), who made it and why.

The repository reads and writes zones, banks, snapshots and the administrative views of machines; the play path
never touches it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.floor.adapters.tables import Machine, Zone


class Bank(Base):
    __tablename__ = "banks"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    zone: Mapped[str] = mapped_column(ForeignKey("zones.code"))
    orientation: Mapped[str] = mapped_column(String(1), default="N", server_default="N")
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class MachineMeterSnapshot(Base):
    __tablename__ = "machine_meter_snapshots"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    asset_number: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(24))
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(60))
    game_id: Mapped[str] = mapped_column(String(60))
    variation: Mapped[str] = mapped_column(String(20))
    denomination: Mapped[int] = mapped_column(Integer)
    meters: Mapped[dict] = mapped_column(JSON)
    reason: Mapped[str] = mapped_column(String(400), default="")
    __table_args__ = (Index("ix_machine_meter_snapshots_machine_at", "machine_id", "at"),)


class FloorAdminRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    # ---- zones
    def zone(self, code: str, *, for_update: bool = False) -> Zone | None:
        q = select(Zone).where(Zone.code == code)
        return self.s.scalar(q.with_for_update() if for_update else q)

    def zones(self) -> list[Zone]:
        return list(self.s.scalars(select(Zone).order_by(Zone.code)))

    def add_zone(self, code: str, name: str) -> Zone:
        z = Zone(code=code, name=name)
        self.s.add(z)
        self.s.flush()
        return z

    # ---- banks
    def bank(self, code: str, *, for_update: bool = False) -> Bank | None:
        q = select(Bank).where(Bank.code == code)
        return self.s.scalar(q.with_for_update() if for_update else q)

    def banks(self, zone: str | None = None) -> list[Bank]:
        q = select(Bank).order_by(Bank.zone, Bank.code)
        if zone is not None:
            q = q.where(Bank.zone == zone)
        return list(self.s.scalars(q))

    def add_bank(self, code: str, name: str, zone: str, orientation: str) -> Bank:
        b = Bank(code=code, name=name, zone=zone, orientation=orientation)
        self.s.add(b)
        self.s.flush()
        return b

    # ---- machines
    def machine(self, asset: str, *, for_update: bool = False) -> Machine | None:
        q = select(Machine).where(Machine.asset_number == asset)
        return self.s.scalar(q.with_for_update() if for_update else q)

    def machines(self, *, include_retired: bool = False, zone: str | None = None, bank: str | None = None
                 ) -> list[Machine]:
        q = select(Machine).order_by(Machine.zone, Machine.bank, Machine.asset_number)
        if not include_retired:
            q = q.where(Machine.retired_at.is_(None))
        if zone is not None:
            q = q.where(Machine.zone == zone)
        if bank is not None:
            q = q.where(Machine.bank == bank)
        return list(self.s.scalars(q))

    def active_machine_count(self, *, zone: str | None = None, bank: str | None = None) -> int:
        q = select(func.count()).select_from(Machine).where(Machine.retired_at.is_(None))
        if zone is not None:
            q = q.where(Machine.zone == zone)
        if bank is not None:
            q = q.where(Machine.bank == bank)
        return int(self.s.scalar(q) or 0)

    def insert_machine(self, machine: Machine) -> bool:
        """INSERT a new machine in a savepoint: False (and nothing inserted, the transaction still usable) if a
        unique index refused it: its asset number or floor-plan cell was taken by a concurrent enrolment."""
        try:
            with self.s.begin_nested():
                self.s.add(machine)
                self.s.flush()
        except IntegrityError:
            return False
        return True

    def set_cell(self, m: Machine, x: int | None, y: int | None) -> bool:
        """Put ``m`` on the floor-plan cell (x, y) in a savepoint: False if a concurrent change took the cell
        (the unique index), with ``m`` left where it was."""
        try:
            with self.s.begin_nested():
                m.plan_x, m.plan_y = x, y
                self.s.flush()
        except IntegrityError:
            return False
        return True

    def machine_at(self, x: int, y: int) -> Machine | None:
        return self.s.scalar(select(Machine).where(Machine.plan_x == x, Machine.plan_y == y))

    # ---- meter snapshots
    def snapshot(self, m: Machine, kind: str, *, actor: str, meters: dict, reason: str = "",
                 at: datetime | None = None) -> MachineMeterSnapshot:
        row = MachineMeterSnapshot(machine_id=m.id, asset_number=m.asset_number, kind=kind, at=at or utcnow(),
                                   actor=actor, game_id=m.game_id, variation=m.variation or "",
                                   denomination=m.denomination, meters=meters, reason=reason)
        self.s.add(row)
        self.s.flush()
        return row

    def snapshots(self, machine_id: int) -> list[MachineMeterSnapshot]:
        return list(self.s.scalars(select(MachineMeterSnapshot).where(MachineMeterSnapshot.machine_id == machine_id)
                                   .order_by(MachineMeterSnapshot.id)))

