"""The worker's consumer, without the Gossip and Mingle bootsteps (``worker_consumer`` in celery_app).

Why (docs/resilience.md): when the consumer loses Redis, celery 5.7 closes the broker connection
(``Consumer.on_connection_error_after_connected``: ``collect()`` detaches the transport, then ``close()``)
and restarts the consumer's bootsteps. Gossip's step still holds a channel of that closed connection; its
restart cleanup (``ConsumerStep._close``: ``ignore_errors(c.connection, channel.close)`` with
``c.connection`` already ``None``) raised ``AttributeError`` on every outage, logged as ``Error on
restarting Gossip: AttributeError(…)`` (kombu#582 is the same path in an older release). The worker's
exit itself came from the task channel (fixed in :mod:`slotsys.server.celery_broker`); this step is
the other user of channels of the closed connection, so it is turned off rather than left to luck.

The slot floor uses neither step: Gossip is worker-to-worker presence and leader election
(``celery control election``), Mingle syncs revoked task ids and the logical clock with other workers at
start-up; our awards are made exactly once by the database claim (jackpot_controller/services/awards.py),
not by revocation. Turning them off here (as ``--without-gossip --without-mingle`` would) applies to every
way the worker is started (README, .ci/run, docker), not only to the ones that pass those flags.
Remote control (``celery inspect ping``) stays on.

Reconnection: kombu waits 2, 4, 6, … up to 30 s between attempts, so after a minute away the worker could
take another 16-30 s to notice Redis is back; here it waits 1, 2, 3, … up to :data:`RECONNECT_MAX_S`.
"""

from __future__ import annotations

from celery.worker.consumer import Consumer as CeleryConsumer


# seconds between the consumer's reconnection attempts (kombu's ensure_connection: start, step, maximum)
RECONNECT_BACKOFF = {"interval_start": 1.0, "interval_step": 1.0, "interval_max": 5.0}
RECONNECT_MAX_S = RECONNECT_BACKOFF["interval_max"]


class Consumer(CeleryConsumer):
    """``celery.worker.consumer.Consumer`` with the Gossip and Mingle steps disabled and a reconnection
    backoff capped at :data:`RECONNECT_MAX_S` seconds (retries: ``broker_connection_max_retries``)."""

    def __init__(self, *args, worker_options=None, **kwargs) -> None:
        options = dict(worker_options or {}, without_gossip=True, without_mingle=True)
        super().__init__(*args, worker_options=options, **kwargs)

    def ensure_connected(self, conn):
        ensure = conn.ensure_connection

        def ensure_connection(*args, **kwargs):
            return ensure(*args, **{**RECONNECT_BACKOFF, **kwargs})

        conn.ensure_connection = ensure_connection
        return super().ensure_connected(conn)
