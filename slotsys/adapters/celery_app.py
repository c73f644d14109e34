"""Celery wiring: Redis broker in production, eager (in-process) in the embedded default."""

from __future__ import annotations

import importlib

from celery import Celery

from slotsys.settings import Settings

TASK_MODULES = ["slotsys.tasks", "tito.tasks", "jackpot_controller.tasks"]


def make_celery(settings: Settings) -> Celery:
    app = Celery("slotsys", broker=settings.redis_url or "memory://", include=TASK_MODULES)
    app.conf.update(
        task_always_eager=settings.eager,
        task_eager_propagates=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
        timezone="UTC",
        beat_schedule={
            "expire-tickets": {"task": "tito.expire_tickets", "schedule": 600.0},
            "release-ticket-holds": {"task": "tito.release_ticket_holds", "schedule": 5.0},
            "announce-pending-hits": {"task": "jackpot_controller.announce_pending", "schedule": 5.0},
            "jackpot-fold": {"task": "jackpot_controller.fold", "schedule": 1.0},  # the sequencer's safety net
            "jackpot-sweep": {"task": "jackpot_controller.sweep", "schedule": 5.0},  # lost awards, claim timeouts
            "expire-idle-points": {"task": "slotsys.expire_idle_points", "schedule": 3600.0},
            # idempotency records past SLOTSYS_IDEMPOTENCY_RETENTION_DAYS, in bounded batches (services/retention.py)
            "purge-idempotency": {"task": "slotsys.purge_idempotency",
                                  "schedule": float(settings.idempotency_purge_interval_s)},
        },
    )
    app.set_default()
    for module in TASK_MODULES:  # register the shared tasks with this app now, not only in workers
        importlib.import_module(module)
    app.finalize(auto=True)
    return app
