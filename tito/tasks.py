"""Celery tasks of the TITO package (thin: they call a service). Scheduled by beat
(slotsys/server/celery_app.py): expiry every 10 minutes, hold release every 5 s."""

from celery import shared_task


@shared_task(name="tito.expire_tickets")
def expire_tickets() -> int:
    from slotsys.app.bootstrap import services
    from tito.services.expiry import expire_tickets as run

    return run(services().ctx)


@shared_task(name="tito.release_ticket_holds")
def release_ticket_holds() -> int:
    from slotsys.app.bootstrap import services
    from tito.services.expiry import release_holds as run

    return run(services().ctx)
