"""Subscriptions to the signage channel for Server-Sent Events: Redis pub/sub in production,
the in-process publisher's queues in the embedded default."""

from __future__ import annotations

import queue


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
    def __init__(self, url: str, channel: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_connect_timeout=2)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.subscribe(channel)

    def get(self, timeout: float) -> str | None:
        msg = self.pubsub.get_message(timeout=timeout)
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
