"""Infrastructure of staff sign-in: the per-address failure limiter and the token-revocation bus.

* :class:`AddressLimiter`: failed sign-ins per client address, a moving window from the ``limits``
  library: Redis storage when ``REDIS_URL`` is set (shared by every process and node), in-process
  memory in the embedded default. If Redis is unreachable the limiter lets the attempt through
  (logged): the per-username lock-out, kept in the database, still holds.
* Revocation bus: a revoked token (``token:<sha256 hex>``) or every token of a user (``user:<id>``)
  is announced so every process drops it from its authentication cache at once: Redis pub/sub
  (:class:`RedisRevocationBus`, one listener thread per process, started on first use) or, in the
  embedded default, direct calls in the one process (:class:`InProcessRevocationBus`). Messages can
  be lost (Redis down, a reconnect): the cache's ≤ 1 s database re-check is the net
  (``Settings.staff_auth_cache_s``), and a listener that (re)connects clears the staff cache.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from typing import Callable

import structlog
from limits import parse
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter

log = structlog.get_logger("slotsys.auth")


def namespace(database_url: str) -> str:
    """A short name for the floor's database, so floors (or test databases) sharing a Redis stay apart."""
    return hashlib.sha256(database_url.encode()).hexdigest()[:12]


class AddressLimiter:
    """At most ``limit`` (``limits`` notation, e.g. ``"20/5 minutes"``) failed sign-ins per address."""

    def __init__(self, limit: str, redis_url: str | None, ns: str) -> None:
        self.item = parse(limit)
        if redis_url:
            storage = RedisStorage(redis_url, key_prefix=f"slotsys-login-{ns}", socket_timeout=0.5,
                                   socket_connect_timeout=0.5)
        else:
            storage = MemoryStorage()
        self.limiter = MovingWindowRateLimiter(storage)

    def retry_after(self, address: str) -> int | None:
        """Whole seconds until ``address`` may try again if it has used up its failures, else None."""
        try:
            if self.limiter.test(self.item, address):
                return None
            reset = self.limiter.get_window_stats(self.item, address).reset_time
        except Exception:  # Redis down: fail open here, the database lock-out still applies
            log.warning("auth.address_limiter_unavailable", exc_info=True)
            return None
        return max(1, math.ceil(reset - time.time()))

    def failed(self, address: str) -> None:
        """Count one failed sign-in from ``address``."""
        try:
            self.limiter.hit(self.item, address)
        except Exception:
            log.warning("auth.address_limiter_unavailable", exc_info=True)

    def clear(self, address: str) -> None:
        try:
            self.limiter.clear(self.item, address)
        except Exception:
            log.warning("auth.address_limiter_unavailable", exc_info=True)


class InProcessRevocationBus:
    """The embedded default: one process, so a revocation is delivered by a direct call."""

    def __init__(self) -> None:
        self._callback: Callable[[str], None] | None = None

    def publish(self, message: str) -> None:
        if self._callback is not None:
            self._callback(message)

    def listen(self, callback: Callable[[str], None], on_connect: Callable[[], None]) -> None:
        self._callback = callback

    def stop(self) -> None:
        self._callback = None


class RedisRevocationBus:
    """Redis pub/sub on channel ``slotsys:auth:revoked:<namespace>``."""

    def __init__(self, url: str, ns: str) -> None:
        import redis

        self._redis = redis
        self.url = url
        self.channel = f"slotsys:auth:revoked:{ns}"
        self.client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def publish(self, message: str) -> None:
        """Best effort: if Redis is down the other processes see the revocation at their next re-check (≤ 1 s)."""
        try:
            self.client.publish(self.channel, message)
        except Exception:
            log.warning("auth.revocation_publish_failed", message=message, exc_info=True)

    def listen(self, callback: Callable[[str], None], on_connect: Callable[[], None]) -> None:
        """Start this process's listener thread (once). ``on_connect`` runs after every (re)subscription."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, args=(callback, on_connect), daemon=True,
                                            name="slotsys-auth-revocations")
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)

    def _run(self, callback: Callable[[str], None], on_connect: Callable[[], None]) -> None:
        """Subscribe, and resubscribe after any failure (backoff 0.2 s doubling to 5 s). An outage is logged
        once when it starts (warning) and once when it ends (info), not at every retry."""
        backoff = 0.2
        down = False
        while not self._stop.is_set():
            ps = None
            try:
                conn = self._redis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=1,
                                                  health_check_interval=5)
                ps = conn.pubsub(ignore_subscribe_messages=True)
                ps.subscribe(self.channel)
                on_connect()  # anything published while we were not subscribed is lost: forget the cache
                if down:
                    log.info("auth.revocation_listener_reconnected")
                    down = False
                backoff = 0.2
                while not self._stop.is_set():
                    msg = ps.get_message(timeout=1.0)
                    if msg and msg.get("type") == "message":
                        data = msg["data"]
                        callback(data.decode() if isinstance(data, bytes) else str(data))
            except Exception as exc:
                if not down:
                    log.warning("auth.revocation_listener_reconnecting", error=str(exc), retry_in_s=backoff)
                    down = True
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 5.0)
            finally:
                if ps is not None:
                    try:
                        ps.close()
                    except Exception:
                        pass


def make_revocation_bus(redis_url: str | None, ns: str):
    return RedisRevocationBus(redis_url, ns) if redis_url else InProcessRevocationBus()
