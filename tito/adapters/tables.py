"""TITO tables: tickets, their event log, the brute-force guard, cage drawer sessions and
station counters. Amounts in won (BIGINT); timestamps aware UTC. Schema: migrations 0001
(tickets) and 0003_tito (everything else)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow

_ID = BigInteger().with_variant(Integer, "sqlite")


class Ticket(Base):
    __tablename__ = "tickets"
    id: Mapped[int] = mapped_column(_ID, primary_key=True)
    validation_number: Mapped[str] = mapped_column(String(18), unique=True)
    scheme: Mapped[str] = mapped_column(String(8), default="system", server_default="system")  # system | sas
    type: Mapped[str] = mapped_column(String(20), default="cashable")  # cashable | promotional | handpay_receipt
    amount: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(12), default="issued", index=True)
    issued_machine_id: Mapped[int | None] = mapped_column(ForeignKey("machines.id"), nullable=True)
    issued_by: Mapped[str] = mapped_column(String(20), default="", server_default="")  # asset number or station
    issued_location: Mapped[str] = mapped_column(String(60), default="")
    sequence: Mapped[int] = mapped_column(Integer)
    # SAS secure enhanced tickets (0014_ticket_ids): the sequence number used and the generation of the
    # machine's validation ID that made the number (the security report checks each machine's order)
    sas_sequence: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sas_generation: Mapped[int | None] = mapped_column(Integer, nullable=True)
    issued_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow, index=True)
    expires_at: Mapped[datetime] = mapped_column(TZDateTime)
    # machine ticket-in, phase 1 (authorised, held for the machine until pending_until)
    pending_location: Mapped[str | None] = mapped_column(String(60), nullable=True)
    pending_txn: Mapped[str | None] = mapped_column(String(32), nullable=True)
    pending_since: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    pending_until: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    redeemed_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True, index=True)
    redeemed_channel: Mapped[str | None] = mapped_column(String(12), nullable=True)  # cage | machine | kiosk
    redeemed_location: Mapped[str | None] = mapped_column(String(60), nullable=True)
    redeemed_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    redeemed_session_id: Mapped[int | None] = mapped_column(ForeignKey("drawer_sessions.id"), nullable=True)
    voided_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    voided_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    void_reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    expiry_override_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    expiry_override_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    expiry_override_reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    issue_entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    redeem_entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    void_entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)


class TicketEvent(Base):
    """Append-only trail of everything that happened to a ticket, or to a presented number
    that was not on file (``ticket_id`` NULL), and of terminal lock-outs."""

    __tablename__ = "ticket_events"
    id: Mapped[int] = mapped_column(_ID, primary_key=True)
    ticket_id: Mapped[int | None] = mapped_column(ForeignKey("tickets.id"), nullable=True, index=True)
    validation_number: Mapped[str | None] = mapped_column(String(18), nullable=True)
    kind: Mapped[str] = mapped_column(String(24))
    channel: Mapped[str | None] = mapped_column(String(12), nullable=True)
    location: Mapped[str | None] = mapped_column(String(60), nullable=True)
    actor: Mapped[str] = mapped_column(String(80))
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_ticket_events_kind_at", "kind", "at"),)


class TerminalGuard(Base):
    """Brute-force guard counter of one presenting terminal (``machine:M001``, ``staff:kiosk1`` ...)."""

    __tablename__ = "tito_terminal_guard"
    terminal: Mapped[str] = mapped_column(String(80), primary_key=True)
    window_start: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    blocked_until: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class DrawerSession(Base):
    """A cashier's drawer from opening float to count-out. ``open_drawer`` / ``open_cashier`` are
    set only while open, and unique: one open session per drawer and per cashier."""

    __tablename__ = "drawer_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    cage: Mapped[str] = mapped_column(String(20))
    drawer: Mapped[str] = mapped_column(String(20))
    cashier: Mapped[str] = mapped_column(String(60))
    status: Mapped[str] = mapped_column(String(8), default="open")  # open | closed
    open_drawer: Mapped[str | None] = mapped_column(String(41), nullable=True, unique=True)
    open_cashier: Mapped[str | None] = mapped_column(String(60), nullable=True, unique=True)
    opening_float: Mapped[int] = mapped_column(BigInteger)
    opened_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    expected_cash: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    counted_cash: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    variance: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class TitoCounter(Base):
    """Named counters, e.g. the ticket sequence of a non-machine issuing station."""

    __tablename__ = "tito_counters"
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger, default=0)


class PromoTicketRequest(Base):
    """A promotional ticket above the dual-control threshold, waiting for a second supervisor
    (migration 0013_promo_credits). ``status``: pending → approved (the ticket is printed, its id
    recorded) | refused. ``requested_by`` / ``decided_by`` are principal ids (``staff:<user>``)."""

    __tablename__ = "promo_ticket_requests"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    amount: Mapped[int] = mapped_column(BigInteger)
    credit_type: Mapped[str] = mapped_column(String(16))  # restricted | nonrestricted
    station: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(12), default="pending", index=True)
    requested_by: Mapped[str] = mapped_column(String(80))
    requested_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    decided_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    ticket_id: Mapped[int | None] = mapped_column(_ID, ForeignKey("tickets.id"), nullable=True)
