"""Celery tasks of the TITO package (thin: they call a service of their Celery app). Scheduled by beat
(slotsys/server/celery_app.py): expiry every 10 minutes, hold release every 5 s."""

from celery import shared_task

from tito.services.expiry import expire_tickets as _expire_tickets
from tito.services.expiry import release_holds as _release_holds


@shared_task(name="tito.expire_tickets", bind=True)
def expire_tickets(self) -> int:
    return _expire_tickets(self.app.services.ctx)


@shared_task(name="tito.release_ticket_holds", bind=True)
def release_ticket_holds(self) -> int:
    return _release_holds(self.app.services.ctx)
