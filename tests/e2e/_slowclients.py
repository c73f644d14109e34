"""Slow clients and a small floor, for tests/e2e/test_proxy.py and bench/slow_clients.py (loopback only, bounded).

* :class:`SlowClients`: ``slowloris`` connections that send a request line and then trickle header bytes, and
  ``slow_body`` connections that send a machine's complete, authenticated headers with a large
  ``Content-Length`` and then trickle the body: one byte per connection per ``interval`` (1 s, the incident's
  rate), all from one thread with non-blocking sockets. A connection the server answers or closes is counted
  and opened again (a real attacker reconnects), so the number open stays at the target while it runs.
  Source addresses are spread over ``127.0.<net>.1…`` (``per_address`` connections each), as an attack from
  several hosts would be; Linux answers on the whole of 127/8.
* :class:`SlowClientsProcess`: the same in a child process (the measured clients keep this one's GIL).
* :class:`Floor`: machines spinning in a loop (each from its own loopback address, as each machine's SMIB
  has one) and a ``/healthz`` probe, recording every latency and status.
"""

from __future__ import annotations

import errno
import selectors
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field

import httpx

SPIN = {"lines": 1, "multiplier": 1}


@dataclass(eq=False)  # one object per socket: hashed by identity
class _Conn:
    kind: str
    sock: socket.socket
    source: str
    sent: int = 0


@dataclass
class AttackStats:
    opened: dict = field(default_factory=lambda: {"slowloris": 0, "slow_body": 0})
    closed_by_server: dict = field(default_factory=lambda: {"slowloris": 0, "slow_body": 0})
    answers: dict = field(default_factory=dict)  # (kind, status line) -> count
    open_now: dict = field(default_factory=lambda: {"slowloris": 0, "slow_body": 0})
    connect_errors: int = 0


class SlowClients:
    def __init__(self, host: str, port: int, *, slowloris: int, slow_body: int, machine_key: str = "",
                 body_path: str = "/api/v1/machines/M002/bill-in", content_length: int = 60_000, net: int = 10,
                 per_address: int = 20, interval: float = 1.0) -> None:
        self.host, self.port = host, port
        self.want = {"slowloris": slowloris, "slow_body": slow_body}
        self.key, self.body_path, self.content_length = machine_key, body_path, content_length
        self.net, self.per_address, self.interval = net, per_address, interval
        self.stats = AttackStats()
        self._conns: list[_Conn] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._n = 0

    # ------------------------------------------------------------------ connections
    def _source(self) -> str:
        i = self._n // self.per_address
        self._n += 1
        return f"127.0.{self.net + i // 250}.{1 + i % 250}"

    def _open(self, kind: str, source: str | None = None) -> None:
        source = source or self._source()
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((source, 0))
            s.settimeout(5)
            s.connect((self.host, self.port))
            if kind == "slowloris":
                head = f"GET /healthz HTTP/1.1\r\nHost: {self.host}\r\n"
            else:
                head = (f"POST {self.body_path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {self.key}\r\n"
                        f"Idempotency-Key: {uuid.uuid4().hex}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {self.content_length}\r\n\r\n{{")
            s.sendall(head.encode())
            s.setblocking(False)
        except OSError:
            s.close()
            self.stats.connect_errors += 1
            return
        self._conns.append(_Conn(kind, s, source))
        self.stats.opened[kind] += 1

    def _drop(self, c: _Conn, reason: str | None) -> None:
        if reason is None:
            self.stats.closed_by_server[c.kind] += 1
        else:
            k = (c.kind, reason)
            self.stats.answers[k] = self.stats.answers.get(k, 0) + 1
        try:
            c.sock.close()
        except OSError:
            pass
        self._conns.remove(c)

    # ------------------------------------------------------------------ the loop
    def start(self) -> "SlowClients":
        for kind in ("slowloris", "slow_body"):
            for _ in range(self.want[kind]):
                self._open(kind)
        self._count()
        self._thread = threading.Thread(target=self._run, name="slow-clients", daemon=True)
        self._thread.start()
        return self

    def _count(self) -> None:
        self.stats.open_now = {k: sum(1 for c in self._conns if c.kind == k) for k in self.want}

    def _run(self) -> None:
        trickle = b"X-Slow: 1\r\n"
        while not self._stop.wait(self.interval):
            sel = selectors.DefaultSelector()
            for c in self._conns:
                sel.register(c.sock, selectors.EVENT_READ, c)
            answered = {key.data for key, _ in sel.select(timeout=0)}
            sel.close()
            for c in list(self._conns):
                if c in answered:  # the server answered or closed: note what, then reconnect
                    try:
                        data = c.sock.recv(200)
                    except OSError:
                        data = b""
                    self._drop(c, data.split(b"\r\n", 1)[0].decode(errors="replace") if data else None)
                    continue
                byte = trickle[c.sent % len(trickle):][:1] if c.kind == "slowloris" else b" "
                try:
                    c.sock.send(byte)
                    c.sent += 1
                except BlockingIOError:
                    pass
                except OSError as e:  # reset or broken pipe: closed by the server
                    if e.errno not in (errno.EAGAIN,):
                        self._drop(c, None)
            for kind in self.want:  # keep the numbers up
                missing = self.want[kind] - sum(1 for c in self._conns if c.kind == kind)
                for _ in range(max(0, missing)):
                    if self._stop.is_set():
                        break
                    self._open(kind)
            self._count()

    def stop(self) -> AttackStats:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=30)
        self._count()
        for c in list(self._conns):
            try:
                c.sock.close()
            except OSError:
                pass
        self._conns.clear()
        return self.stats


class SlowClientsProcess:
    """:class:`SlowClients` in a child process of its own, so that the attacker's work (1,000 sockets) does not
    compete for this process's GIL with the clients whose latency is being measured. Same arguments;
    :attr:`stats` is refreshed by :meth:`poll` and :meth:`stop`."""

    def __init__(self, host: str, port: int, **kw) -> None:
        import multiprocessing as mp

        self._ctx = mp.get_context("fork")
        self._args = (host, port, kw)
        self._conn = None
        self._proc = None
        self.stats = AttackStats()

    def start(self) -> "SlowClientsProcess":
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_attack_main, args=(child, *self._args), daemon=True)
        self._proc.start()
        self._conn = parent
        assert parent.poll(60), "the attacker did not start"
        self.stats = parent.recv()
        return self

    def poll(self) -> AttackStats:
        self._conn.send("stats")
        self.stats = self._conn.recv()
        return self.stats

    def stop(self) -> AttackStats:
        try:
            self._conn.send("stop")
            if self._conn.poll(60):
                self.stats = self._conn.recv()
        finally:
            self._proc.join(timeout=30)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
        return self.stats


def _attack_main(conn, host: str, port: int, kw: dict) -> None:
    attack = SlowClients(host, port, **kw).start()
    conn.send(attack.stats)
    while True:
        msg = conn.recv()
        if msg == "stop":
            conn.send(attack.stop())
            return
        attack._count()
        conn.send(attack.stats)


# ---------------------------------------------------------------------------- the floor
def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(p / 100 * len(v) + 0.5)) - 1))]


@dataclass
class Samples:
    spins: list = field(default_factory=list)  # (latency s, status or exception name)
    healthz: list = field(default_factory=list)

    def summary(self) -> dict:
        def one(rows):
            ok = [t for t, s in rows if s == 200]
            shed = sum(1 for _, s in rows if s == "503 overloaded")
            return {"n": len(rows), "ok": len(ok), "shed": shed, "failed": len(rows) - len(ok) - shed,
                    "p50_ms": round(percentile(ok, 50) * 1000, 1), "p99_ms": round(percentile(ok, 99) * 1000, 1),
                    "max_ms": round(max(ok) * 1000, 1) if ok else float("nan"),
                    "statuses": sorted({str(s) for _, s in rows})}
        return {"spins": one(self.spins), "healthz": one(self.healthz)}


class Floor:
    """``machines`` ({asset: key}) spin every ``pause`` s, each from its own 127.0.<net>.<i> address, and a probe
    GETs /healthz every ``probe_every`` s from 127.0.0.1; ``timeout`` bounds every request."""

    def __init__(self, base: str, machines: dict[str, str], *, net: int = 2, pause: float = 0.2,
                 probe_every: float = 0.25, timeout: float = 5.0) -> None:
        self.base, self.machines, self.net = base, machines, net
        self.pause, self.probe_every, self.timeout = pause, probe_every, timeout
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.samples = Samples()

    def _client(self, source: str) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=self.timeout,
                            transport=httpx.HTTPTransport(local_address=source))

    def credit(self, notes: int = 4) -> None:
        """``notes`` ₩50,000 bills into each machine."""
        for i, (asset, key) in enumerate(self.machines.items()):
            with self._client(f"127.0.{self.net}.{i + 1}") as c:
                for _ in range(notes):
                    r = c.post(f"/api/v1/machines/{asset}/bill-in", json={"amount": 50_000},
                               headers={"Authorization": f"Bearer {key}", "Idempotency-Key": uuid.uuid4().hex})
                    assert r.status_code == 200, r.text

    def _spin(self, i: int, asset: str, key: str) -> None:
        with self._client(f"127.0.{self.net}.{i + 1}") as c:
            while not self._stop.is_set():
                t0 = time.monotonic()
                try:
                    r = c.post(f"/api/v1/machines/{asset}/spin", json=SPIN,
                               headers={"Authorization": f"Bearer {key}", "Idempotency-Key": uuid.uuid4().hex})
                    status = r.status_code
                    if status == 503 and r.headers.get("content-type") == "application/problem+json" \
                            and r.json()["type"].endswith("/overloaded"):
                        status = "503 overloaded"  # admission control's refusal: nothing applied, retried later
                except httpx.HTTPError as e:
                    status = type(e).__name__
                self.samples.spins.append((time.monotonic() - t0, status))
                self._stop.wait(self.pause)

    def _probe(self) -> None:
        with self._client("127.0.0.1") as c:
            while not self._stop.is_set():
                t0 = time.monotonic()
                try:
                    status = c.get("/healthz").status_code
                except httpx.HTTPError as e:
                    status = type(e).__name__
                self.samples.healthz.append((time.monotonic() - t0, status))
                self._stop.wait(self.probe_every)

    def run(self, seconds: float) -> Samples:
        self.samples = Samples()
        self._stop.clear()
        self._threads = [threading.Thread(target=self._spin, args=(i, a, k), daemon=True)
                         for i, (a, k) in enumerate(self.machines.items())]
        self._threads.append(threading.Thread(target=self._probe, daemon=True))
        for t in self._threads:
            t.start()
        time.sleep(seconds)
        self._stop.set()
        for t in self._threads:
            t.join(timeout=self.timeout + 5)
        return self.samples


def raise_open_files(want: int) -> int:
    """Raise this process's soft open-files limit towards ``want`` (bounded by the hard limit); returns it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft
