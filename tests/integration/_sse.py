"""A crowd of raw SSE clients for the stream tests and bench/stream_load.py: one asyncio loop on a background
thread holds every connection (hundreds cost sockets, not threads), reads each stream and counts its events.
Plain HTTP/1.1 over sockets, so what is measured is the server, not a client library's pooling."""

from __future__ import annotations

import asyncio
import resource
import threading
import time


def raise_open_files(want: int = 20_000) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Conn:
    def __init__(self, path: str) -> None:
        self.path = path
        self.status: int | None = None
        self.head = ""
        self.body = b""  # the first 256 KiB read after the head
        self.events = 0
        self.opened_at = time.monotonic()
        self.ended_at: float | None = None
        self.error: str | None = None
        self._writer = None

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def text(self) -> str:
        return self.body.decode(errors="replace")


class Crowd:
    def __init__(self, host: str = "127.0.0.1") -> None:
        raise_open_files()
        self.host = host
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.conns: list[Conn] = []

    def open(self, port: int, requests: list[tuple[str, dict]], timeout: float = 60.0, read: bool = True) -> list[Conn]:
        """Open one stream per (path, headers), at most 100 handshakes at a time; returns once every head
        has arrived (or failed). ``read=False``: never read past the head (a stalled reader)."""
        fut = asyncio.run_coroutine_threadsafe(self._open_all(port, requests, read), self.loop)
        conns = fut.result(timeout)
        self.conns += conns
        return conns

    async def _open_all(self, port, requests, read):
        sem = asyncio.Semaphore(100)

        async def one(path, headers):
            async with sem:
                return await self._one(port, path, headers, read)

        return await asyncio.gather(*(one(p, h) for p, h in requests))

    async def _one(self, port: int, path: str, headers: dict, read: bool) -> Conn:
        c = Conn(path)
        try:
            r, w = await asyncio.wait_for(asyncio.open_connection(self.host, port), 20)
            c._writer = w
            lines = [f"GET {path} HTTP/1.1", f"Host: {self.host}:{port}", "Accept: text/event-stream"]
            lines += [f"{k}: {v}" for k, v in headers.items()]
            w.write(("\r\n".join(lines) + "\r\n\r\n").encode())
            head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 30)
            c.head = head.decode("latin-1")
            c.status = int(c.head.split()[1])
        except Exception as exc:  # noqa: BLE001 (recorded for the assertion message)
            c.error, c.ended_at = repr(exc), time.monotonic()
            return c
        if c.status != 200:
            length = 0
            for line in c.head.split("\r\n"):
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            try:
                c.body = await asyncio.wait_for(r.readexactly(length), 10)
            except Exception as exc:  # noqa: BLE001
                c.error = repr(exc)
            c.ended_at = time.monotonic()
            w.close()
        elif read:
            asyncio.get_running_loop().create_task(self._read(c, r, w))
        return c

    async def _read(self, c: Conn, r, w) -> None:
        chunked = "transfer-encoding: chunked" in c.head.lower()
        tail = b""
        try:
            while True:
                chunk = await r.read(65536)
                if not chunk:
                    break
                if len(c.body) < 256 * 1024:
                    c.body += chunk
                c.events += chunk.count(b"event: ")
                tail = (tail + chunk)[-7:]
                if chunked and tail.endswith(b"\r\n0\r\n\r\n"):  # the last chunk: the response ended
                    break
        except Exception as exc:  # noqa: BLE001
            c.error = repr(exc)
        finally:
            c.ended_at = time.monotonic()
            w.close()

    def close(self) -> None:
        async def shut():
            for c in self.conns:
                if c._writer is not None:
                    c._writer.close()
            await asyncio.sleep(0.1)

        try:
            asyncio.run_coroutine_threadsafe(shut(), self.loop).result(30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
