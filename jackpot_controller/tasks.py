"""Celery tasks of the jackpot controller (thin: they call the service their Celery app was built with).

``award`` and ``announce_hit`` are idempotent (a retried or duplicated task never pays or
announces twice); ``fold`` and ``sweep`` run from beat as the safety net of the sequencer."""

from celery import shared_task


@shared_task(name="jackpot_controller.award", bind=True, max_retries=10, default_retry_delay=1, acks_late=True)
def award(self, hit_id: int):
    """Claim and award one hit (credit, handpay lock or verification lock), exactly once."""
    try:
        return self.app.services.jackpots.awards.process(hit_id)
    except Exception as e:  # e.g. the database restarting: retry; the claim protocol keeps it exactly once
        raise self.retry(exc=e) from e


@shared_task(name="jackpot_controller.announce_hit", bind=True, max_retries=5, default_retry_delay=1, acks_late=True)
def announce_hit(self, hit_id: int) -> bool:
    return self.app.services.jackpots.signage.announce_hit(hit_id)


@shared_task(name="jackpot_controller.announce_pending", bind=True)
def announce_pending(self) -> int:
    """Sweep: announce hits whose announcement was never enqueued (e.g. the broker was down)."""
    return self.app.services.jackpots.signage.announce_pending()


@shared_task(name="jackpot_controller.fold", bind=True)
def fold(self) -> int:
    """Fold the wagers waiting in the sequencer's queue (beat, every second; in the ``process`` mode only
    while no sequencer process holds the lease)."""
    return self.app.services.jackpots.sequencer.fold_safety_net()


@shared_task(name="jackpot_controller.sweep", bind=True)
def sweep(self) -> dict:
    """Fold, release claims past the commit timeout, award hits whose task was lost, announce."""
    return self.app.services.jackpots.sweeper.run().model_dump()
