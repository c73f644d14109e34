"""Celery tasks of the TITO package (thin: they call a service of their Celery app). Scheduled by beat
(slotsys/server/celery_app.py): expiry every 10 minutes, hold release every 5 s."""

from celery import shared_task


@shared_task(name="tito.expire_tickets", bind=True)
def expire_tickets(self) -> int:
    return self.app.services.tito.expiry.expire_tickets()


@shared_task(name="tito.release_ticket_holds", bind=True)
def release_ticket_holds(self) -> int:
    return self.app.services.tito.expiry.release_holds()
