"""Ticket expiry (run by Celery beat)."""

from __future__ import annotations

from slotsys.services.context import ServiceContext


def expire_tickets(ctx: ServiceContext) -> int:
    """Mark issued tickets past their expiry as expired; returns how many. The ledger keeps
    them as outstanding liability (the cage may still honour them by house rule)."""
    with ctx.uow() as uow:
        n = uow.tickets.expire_due(ctx.clock.now())
        uow.commit()
        return n
