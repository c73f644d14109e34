"""Celery tasks of the jackpot controller (thin: they call a service)."""

from celery import shared_task


@shared_task(name="jackpot_controller.announce_hit", bind=True, max_retries=5, default_retry_delay=1, acks_late=True)
def announce_hit(self, hit_id: int) -> bool:
    from slotsys.bootstrap import services

    return services().jackpots.announce_hit(hit_id)


@shared_task(name="jackpot_controller.announce_pending")
def announce_pending() -> int:
    """Sweep: announce hits whose announcement was never enqueued (e.g. the broker was down)."""
    from slotsys.bootstrap import services

    return services().jackpots.announce_pending()
