"""The stream hub: Server-Sent Events fanned out to many clients from ONE feed per process, on an asyncio
event loop (no thread per client).

Shapes and rules:

* **Feed.** Every message of the signage channel (``jackpot_controller.domain.signage.CHANNEL``: JSON
  text, ``{"event": "meters" | "hit", ...}``) is given to :meth:`Hub.publish` on the loop, once per process
  (one Redis pub/sub subscription, :func:`redis_feed`, or the in-process publisher's queue,
  :func:`inprocess_feed`); the hub formats the SSE frame once and offers it to every client.
* **Events** (the same as the WSGI stream, ``JackpotService.stream``): a ``meters`` snapshot first, then every
  channel message as ``event: <its "event">``, and a fresh ``meters`` snapshot after ``heartbeat_s`` of
  silence (signage treats a level silent for 5 s as in error; ``static/stream.js`` reconnects after 6 s).
  Snapshots are read off the loop (an executor thread) at most once per ``heartbeat_s / 2`` per process,
  whatever the number of clients; a ``meters`` message from the feed refreshes the cached one.
* **Limits** (:class:`Limits`, settings ``SLOTSYS_STREAM_*``): at most ``per_principal`` open streams per
  caller (a machine, a staff user: :class:`TooManyStreams` ``scope="principal"``, answered 429) and
  ``max_total`` per process (``scope="global"``, answered 503), both with ``Retry-After``; a stream ends after
  ``max_lifetime_s`` (EventSource reconnects by itself, and every connection starts with a snapshot).
* **Revocation.** A hub built with a ``check`` re-authenticates the credential of every open stream every
  ``recheck_s`` (1 s): ONE executor call per tick checks each distinct credential once (machine keys and staff
  tokens through the cached ``AuthService.authenticate``, so no database read per stream); a credential refused
  (a 401/403 ``DomainError``: logout, password change, deactivation, machine key reissue) ends each of its
  streams with a final ``event: end`` / ``data: {"reason": "revoked"}`` frame, so a sign shows "signed out"
  instead of reconnecting with a dead credential. Any other failure of the check (database down) keeps the
  streams and is logged.
* **Slow readers.** Each client has a bounded queue of ``buffer`` frames; a client whose queue is full
  (it stopped reading and its socket's send buffer is full) is disconnected, never buffered without bound.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from dataclasses import dataclass
from typing import AsyncIterator, Callable

import structlog

log = structlog.get_logger("slotsys.server.streams")


@dataclass(frozen=True)
class Limits:
    per_principal: int = 20
    max_total: int = 5000
    heartbeat_s: float = 2.0
    max_lifetime_s: float = 900.0
    buffer: int = 64
    retry_after_s: int = 5
    recheck_s: float = 1.0
    meters_interval_s: float = 0.0  # at most one ``meters`` frame per this many seconds (latest wins); 0: every one

    @classmethod
    def from_settings(cls, s) -> "Limits":
        return cls(per_principal=s.stream_per_principal, max_total=s.stream_max_total,
                   heartbeat_s=s.stream_heartbeat_s, max_lifetime_s=s.stream_max_lifetime_s,
                   buffer=s.stream_buffer, retry_after_s=s.stream_retry_after_s,
                   meters_interval_s=s.stream_meters_interval_s)


class TooManyStreams(Exception):
    """``scope``: ``principal`` (this caller holds ``limit`` streams: 429) or ``global`` (the process holds its
    cap: 503); ``retry_after`` in seconds."""

    def __init__(self, scope: str, limit: int, retry_after: int) -> None:
        super().__init__(f"{scope} stream limit {limit} reached")
        self.scope, self.limit, self.retry_after = scope, limit, retry_after


def sse(event: str, data: str) -> bytes:
    """One SSE frame (WHATWG HTML, "Server-sent events"): data is one line of JSON."""
    return f"event: {event}\ndata: {data}\n\n".encode()


_END = object()  # queued by Client.end: the stream's last frame is ``event: end``


def frame_for(message: str) -> bytes:
    try:
        event = json.loads(message).get("event", "message")
    except (ValueError, AttributeError):
        event = "message"
    return sse(str(event), message)


class Client:
    """One open stream: a bounded queue of frames filled by the hub, drained by :meth:`frames`."""

    def __init__(self, hub: "Hub", key: str, max_seconds: float, cred=None) -> None:
        self.hub, self.key, self.max_seconds, self.cred = hub, key, max_seconds, cred
        self.q: asyncio.Queue = asyncio.Queue(maxsize=hub.limits.buffer)
        self.dropped = False
        self.end_reason: str | None = None
        self.task: asyncio.Task | None = asyncio.current_task()

    def offer(self, frame: bytes) -> None:
        try:
            self.q.put_nowait(frame)
        except asyncio.QueueFull:
            self.drop()

    def drop(self) -> None:
        """A reader too slow for its buffer: disconnect it (cancel the task writing to it)."""
        if not self.dropped:
            self.dropped = True
            self.hub.dropped += 1
            log.warning("stream.slow_reader_dropped", principal=self.key)
            if self.task is not None:
                self.task.cancel()

    def end(self, reason: str) -> None:
        """End this stream after the frames already queued, with ``event: end`` / ``{"reason": reason}``."""
        if self.end_reason is None and not self.dropped:
            self.end_reason = reason
            log.info("stream.ended", principal=self.key, reason=reason)
            try:
                self.q.put_nowait(_END)
            except asyncio.QueueFull:
                self.drop()

    async def frames(self) -> AsyncIterator[bytes]:
        """The snapshot, then channel frames and heartbeat snapshots, until the lifetime ends."""
        hub = self.hub
        started = time.monotonic()
        yield await hub.snapshot_frame()
        while not self.dropped:
            left = self.max_seconds - (time.monotonic() - started)
            if left <= 0:
                return
            try:
                if not self.q.empty():  # a burst: drain without a timer per frame
                    item = self.q.get_nowait()
                else:
                    item = await asyncio.wait_for(self.q.get(), timeout=min(hub.limits.heartbeat_s, left))
            except asyncio.TimeoutError:
                if time.monotonic() - started < self.max_seconds:
                    yield await hub.snapshot_frame()
                continue
            if item is _END:
                yield sse("end", json.dumps({"reason": self.end_reason}))
                return
            yield item


class Hub:
    """Clients by principal, the feed's fan-out and the shared snapshot. Every method runs on the hub's loop
    (:meth:`publish` from another thread goes through ``loop.call_soon_threadsafe``).

    ``snapshot``: a blocking callable returning the meters message as a dict (``JackpotService.meters_message``,
    a database read), run in the loop's default executor. ``check``: an optional blocking callable taking a
    client's ``cred`` (any hashable, given to :meth:`open`) and raising a 401/403 ``DomainError`` when that
    credential no longer authenticates (``slotsys.server.streams.gate.recheck``); run in the executor every
    ``limits.recheck_s``.
    """

    def __init__(self, limits: Limits, snapshot: Callable[[], dict], check: Callable[[object], None] | None = None) -> None:
        self.limits = limits
        self._snapshot = snapshot
        self._check = check
        self._checker: asyncio.Task | None = None
        self.revoked = 0
        self.clients: set[Client] = set()
        self.by_key: dict[str, int] = {}
        self._snap: bytes | None = None
        self._snap_at = 0.0
        self._snap_lock: asyncio.Lock | None = None
        self.delivered = 0
        self.dropped = 0
        self._meters_sent_at = float("-inf")
        self._meters_pending: bytes | None = None
        self._meters_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ clients
    def open(self, key: str, max_seconds: float | None = None, cred=None) -> Client:
        """Admit a stream for ``key`` (e.g. ``machine:M001``, ``staff:alice``) or raise :class:`TooManyStreams`.
        ``cred``: what :meth:`recheck` re-authenticates for it (``None``: never re-checked). Runs on the loop."""
        lim = self.limits
        if len(self.clients) >= lim.max_total:
            raise TooManyStreams("global", lim.max_total, lim.retry_after_s)
        if self.by_key.get(key, 0) >= lim.per_principal:
            raise TooManyStreams("principal", lim.per_principal, lim.retry_after_s)
        life = lim.max_lifetime_s if max_seconds is None else max(0.0, min(max_seconds, lim.max_lifetime_s))
        c = Client(self, key, life, cred)
        if self._check is not None and cred is not None and (self._checker is None or self._checker.done()):
            self._checker = asyncio.get_running_loop().create_task(self._recheck_forever())
        self.clients.add(c)
        self.by_key[key] = self.by_key.get(key, 0) + 1
        return c

    def close(self, c: Client) -> None:
        if c in self.clients:
            self.clients.discard(c)
            n = self.by_key.get(c.key, 1) - 1
            if n <= 0:
                self.by_key.pop(c.key, None)
            else:
                self.by_key[c.key] = n

    # ------------------------------------------------------------------ revocation
    def _refused(self, creds: list) -> list:
        """Blocking (executor): the credentials among ``creds`` that ``check`` refuses (401/403)."""
        from slotsys.kernel.errors import DomainError

        out = []
        for cred in creds:
            try:
                self._check(cred)
            except DomainError as err:
                if err.status in (401, 403):
                    out.append(cred)
            except Exception:
                log.warning("stream.recheck_failed", exc_info=True)  # e.g. the database is down: keep the stream
        return out

    async def recheck(self) -> int:
        """Re-check every open stream's credential once (one executor call); end the refused ones' streams
        with ``event: end`` reason ``revoked``. Returns the number of streams ended."""
        creds = list({c.cred for c in self.clients if c.cred is not None and c.end_reason is None})
        if not creds or self._check is None:
            return 0
        refused = set(await asyncio.get_running_loop().run_in_executor(None, self._refused, creds))
        n = 0
        for c in list(self.clients):
            if c.cred in refused and c.end_reason is None:
                c.end("revoked")
                n += 1
        self.revoked += n
        return n

    async def _recheck_forever(self) -> None:
        while True:
            await asyncio.sleep(self.limits.recheck_s)
            try:
                await self.recheck()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("stream.recheck_failed", exc_info=True)

    # ------------------------------------------------------------------ feed
    def publish(self, message: str) -> None:
        """A channel message: format once, offer to every client (a full client is dropped).

        ``meters`` frames (one after every fold, up to 5 a second per web process) are coalesced to at most one per
        ``limits.meters_interval_s``, the latest winning: a sign redraws no faster, and each frame is a write to
        every client. Any other frame (a ``hit``) goes out at once, after the pending ``meters`` frame, so clients
        see the channel's order."""
        frame = frame_for(message)
        if frame.startswith(b"event: meters\n"):
            self._snap, self._snap_at = frame, time.monotonic()
            wait = self._meters_sent_at + self.limits.meters_interval_s - time.monotonic()
            if wait > 0:
                self._meters_pending = frame
                if self._meters_timer is None:
                    self._meters_timer = asyncio.get_running_loop().call_later(wait, self._flush_meters)
                return
            self._meters_sent_at = time.monotonic()
        else:
            self._flush_meters()
        self._fan_out(frame)

    def _flush_meters(self) -> None:
        if self._meters_timer is not None:
            self._meters_timer.cancel()
            self._meters_timer = None
        frame, self._meters_pending = self._meters_pending, None
        if frame is not None:
            self._meters_sent_at = time.monotonic()
            self._fan_out(frame)

    def _fan_out(self, frame: bytes) -> None:
        for c in list(self.clients):
            c.offer(frame)
        self.delivered += 1

    async def snapshot_frame(self) -> bytes:
        """The ``meters`` frame, read from the database at most every ``heartbeat_s / 2`` (single flight)."""
        fresh = self.limits.heartbeat_s / 2
        if self._snap is not None and time.monotonic() - self._snap_at < fresh:
            return self._snap
        if self._snap_lock is None:
            self._snap_lock = asyncio.Lock()
        async with self._snap_lock:
            if self._snap is None or time.monotonic() - self._snap_at >= fresh:
                msg = await asyncio.get_running_loop().run_in_executor(None, self._snapshot)
                self._snap, self._snap_at = sse("meters", json.dumps(msg)), time.monotonic()
            return self._snap


# ---------------------------------------------------------------------------- feeds
async def redis_feed(hub: Hub, url: str, channel: str) -> None:
    """ONE Redis pub/sub subscription for the process, fanned out by ``hub``; reconnects with a back-off
    (1, 2 … 10 s) when Redis goes away (clients keep their streams and get heartbeat snapshots)."""
    import redis.asyncio as aioredis

    backoff = 1.0
    while True:
        client = aioredis.Redis.from_url(url, socket_connect_timeout=2)
        try:
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            await pubsub.subscribe(channel)
            backoff = 1.0
            log.info("stream.feed_subscribed", channel=channel)
            while True:
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if msg is not None and msg.get("type") == "message":
                    data = msg["data"]
                    hub.publish(data.decode() if isinstance(data, bytes) else data)
                    await asyncio.sleep(0)  # let the clients' writers run between the messages of a burst
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("stream.feed_lost", channel=channel, retry_in_s=backoff, exc_info=True)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)
        finally:
            try:
                await client.aclose()
            except Exception:
                pass


def inprocess_feed(hub: Hub, loop: asyncio.AbstractEventLoop, publisher, channel: str) -> threading.Thread:
    """The embedded default: one subscription to the process's ``InProcessPublisher``, moved onto the loop by
    a daemon thread (the publisher's queues are thread queues)."""
    q = publisher.subscribe()

    def pump() -> None:
        while True:
            try:
                ch, message = q.get(timeout=1.0)
            except queue.Empty:
                if loop.is_closed():
                    return
                continue
            if ch == channel and not loop.is_closed():
                loop.call_soon_threadsafe(hub.publish, message)

    t = threading.Thread(target=pump, name="slotsys-stream-feed", daemon=True)
    t.start()
    return t
