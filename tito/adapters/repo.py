"""Ticket persistence. Redemption is one conditional UPDATE (atomic on PostgreSQL)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tito.adapters.tables import Ticket


class TicketRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def add(self, ticket: Ticket) -> Ticket:
        self.s.add(ticket)
        self.s.flush()
        return ticket

    def exists(self, validation_number: str) -> bool:
        return self.s.scalar(select(Ticket.id).where(Ticket.validation_number == validation_number)) is not None

    def get(self, validation_number: str, *, for_update: bool = False) -> Ticket | None:
        stmt = select(Ticket).where(Ticket.validation_number == validation_number)
        if for_update:
            stmt = stmt.with_for_update()
        return self.s.scalar(stmt)

    def mark_redeemed(
        self, ticket_id: int, *, at: datetime, channel: str, location: str, by: str, entry_id: int | None = None
    ) -> bool:
        """issued → redeemed, only if still issued. Returns False if another transaction won."""
        res = self.s.execute(
            update(Ticket)
            .where(Ticket.id == ticket_id, Ticket.status == "issued")
            .values(status="redeemed", redeemed_at=at, redeemed_channel=channel, redeemed_location=location, redeemed_by=by)
        )
        return res.rowcount == 1

    def set_redeem_entry(self, ticket_id: int, entry_id: int) -> None:
        self.s.execute(update(Ticket).where(Ticket.id == ticket_id).values(redeem_entry_id=entry_id))

    def expire_due(self, now: datetime) -> int:
        res = self.s.execute(
            update(Ticket).where(Ticket.status == "issued", Ticket.expires_at <= now).values(status="expired")
        )
        return res.rowcount

    def outstanding_total(self) -> int:
        return int(
            self.s.scalar(
                select(func.coalesce(func.sum(Ticket.amount), 0)).where(Ticket.status.in_(("issued", "pending", "expired")))
            )
        )

    def counts(self) -> dict[str, int]:
        rows = self.s.execute(select(Ticket.status, func.count()).group_by(Ticket.status)).all()
        return {status: int(n) for status, n in rows}
