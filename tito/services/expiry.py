"""Ticket expiry and hold release (Celery beat: ``tito.expire_tickets``, ``tito.release_ticket_holds``).

Expiry only changes the status (``issued → expired``); the ticket stays outstanding
liability on ``tito:outstanding`` until the cage honours it with a supervisor's approval
or a supervisor voids it as breakage (see :mod:`tito.services.admin`). Releasing a hold
returns a ticket whose machine never committed to ``issued`` (it already counted as
issued for every channel once the hold passed).
"""

from __future__ import annotations

import structlog

from slotsys.kernel.context import ServiceContext

log = structlog.get_logger("tito")


class TicketExpiry:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def expire_tickets(self) -> int:
        """Mark unredeemed tickets past their expiry as expired; returns how many. Logged per run."""
        with self.ctx.uow() as uow:
            now = self.ctx.clock.now()
            n = uow.tickets.expire_due(now)
            if n:
                uow.tickets.log("expiry_run", actor="system:beat", at=now, expired=n)
            uow.commit()
        if n:
            log.info("tito.tickets_expired", count=n)
        return n

    def release_holds(self) -> int:
        """Pending tickets whose machine never committed within the hold → issued; returns how many."""
        with self.ctx.uow() as uow:
            now = self.ctx.clock.now()
            released = uow.tickets.release_expired_holds(now)
            for tid, _vn, loc in released:
                uow.tickets.log("released", actor="system:beat", at=now, ticket_id=tid, channel="machine",
                                location=loc, reason="hold expired without commit")
            uow.commit()
        if released:
            log.info("tito.holds_released", count=len(released))
        return len(released)
