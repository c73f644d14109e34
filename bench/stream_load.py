"""Spins and /healthz with long-lived jackpot streams open: 0 streams (the baseline), then N streams on the
stream server (``slotsys streams``, where nginx routes them in production), then N streams straight at
gunicorn (a deployment that forgot the proxy: the worker's hand-off), all in one run on the same processes.

Setup (created here, removed at the end): a fresh PostgreSQL database with the demo floor, a private
redis-server (pub/sub), gunicorn with the production conf (``--workers`` × ``--threads``), one stream server.
Load in each phase: ``--spinners`` threads, each spinning its own MASS machine back to back (closed loop,
keep-alive) for ``--seconds``, and one thread probing ``/healthz`` every 50 ms. The streams are held by one
asyncio loop in a child process of their own (raw sockets; the soft open-files limit is raised towards the hard
one), so that reading their frames does not take this process's GIL from the threads that time the spins.

A last phase with 0 streams again shows how much the machine's other load moved meanwhile.
Printed: per phase, spins done, spins/s, spin p50/p99, /healthz p50/p99/max, streams open and events they
received during the phase, and the stream server's resident memory.

    .venv/bin/python bench/stream_load.py                 # 1,000 streams, 10 s phases
    .venv/bin/python bench/stream_load.py --streams 300 --seconds 5
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.integration._procs import BIN, FloorDb, Gunicorn, PrivateRedis, Proc, free_port, service_env, tail, wait_until  # noqa: E402
from tests.integration._sse import raise_open_files  # noqa: E402

LINE_BET = {"lines": 10, "multiplier": 1}
WAYS_BET = {"reels": 3, "multiplier": 1}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000 if xs else float("nan")


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` so far (``/proc/<pid>/stat``)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(f[11]) + int(f[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def phase(base: str, keys: dict, assets: list[str], seconds: float, watch: dict | None = None) -> dict:
    before = {k: cpu_s(v) for k, v in (watch or {}).items()}
    stop = time.monotonic() + seconds
    spins: list[float] = []
    health: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def spinner(asset: str) -> None:
        bet = LINE_BET if int(asset[1:]) % 2 else WAYS_BET
        with httpx.Client(base_url=base, timeout=10, headers={"Authorization": f"Bearer {keys[asset]}"}) as c:
            while time.monotonic() < stop:
                t = time.perf_counter()
                try:
                    r = c.post(f"/api/v1/machines/{asset}/spin", json=bet, headers={"Idempotency-Key": uuid.uuid4().hex})
                    ok = r.status_code == 200
                    err = None if ok else f"{r.status_code}"
                except httpx.HTTPError as exc:
                    ok, err = False, type(exc).__name__
                with lock:
                    (spins.append(time.perf_counter() - t) if ok else errors.append(err))

    def prober() -> None:
        with httpx.Client(base_url=base, timeout=10) as c:
            while time.monotonic() < stop:
                t = time.perf_counter()
                try:
                    c.get("/healthz")
                    health.append(time.perf_counter() - t)
                except httpx.HTTPError:
                    health.append(10.0)
                time.sleep(0.05)

    ts = [threading.Thread(target=spinner, args=(a,)) for a in assets] + [threading.Thread(target=prober)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    cpu = {k: (cpu_s(v) - before[k]) / seconds for k, v in (watch or {}).items()}
    return {"cpu": cpu, "spins": len(spins), "rate": len(spins) / seconds, "p50": pct(spins, 50), "p99": pct(spins, 99),
            "h50": pct(health, 50), "h99": pct(health, 99), "hmax": max(health) * 1000 if health else float("nan"),
            "errors": len(errors), "error_kinds": sorted(set(errors))}


class CrowdProcess:
    """The stream clients in a child process (``tests.integration._sse.Crowd`` there), driven over its stdin and
    stdout: ``open`` → how many answered 200; ``events`` → frames received so far; ``close`` ends it."""

    CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.integration._sse import Crowd, raise_open_files
raise_open_files(int(sys.argv[3]) * 2 + 2000)
reqs = json.loads(sys.stdin.readline())
crowd = Crowd()
conns = crowd.open(int(sys.argv[2]), [(p, h) for p, h in reqs], timeout=120)
print(json.dumps({"opened": sum(c.status == 200 for c in conns)}), flush=True)
for line in sys.stdin:
    if line.strip() == "events":
        print(json.dumps({"events": sum(c.events for c in conns), "open": sum(not c.ended for c in conns)}), flush=True)
    else:
        break
crowd.close()
"""

    def __init__(self, port: int, reqs: list) -> None:
        import json
        import subprocess

        self.json = json
        self.p = subprocess.Popen([sys.executable, "-c", self.CHILD, str(ROOT), str(port), str(len(reqs))],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.p.stdin.write(json.dumps(reqs) + "\n")
        self.p.stdin.flush()
        self.opened = json.loads(self.p.stdout.readline())["opened"]

    def events(self) -> tuple[int, int]:
        self.p.stdin.write("events\n")
        self.p.stdin.flush()
        r = self.json.loads(self.p.stdout.readline())
        return r["events"], r["open"]

    def close(self) -> None:
        if self.p.poll() is None:
            try:
                self.p.stdin.write("close\n")
                self.p.stdin.flush()
            except BrokenPipeError:
                pass
            try:
                self.p.wait(timeout=30)
            except Exception:
                self.p.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--spinners", type=int, default=8)
    ap.add_argument("--no-direct", action="store_true", help="skip the phase with the streams straight at gunicorn")
    args = ap.parse_args()
    server_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    print(f"open files (soft): {raise_open_files(args.streams * 2 + 2000)}")
    tmp = Path(tempfile.mkdtemp(prefix="stream-load-"))
    procs: list[Proc] = []
    redis = PrivateRedis(tmp).start()
    procs.append(redis)
    db = FloorDb(server_url, tmp, redis.url)
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # the app's logging setup made it log every request
    crowd = None
    try:
        keys = {m["asset"]: m["key"] for m in db.creds["machines"]}
        per = str(max(10, args.streams // 10))  # 30 demo machines share the streams
        env = service_env(db.url, redis.url, tmp, SLOTSYS_STREAM_PER_PRINCIPAL=per,
                          SLOTSYS_STREAM_MAX_LIFETIME_S=str(args.seconds * 10 + 120))
        web = Gunicorn(env, tmp, workers=args.workers, threads=args.threads)
        procs.append(web)
        web.start()
        streams = Proc([BIN / "slotsys", "streams", "--port", free_port()], env, tmp / "streams.log")
        streams.port = int(streams.argv[-1])
        procs.append(streams)
        streams.start()
        assert wait_until(lambda: httpx.get(f"http://127.0.0.1:{streams.port}/healthz", timeout=2).status_code == 200,
                          timeout=60), tail(streams.log)
        assets = [f"M{n:03d}" for n in range(1, args.spinners + 1)]
        for a in assets:
            for _ in range(20):  # ₩1,000,000 each (one note per bill-in)
                r = httpx.post(f"{web.base}/api/v1/machines/{a}/bill-in", json={"amount": 50_000}, timeout=10,
                               headers={"Authorization": f"Bearer {keys[a]}", "Idempotency-Key": uuid.uuid4().hex})
                assert r.status_code in (200, 201), r.text
        all_assets = sorted(keys)
        reqs = [("/api/v1/jackpots/stream", {"Authorization": f"Bearer {keys[all_assets[i % len(all_assets)]]}"})
                for i in range(args.streams)]
        rows = []
        watch = {"gunicorn": web.worker_pids(), "streams": [streams.pid], "bench": [os.getpid()]}
        phase(web.base, keys, assets, 2.0)  # warm-up (connections, caches), not reported
        rows.append(("0 streams", 0, phase(web.base, keys, assets, args.seconds, watch), 0, rss_mb(streams.pid)))

        targets = [(streams.port, "on the stream server", f"{args.streams} on slotsys streams", streams.pid)]
        if not args.no_direct:
            targets.append((web.port, "straight at gunicorn", f"{args.streams} at gunicorn (hand-off)", None))
        for port, where, label, mem_pid in targets:
            t = time.monotonic()
            crowd = CrowdProcess(port, reqs)
            watch["bench"] = [os.getpid(), crowd.p.pid]
            print(f"{crowd.opened}/{len(reqs)} streams opened {where} in {time.monotonic() - t:.1f} s")
            ev0, _ = crowd.events()
            res = phase(web.base, keys, assets, args.seconds, watch)
            ev1, still = crowd.events()
            rows.append((label, still, res, ev1 - ev0, rss_mb(mem_pid) if mem_pid else float("nan")))
            crowd.close()
            watch["bench"] = [os.getpid()]
        crowd = None
        time.sleep(1)
        rows.append(("0 streams (again, after closing)", 0, phase(web.base, keys, assets, args.seconds, watch), 0,
                     rss_mb(streams.pid)))
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]

        print(f"\nload average of the machine at the end: {' '.join(load)} (other work shares these cores)")
        print(f"gunicorn {args.workers} workers x {args.threads} threads, {args.spinners} spinning machines "
              f"(closed loop), {args.seconds:.0f} s per phase, PostgreSQL + Redis on loopback")
        print(f"{'phase':34} {'open':>5} {'spins':>6} {'spins/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'healthz p50':>11} {'p99':>6} {'max':>6} {'errors':>6} {'events':>7} {'srv MB':>6}")
        for name, open_, r, events, mem in rows:
            print(f"{name:34} {open_:>5} {r['spins']:>6} {r['rate']:>8.1f} {r['p50']:>7.1f} {r['p99']:>7.1f} "
                  f"{r['h50']:>11.1f} {r['h99']:>6.1f} {r['hmax']:>6.1f} {r['errors']:>6} {events:>7} {mem:>6.1f}"
                  + (f"  {r['error_kinds']}" if r["errors"] else ""))
        print("\nCPU (cores busy on average during the phase): "
              + "; ".join(f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in r["cpu"].items()) for name, _, r, _, _ in rows))
    finally:
        if crowd is not None:
            crowd.close()
        for p in reversed(procs):
            p.stop()
        db.drop()


if __name__ == "__main__":
    main()
