"""Streams inside a gunicorn worker without holding its threads: the hand-off.

Design (``make run`` serves the pages and their same-origin stream URLs from one port, one worker, no proxy):
:class:`slotsys.server.gunicorn_worker.AdmissionWorker` parses a request's line and headers on a worker thread as
usual; for ``GET`` on a stream path (:data:`~slotsys.server.streams.gate.STREAM_PATHS`) it duplicates the client
socket, hands the copy to this module's event loop (:meth:`StreamLoop.adopt`) and returns the thread to the
pool at once (gunicorn closes only its own descriptor). The loop — one daemon thread per worker process —
authenticates the caller off the loop (an executor thread, the same ``AuthService`` / stream-token check as
the Flask routes), writes the HTTP/1.1 response head itself (``Connection: close``: the body ends when the
stream does) and then the hub's frames. So 1,000 signage screens cost 1,000 sockets and small buffers, not
1,000 threads; spins keep every thread.

Why not ``slotsys run`` with an event loop in front (a proxy to gunicorn): every spin would then cross a
second hop and a second HTTP parser to protect a handful of screens, and the browser tests and admission
control would see the proxy, not the machines. The hand-off keeps one process and changes nothing for any
other request. In production the same worker code runs (a deployment that forgets the nginx route to
``slotsys streams`` still keeps its threads), fed by one Redis subscription per worker; ``slotsys streams``
is the intended home of streams there (docs/streams.md).
"""

from __future__ import annotations

import asyncio
import threading

import structlog

from slotsys.kernel.errors import DomainError
from slotsys.server.streams import gate
from slotsys.server.streams.hub import Hub, Limits, TooManyStreams, inprocess_feed, redis_feed

log = structlog.get_logger("slotsys.server.streams")

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 422: "Unprocessable Content",
            429: "Too Many Requests",
            503: "Service Unavailable"}
WRITE_TIMEOUT_S = 10.0  # a client whose socket accepts nothing for this long is disconnected


class StreamLoop:
    """An asyncio loop on a daemon thread serving the streams handed to it. ``services``: the process's
    :class:`~slotsys.app.bootstrap.Services` (auth, the jackpot snapshot, the publisher)."""

    def __init__(self, services, limits: Limits, channel: str) -> None:
        self.services = services
        self.loop = asyncio.new_event_loop()
        self.hub = Hub(limits, services.jackpots.meters_message, lambda cred: gate.recheck(services, cred))
        self.thread = threading.Thread(target=self.loop.run_forever, name="slotsys-streams", daemon=True)
        self.thread.start()
        publisher = services.publisher
        if hasattr(publisher, "subscribe"):  # embedded: the in-process publisher
            inprocess_feed(self.hub, self.loop, publisher, channel)
        elif services.settings.redis_url:
            asyncio.run_coroutine_threadsafe(redis_feed(self.hub, services.settings.redis_url, channel), self.loop)

    def adopt(self, sock, path: str, query: str, authorization: str | None) -> None:
        """Take over ``sock`` (a connected socket whose request head has been read); thread-safe."""
        self.loop.call_soon_threadsafe(lambda: self.loop.create_task(self._serve(sock, path, query, authorization)))

    async def _serve(self, sock, path: str, query: str, authorization: str | None) -> None:
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
        except OSError:
            sock.close()
            return
        try:
            await serve_raw(self.hub, self.services, reader, writer, path, query, authorization)
        except (ConnectionError, asyncio.CancelledError, asyncio.TimeoutError, OSError) as exc:
            log.info("stream.client_disconnected", path=path, reason=type(exc).__name__)
        except Exception:
            log.exception("stream.handoff_failed", path=path)
        finally:
            writer.close()


def _head(status: int, headers) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}"]
    lines += [f"{k}: {v}" for k, v in headers]
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def serve_raw(hub: Hub, services, reader, writer, path: str, query: str, authorization: str | None) -> None:
    """Authenticate, admit, then write frames until the lifetime ends, the client goes or is dropped."""
    loop = asyncio.get_running_loop()
    try:
        args = gate.query_args(query)
        limit = gate.max_seconds(args)
        principal = await loop.run_in_executor(None, gate.authenticate, services, path, authorization, args)
        client = hub.open(gate.principal_key(principal), limit, gate.credential(path, authorization, args))
    except DomainError as err:
        status, body, extra = gate.from_domain(err, path)
    except TooManyStreams as exc:
        status, body, extra = gate.too_many(exc, path)
    else:
        try:
            await _pump(client, reader, writer)
        finally:
            hub.close(client)
        return
    writer.write(_head(status, [("Content-Type", "application/problem+json"),
                                ("Content-Length", str(len(body))), *extra]) + body)
    await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT_S)


async def _pump(client, reader, writer) -> None:
    writer.write(_head(200, gate.SSE_HEADERS))
    me = asyncio.current_task()

    async def watch_eof() -> None:  # the client hung up: stop now, free its slot
        try:
            while await reader.read(4096):
                pass
        except (ConnectionError, OSError):
            pass
        me.cancel()

    watcher = asyncio.create_task(watch_eof())
    try:
        async for frame in client.frames():
            writer.write(frame)
            await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT_S)
    finally:
        watcher.cancel()
