"""Ticket table (TITO). Amounts in won."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.adapters.db import Base, TZDateTime, utcnow


class Ticket(Base):
    __tablename__ = "tickets"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    validation_number: Mapped[str] = mapped_column(String(18), unique=True)
    type: Mapped[str] = mapped_column(String(20), default="cashable")
    amount: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(12), default="issued", index=True)
    issued_machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    issued_location: Mapped[str] = mapped_column(String(60), default="")
    sequence: Mapped[int] = mapped_column(Integer)
    issued_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(TZDateTime)
    redeemed_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    redeemed_channel: Mapped[str | None] = mapped_column(String(12), nullable=True)  # cage | machine | kiosk
    redeemed_location: Mapped[str | None] = mapped_column(String(60), nullable=True)
    redeemed_by: Mapped[str | None] = mapped_column(String(60), nullable=True)
    issue_entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    redeem_entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
