"""Tables and repositories of machine links (heartbeat / offline), attendant alerts and handpays
(migration 0019_machine_alerts).

* ``machine_links``: one row per machine that has ever talked: ``last_heard_at`` (UTC), ``online``,
  ``offline_since``. Kept apart from ``machines`` so the heartbeat never writes the spin's hot row.
* ``alerts``: ``open → acknowledged → dispatched → resolved`` with who and when for each step
  (``slotsys.floor.domain.alerts``); ``repeats`` counts further events of the same kind while it is unresolved.
* ``handpays``: the handpay queue (jackpot handpays, cancelled-credit handpays of a cash-out above the ticket
  limit, handpays a machine reported) with the first (paying attendant) and second (supervisor) signers.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, Integer, String, case, func, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.floor.adapters.tables import Machine

ID = BigInteger().with_variant(Integer, "sqlite")


class MachineLink(Base):
    __tablename__ = "machine_links"
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"), primary_key=True)
    last_heard_at: Mapped[datetime] = mapped_column(TZDateTime)
    online: Mapped[bool] = mapped_column(Boolean, default=True)
    offline_since: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    __table_args__ = (Index("ix_machine_links_online_heard", "online", "last_heard_at"),)


class AlertRow(Base):
    __tablename__ = "alerts"
    id: Mapped[int] = mapped_column(ID, primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    kind: Mapped[str] = mapped_column(String(40))
    severity: Mapped[str] = mapped_column(String(8))
    security: Mapped[bool] = mapped_column(Boolean, default=False)
    state: Mapped[str] = mapped_column(String(12), default="open")
    event_id: Mapped[int | None] = mapped_column(ID, ForeignKey("machine_events.id"), nullable=True)
    repeats: Mapped[int] = mapped_column(Integer, default=0)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    opened_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    acknowledged_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    acknowledged_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    dispatched_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    dispatched_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    dispatched_to: Mapped[str | None] = mapped_column(String(60), nullable=True)
    resolved_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    resolved_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    resolution: Mapped[str] = mapped_column(String(400), default="")
    __table_args__ = (Index("ix_alerts_state_opened", "state", "opened_at"),
                      Index("ix_alerts_machine_kind_state", "machine_id", "kind", "state"))


class HandpayRow(Base):
    __tablename__ = "handpays"
    id: Mapped[int] = mapped_column(ID, primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    source: Mapped[str] = mapped_column(String(16))  # jackpot | cancelled_credit | machine_jackpot
    hit_id: Mapped[int | None] = mapped_column(ID, nullable=True, unique=True)
    amount: Mapped[int] = mapped_column(BigInteger)  # won
    state: Mapped[str] = mapped_column(String(10), default="pending")  # pending | paid | cancelled
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    signer1: Mapped[str | None] = mapped_column(String(60), nullable=True)
    signer1_role: Mapped[str | None] = mapped_column(String(20), nullable=True)
    signed1_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    signer2: Mapped[str | None] = mapped_column(String(60), nullable=True)
    signer2_role: Mapped[str | None] = mapped_column(String(20), nullable=True)
    signed2_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    paid_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    payout: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_handpays_state_created", "state", "created_at"),
                      Index("ix_handpays_machine_state", "machine_id", "state"))


class FloorEventsRepo:
    """Links, alerts and handpays on the unit of work's session (``uow.floor_events``)."""

    def __init__(self, session: Session) -> None:
        self.s = session

    # ------------------------------------------------------------ links
    def touch(self, machine_id: int, now: datetime) -> bool:
        """``last_heard_at = now`` for an online machine's link in one UPDATE; False when the machine has no link
        yet or is offline (the caller then takes :meth:`link_for_update`)."""
        r = self.s.execute(update(MachineLink).where(MachineLink.machine_id == machine_id, MachineLink.online.is_(True))
                           .values(last_heard_at=now))
        return r.rowcount > 0

    def touch_many(self, heard: dict[str, datetime]) -> set[str]:
        """``last_heard_at`` of each online machine in ``heard`` (asset → when it was heard) in one UPDATE (one
        more statement finds the machines' ids); returns the assets written. A machine that is offline, has no
        link yet or is unknown is not written (the caller takes the single-machine path for it)."""
        if not heard:
            return set()
        ids = dict(self.s.execute(select(Machine.id, Machine.asset_number)
                                  .where(Machine.asset_number.in_(list(heard)))).all())
        if not ids:
            return set()
        at = case({mid: heard[asset] for mid, asset in ids.items()}, value=MachineLink.machine_id)
        done = self.s.scalars(update(MachineLink)
                              .where(MachineLink.machine_id.in_(list(ids)), MachineLink.online.is_(True))
                              .values(last_heard_at=at).returning(MachineLink.machine_id)).all()
        return {ids[mid] for mid in done}

    def link_for_update(self, machine_id: int) -> MachineLink | None:
        return self.s.scalar(select(MachineLink).where(MachineLink.machine_id == machine_id).with_for_update())

    def add_link(self, machine_id: int, now: datetime) -> MachineLink:
        link = MachineLink(machine_id=machine_id, last_heard_at=now, online=True, offline_since=None)
        self.s.add(link)
        self.s.flush()
        return link

    def silent_since(self, cutoff: datetime, limit: int = 500) -> list[tuple[MachineLink, Machine]]:
        """Online links not heard since ``cutoff``, locked (SKIP LOCKED: a concurrent sweep takes others)."""
        q = (select(MachineLink, Machine).join(Machine, Machine.id == MachineLink.machine_id)
             .where(MachineLink.online.is_(True), MachineLink.last_heard_at < cutoff)
             .order_by(MachineLink.machine_id).limit(limit).with_for_update(of=MachineLink, skip_locked=True))
        return [(link, m) for link, m in self.s.execute(q)]

    def links(self) -> dict[int, MachineLink]:
        return {link.machine_id: link for link in self.s.scalars(select(MachineLink))}

    def asset_of(self, machine_id: int) -> str:
        return self.s.scalar(select(Machine.asset_number).where(Machine.id == machine_id))

    def link(self, machine_id: int) -> MachineLink | None:
        return self.s.get(MachineLink, machine_id)

    # ------------------------------------------------------------ alerts
    def add_alert(self, **kw) -> AlertRow:
        row = AlertRow(**kw)
        self.s.add(row)
        self.s.flush()
        return row

    def unresolved(self, machine_id: int, kind: str, *, for_update: bool = False) -> AlertRow | None:
        q = (select(AlertRow).where(AlertRow.machine_id == machine_id, AlertRow.kind == kind,
                                    AlertRow.state != "resolved").order_by(AlertRow.id.desc()).limit(1))
        return self.s.scalar(q.with_for_update() if for_update else q)

    def alert(self, alert_id: int, *, for_update: bool = False) -> AlertRow | None:
        q = select(AlertRow).where(AlertRow.id == alert_id)
        if for_update:
            q = q.with_for_update().execution_options(populate_existing=True)
        return self.s.scalar(q)

    def alerts(self, *, states: tuple[str, ...] | None = None, machine_id: int | None = None,
               kind: str | None = None, security: bool | None = None, since: datetime | None = None,
               before_id: int | None = None, limit: int = 100) -> list[tuple[AlertRow, str]]:
        """(alert, asset number), newest first; ``before_id``: the cursor of the next page."""
        q = select(AlertRow, Machine.asset_number).join(Machine, Machine.id == AlertRow.machine_id)
        if states:
            q = q.where(AlertRow.state.in_(states))
        if machine_id is not None:
            q = q.where(AlertRow.machine_id == machine_id)
        if kind:
            q = q.where(AlertRow.kind == kind)
        if security is not None:
            q = q.where(AlertRow.security.is_(security))
        if since:
            q = q.where(AlertRow.opened_at >= since)
        if before_id:
            q = q.where(AlertRow.id < before_id)
        return [(a, asset) for a, asset in self.s.execute(q.order_by(AlertRow.id.desc()).limit(limit))]

    # ------------------------------------------------------------ handpays
    def add_handpay(self, **kw) -> HandpayRow:
        row = HandpayRow(**kw)
        self.s.add(row)
        self.s.flush()
        return row

    def handpay(self, handpay_id: int, *, for_update: bool = False) -> HandpayRow | None:
        q = select(HandpayRow).where(HandpayRow.id == handpay_id)
        if for_update:
            q = q.with_for_update().execution_options(populate_existing=True)
        return self.s.scalar(q)

    def handpay_for_hit(self, hit_id: int) -> HandpayRow | None:
        return self.s.scalar(select(HandpayRow).where(HandpayRow.hit_id == hit_id))

    def paid_total(self, machine_id: int, source: str) -> int:
        """Won of the machine's handpays of ``source`` paid so far."""
        return int(self.s.scalar(select(func.coalesce(func.sum(HandpayRow.amount), 0)).where(
            HandpayRow.machine_id == machine_id, HandpayRow.source == source, HandpayRow.state == "paid")) or 0)

    def pending_handpay(self, machine_id: int, source: str) -> HandpayRow | None:
        return self.s.scalar(select(HandpayRow).where(HandpayRow.machine_id == machine_id, HandpayRow.source == source,
                                                      HandpayRow.state == "pending").limit(1))

    def handpays(self, *, states: tuple[str, ...] | None = None, before_id: int | None = None,
                 limit: int = 100) -> list[tuple[HandpayRow, str]]:
        q = select(HandpayRow, Machine.asset_number).join(Machine, Machine.id == HandpayRow.machine_id)
        if states:
            q = q.where(HandpayRow.state.in_(states))
        if before_id:
            q = q.where(HandpayRow.id < before_id)
        return [(h, asset) for h, asset in self.s.execute(q.order_by(HandpayRow.id.desc()).limit(limit))]
