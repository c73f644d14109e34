"""Spins per second through the HTTP API, beside a bare endpoint in the same run.

Starts gunicorn on a fresh database (SQLite by default, or PostgreSQL with --pg URL of a
server the script may create a database on), seeds the demo floor, then C client threads
play their own machines for D seconds. Prints spins/s, p50/p95/p99 latency, errors, and the
rate of GET /healthz through the same gunicorn (the baseline), and the ratio.

    .venv/bin/python bench/spin_throughput.py --seconds 10 --clients 16
    .venv/bin/python bench/spin_throughput.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/spin_throughput.py --promo   # every machine first takes a ₩1,000,000
        restricted promotional ticket, so the spins stake promotional credits (two credit meters touched)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def hammer(fn, clients: int, seconds: float):
    lat: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker(i):
        local, errs = [], 0
        state = fn(i)
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            ok = state()
            local.append(time.perf_counter() - t0)
            errs += 0 if ok else 1
        with lock:
            lat.extend(local)
            errors[0] += errs

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return len(lat) / (time.perf_counter() - t0), lat, errors[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--pg", default=None, help="PostgreSQL server URL (a fresh database is created on it)")
    ap.add_argument("--port", type=int, default=8799)
    ap.add_argument("--promo", action="store_true", help="play restricted promotional credits (a ticket per machine)")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="slotsys-bench-"))
    env = dict(os.environ, SLOTSYS_CREDENTIALS_FILE=str(tmp / "creds.json"), SLOTSYS_PORT=str(args.port),
               SLOTSYS_LOG_LEVEL="WARNING", SLOTSYS_LOG_JSON="true")
    env.pop("REDIS_URL", None)
    if args.pg:
        name = f"slotsys_bench_{uuid.uuid4().hex[:8]}"
        subprocess.run(["psql", args.pg, "-qc", f'CREATE DATABASE "{name}"'], check=True)
        env["DATABASE_URL"] = args.pg.rsplit("/", 1)[0] + "/" + name
    else:
        env["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.db'}"
    subprocess.run([BIN / "slotsys", "migrate"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    subprocess.run([BIN / "slotsys", "seed"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    creds = json.loads((tmp / "creds.json").read_text())
    server = subprocess.Popen([BIN / "gunicorn", "-w", str(args.workers), "--threads", str(args.threads), "-k", "gthread",
                               "-b", f"127.0.0.1:{args.port}", "--log-level", "warning", "slotsys.app.wsgi:app"], env=env, cwd=ROOT)
    base = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(base + "/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        machines = creds["machines"]
        if args.promo:
            def login(role):
                who = next(s for s in creds["staff"] if s["role"] == role)
                return httpx.post(base + "/api/v1/auth/login", json={"username": who["username"],
                                                                     "password": who["password"]}).json()["token"]

            token, second = login("supervisor"), login("admin")
            for m in machines[:args.clients]:
                t = httpx.post(base + "/api/v1/tickets/promotional", json={"amount": 1_000_000},
                               headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})
                if t.status_code == 202:  # past the supervisor's cumulative allowance: a second supervisor approves
                    t = httpx.post(f"{base}/api/v1/tickets/promotional/requests/{t.json()['request']['id']}/approve",
                                   headers={"Authorization": f"Bearer {second}", "Idempotency-Key": uuid.uuid4().hex})
                r = httpx.post(f"{base}/api/v1/machines/{m['asset']}/ticket-in",
                               json={"validation_number": t.json()["ticket"]["validation_number"]},
                               headers={"Authorization": f"Bearer {m['key']}", "Idempotency-Key": uuid.uuid4().hex})
                assert r.status_code == 200, r.text

        def healthz(i):
            c = httpx.Client(base_url=base)
            return lambda: c.get("/healthz").status_code == 200

        def spin(i):
            m = machines[i % len(machines)]
            c = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {m['key']}"})
            bet = {"lines": 1, "multiplier": 1} if m["game"].endswith("_50") else {"reels": 1, "multiplier": 1}

            def once():
                r = c.post(f"/api/v1/machines/{m['asset']}/spin", json=bet, headers={"Idempotency-Key": uuid.uuid4().hex})
                if r.status_code == 409:  # out of credits: insert a note and go on
                    c.post(f"/api/v1/machines/{m['asset']}/bill-in", json={"amount": 50_000},
                           headers={"Idempotency-Key": uuid.uuid4().hex})
                    return True
                return r.status_code == 200

            if not args.promo:
                c.post(f"/api/v1/machines/{m['asset']}/bill-in", json={"amount": 50_000},
                       headers={"Idempotency-Key": uuid.uuid4().hex})
            return once

        base_rate, base_lat, _ = hammer(healthz, args.clients, args.seconds / 2)
        rate, lat, errors = hammer(spin, min(args.clients, len(machines)), args.seconds)
        db = "PostgreSQL" if args.pg else "SQLite"
        print(f"database: {db}; gunicorn {args.workers} workers × {args.threads} threads; {min(args.clients, len(machines))} machines"
              + ("; spins stake restricted promotional credits" if args.promo else ""))
        print(f"baseline GET /healthz: {base_rate:,.0f} req/s  p50 {statistics.median(base_lat)*1000:.1f} ms")
        print(f"spins: {rate:,.0f} spins/s  p50 {percentile(lat,50)*1000:.1f} ms  p95 {percentile(lat,95)*1000:.1f} ms  "
              f"p99 {percentile(lat,99)*1000:.1f} ms  errors {errors}  ({len(lat):,} requests)")
        print(f"ratio spins/s ÷ bare endpoint req/s: {rate / base_rate:.1%}")
    finally:
        server.terminate()
        server.wait()
        if args.pg:
            subprocess.run(["psql", args.pg, "-qc", f'DROP DATABASE IF EXISTS "{env["DATABASE_URL"].rsplit("/",1)[1]}" WITH (FORCE)'])


if __name__ == "__main__":
    main()
