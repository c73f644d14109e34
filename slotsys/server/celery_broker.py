"""kombu's Redis transport with one fix: a channel of a closed connection fails with a connection error.

The defect (kombu 5.7.0 with celery 5.7.0, the versions pinned by pyproject.toml; docs/resilience.md has
the log lines): when the worker's consumer loses Redis, ``Consumer.on_connection_error_after_connected``
first ``collect()``s the broker connection, which detaches the transport (``transport.client = None``)
without always closing its channels, then closes the connection. Closing the default channel (the one
the task consumer reads from) requeues the messages of the tasks still running (``acks_late``):
``QoS.restore_unacked`` → ``Channel.conn_or_acquire`` → the channel's pool, already disconnected, is
rebuilt from ``self.connection.client.hostname`` — and ``client`` is ``None``:

    CRITICAL/MainProcess] Unrecoverable error: AttributeError("'NoneType' object has no attribute 'hostname'")

``AttributeError`` is not a connection error, so ``kombu.common.ignore_errors`` lets it through and the
consumer does not retry it: the worker process exits. The same happens on the late acknowledgement of a
task that finishes after the reconnection (``Message.ack`` on the old channel, run from the event loop)
and, for the same reason, the Gossip step's restart (kombu#582). It needs a task in flight when Redis goes
away, which is why an idle worker survived and one paying awards under load did not.

The fix keeps kombu's behaviour and only changes the exception: a channel whose connection is gone
raises ``redis.exceptions.ConnectionError`` (one of the transport's ``connection_errors``), which every
caller above already handles — the close is ignored, the ack is logged (``Couldn't ack …``) and the
message stays in Redis's unacked set (redelivered after the visibility timeout; a duplicate award task
pays nothing), the consumer reconnects. Selected with ``broker_transport`` in
:mod:`slotsys.server.celery_app`; the URL stays ``redis://…``.
"""

from __future__ import annotations

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict:
        transport = self.connection
        if transport is None or getattr(transport, "client", None) is None:
            raise RedisConnectionError("this broker channel belongs to a connection that was closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    """``kombu.transport.redis.Transport`` whose channels fail with a connection error once detached."""

    Channel = Channel
