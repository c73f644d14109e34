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
"""

from __future__ import annotations

from celery.worker.consumer import Consumer as CeleryConsumer


class Consumer(CeleryConsumer):
    """``celery.worker.consumer.Consumer`` with the Gossip and Mingle steps disabled."""

    def __init__(self, *args, worker_options=None, **kwargs) -> None:
        options = dict(worker_options or {}, without_gossip=True, without_mingle=True)
        super().__init__(*args, worker_options=options, **kwargs)
