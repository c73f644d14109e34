"""Celery wiring: Redis broker in production, eager (in-process) in the embedded default.

Broker outages (docs/resilience.md): the Redis transport is kombu's with one fix
(``slotsys.server.celery_broker``: a channel of the connection the consumer has just closed raised
``AttributeError … 'hostname'``, which made the worker exit when Redis went away while tasks ran); the
worker retries its broker connection forever (``broker_connection_max_retries=None``; Celery's default, 100
attempts, ends the worker after about 47 minutes away); its consumer runs without the Gossip and Mingle
steps (``slotsys.server.celery_consumer``: their restart used channels of the closed connection too);
every Redis socket has a timeout and TCP keepalive (``BROKER_TRANSPORT_OPTIONS``), so a Redis that hangs
instead of refusing is noticed as well. Awards whose task could not be enqueued while Redis was away are
paid by beat's sweep (``jackpot_controller.sweep``) from PostgreSQL.
"""

from __future__ import annotations

import importlib

from celery import Celery
from celery.schedules import crontab

from slotsys.kernel.settings import Settings

TASK_MODULES = ["slotsys.app.tasks", "tito.tasks", "jackpot_controller.tasks"]

# kombu's Redis transport with the fix for a channel of a closed connection (see that module)
REDIS_TRANSPORT = "slotsys.server.celery_broker:Transport"

# kombu's Redis transport options (seconds). socket_timeout bounds a blocking command (a publish, an ack) on a
# Redis that stopped answering; it is above the transport's 1 s BRPOP timeout. health_check_interval: a
# connection idle that long is PINGed before use. retry_on_timeout stays off: a timed-out publish is not
# replayed blindly (the sweep pays whatever was not enqueued; a duplicate award task pays nothing anyway).
BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": 10.0,
    "socket_connect_timeout": 3.0,
    "socket_keepalive": True,
    "health_check_interval": 10,
    "retry_on_timeout": False,
}


def make_celery(settings: Settings, *, offline_sweep_s: float = 5.0, accounting_beat_s: float = 30.0) -> Celery:
    """The Celery app for ``settings``; ``offline_sweep_s``: how often beat sweeps for silent machines
    (``SLOTSYS_MACHINE_OFFLINE_SWEEP_S``); ``accounting_beat_s``: how often beat looks for a gaming day to read
    and close (``SLOTSYS_ACCOUNTING_BEAT_INTERVAL_S``)."""
    app = Celery("slotsys", broker=settings.redis_url or "memory://", include=TASK_MODULES)
    app.conf.update(
        task_always_eager=settings.eager,
        task_eager_propagates=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        broker_connection_retry=True,
        broker_connection_max_retries=None,  # retry for as long as Redis is away (default: 100 attempts, then exit)
        broker_connection_timeout=3.0,
        broker_transport_options=BROKER_TRANSPORT_OPTIONS,
        worker_consumer="slotsys.server.celery_consumer:Consumer",  # no Gossip/Mingle: see that module
        **({"broker_transport": REDIS_TRANSPORT} if (settings.redis_url or "").startswith("redis://") else {}),
        task_ignore_result=True,
        timezone="UTC",
        beat_schedule={
            "expire-tickets": {"task": "tito.expire_tickets", "schedule": 600.0},
            "release-ticket-holds": {"task": "tito.release_ticket_holds", "schedule": 5.0},
            "announce-pending-hits": {"task": "jackpot_controller.announce_pending", "schedule": 5.0},
            "jackpot-fold": {"task": "jackpot_controller.fold", "schedule": 1.0},  # the sequencer's safety net
            "jackpot-sweep": {"task": "jackpot_controller.sweep", "schedule": 5.0},  # lost awards, claim timeouts
            "expire-idle-points": {"task": "slotsys.expire_idle_points", "schedule": 3600.0},
            # AFT transfers the SAS host never took: expired, their wallet holds returned (players/services/aft.py)
            "expire-aft-transfers": {"task": "slotsys.expire_aft_transfers", "schedule": 10.0},
            # machines silent past SLOTSYS_MACHINE_OFFLINE_AFTER_S → comms_lost + alert (services/floor_events.py)
            "machines-offline-sweep": {"task": "slotsys.machines_offline_sweep",
                                       "schedule": float(offline_sweep_s)},
            # the gaming-day close (06:00 Asia/Seoul): machine-reported meters reconciled (services/machine_games.py)
            "reconcile-machine-meters": {"task": "slotsys.reconcile_machine_meters",
                                         "schedule": crontab(hour=21, minute=0)},
            # the gaming day just ended: its meters read at once, the day closed a little later (slotsys/accounting).
            # An interval, not a crontab: the day's end is local wall-clock time (DST moves it in UTC) and a run
            # missed while beat was down is caught up by the next one.
            "accounting-close-due": {"task": "slotsys.accounting_close_due", "schedule": float(accounting_beat_s)},
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
