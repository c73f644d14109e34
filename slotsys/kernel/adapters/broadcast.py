"""Fan-out of live events (jackpot meters and hits): Redis pub/sub in production,
in-process queues in the embedded default."""

from __future__ import annotations

import queue
import threading

import structlog

log = structlog.get_logger("slotsys.broadcast")


class InProcessPublisher:
    def __init__(self) -> None:
        self._subs: list[queue.Queue] = []
        self._lock = threading.Lock()

    def publish(self, channel: str, message: str) -> None:
        """Deliver to every subscriber; a subscriber that stopped reading (queue full) misses the
        message rather than blocking or failing the publisher (signage re-reads values on reconnect)."""
        with self._lock:
            subs = list(self._subs)
        for q in subs:
            try:
                q.put_nowait((channel, message))
            except queue.Full:
                log.warning("broadcast.subscriber_lagging", channel=channel)

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=1000)
        with self._lock:
            self._subs.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self._subs:
                self._subs.remove(q)


class RedisPublisher:
    def __init__(self, url: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    def publish(self, channel: str, message: str) -> None:
        try:
            self.client.publish(channel, message)
        except Exception:  # signage is best-effort; the hit is already recorded in PostgreSQL
            log.warning("broadcast.publish_failed", channel=channel, exc_info=True)


def make_publisher(redis_url: str | None):
    return RedisPublisher(redis_url) if redis_url else InProcessPublisher()
