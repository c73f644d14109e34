"""Celery tasks of the TITO package (thin: they call a service)."""

from celery import shared_task


@shared_task(name="tito.expire_tickets")
def expire_tickets() -> int:
    from slotsys.bootstrap import services
    from tito.services.expiry import expire_tickets as run

    return run(services().ctx)
