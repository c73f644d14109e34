"""Subscriptions to the signage channel for Server-Sent Events: Redis pub/sub in production,
the in-process publisher's queues in the embedded default."""

from __future__ import annotations

import queue
import time

import structlog

log = structlog.get_logger("jackpot_controller.stream")


class InProcessSubscription:
    def __init__(self, publisher, channel: str) -> None:
        self.publisher, self.channel = publisher, channel
        self.q = publisher.subscribe()

    def get(self, timeout: float) -> str | None:
        try:
            channel, message = self.q.get(timeout=timeout)
        except queue.Empty:
            return None
        return message if channel == self.channel else None

    def close(self) -> None:
        self.publisher.unsubscribe(self.q)


class RedisSubscription:
    """The signage channel over Redis pub/sub, kept through a Redis outage (docs/resilience.md).

    While Redis is away :meth:`get` returns ``None`` after ``timeout`` instead of raising, so the stream
    keeps sending its ``meters`` snapshots (read from PostgreSQL every heartbeat) and signage never goes
    dark; the subscription is re-established by redis-py on the next read once Redis answers (it
    re-subscribes the channels it knows; one that never subscribed is subscribed here). Logged once per
    outage: ``stream.redis_unavailable``, then ``stream.redis_resumed``."""

    def __init__(self, url: str, channel: str) -> None:
        import redis

        self.channel = channel
        self.errors = (redis.RedisError, OSError)
        self.client = redis.Redis.from_url(url, socket_connect_timeout=2)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.down = False
        try:
            self.pubsub.subscribe(channel)
        except self.errors as e:
            self._lost(e)

    def _lost(self, e: Exception) -> None:
        if not self.down:
            log.warning("stream.redis_unavailable", channel=self.channel, error=type(e).__name__)
        self.down = True

    def get(self, timeout: float) -> str | None:
        started = time.monotonic()
        try:
            if not self.pubsub.subscribed:  # never subscribed (Redis was away when the stream opened)
                self.pubsub.subscribe(self.channel)
            msg = self.pubsub.get_message(timeout=timeout)
        except self.errors as e:
            self._lost(e)
            time.sleep(max(0.0, timeout - (time.monotonic() - started)))
            return None
        if self.down:
            self.down = False
            log.info("stream.redis_resumed", channel=self.channel)
        if msg is None or msg.get("type") != "message":
            return None
        data = msg["data"]
        return data.decode() if isinstance(data, bytes) else data

    def close(self) -> None:
        try:
            self.pubsub.close()
        finally:
            self.client.close()


def subscribe(publisher, redis_url: str | None, channel: str):
    """A subscription to ``channel`` matching how ``publisher`` publishes."""
    if hasattr(publisher, "subscribe"):
        return InProcessSubscription(publisher, channel)
    if redis_url:
        return RedisSubscription(redis_url, channel)
    raise RuntimeError("no way to subscribe to the signage channel")
