"""The worker's consumer, without the Gossip and Mingle bootsteps (``worker_consumer`` in celery_app).

Why (docs/resilience.md): with the Redis broker, celery/kombu 5.7 let a worker die on a broker outage.
When the consumer loses the connection, ``Consumer.on_connection_error_after_connected`` closes it
(``kombu.Connection._close`` detaches the transport: ``transport.client = None``), then restarts the
consumer's bootsteps. Gossip's (and Mingle's) steps still hold channels of that closed connection: their
cleanup (``ConsumerStep._close`` → redis ``Channel.close`` → delete the auto-delete fanout queue) and any
later use of such a channel makes kombu's redis channel rebuild its pool from
``self.connection.client.hostname`` (``Channel._connparams``) or call ``ignore_errors(c.connection, …)``
with ``c.connection`` already ``None``: ``AttributeError("'NoneType' object has no attribute 'hostname'")``
(kombu#582, the same path) or ``… 'connection_errors'``. An ``AttributeError`` is not one of the
connection errors the consumer retries, so where it escapes the restart the worker logs
``Unrecoverable error`` and exits. Every outage logged ``Error on restarting Gossip: AttributeError`` here.

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
