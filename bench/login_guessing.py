"""Spin latency with and without 8 password-guessing clients, through a real gunicorn.

For each configuration a fresh gunicorn (production config, ``-c python:slotsys.server.gunicorn_conf``) serves one
seeded floor; M machines spin in closed loops for D seconds alone (the baseline of that same server), then
D seconds more while G clients POST /api/v1/auth/login with wrong passwords for real usernames as fast as
they are answered (never honouring Retry-After: an attacker does not). Printed per configuration: the
spins' p50 / p95 alone and under guessing, and what the guessers got (401 = a password was checked,
429 = throttled, 503 = hashing slots busy).

Configurations (settings through the environment, as production sets them):

* ``unbounded``: no address limit, 64 hashing slots never resting, no lock-out within the run:
  every guess is a scrypt on a request thread (the behaviour the outside tester measured);
* ``slots``: no address limit, the default hashing slots (1 per process): what a guesser from many
  addresses meets;
* ``default``: every default: 20 failures per address per 5 minutes, lock-out after 5, 1 slot;
* ``healthz``: the same clients hammer ``GET /healthz`` instead: what 8 busy clients cost the spins
  whatever they ask (the floor under any figure above).

    .venv/bin/python bench/login_guessing.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/login_guessing.py --seconds 8 --guessers 8 --machines 8
"""

from __future__ import annotations

import argparse
import collections
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
CONFIGS = {
    "unbounded": {"SLOTSYS_STAFF_LOGIN_ADDRESS_LIMIT": "1000000/second", "SLOTSYS_STAFF_LOGIN_HASH_SLOTS": "64",
                  "SLOTSYS_STAFF_LOGIN_HASH_DUTY": "1", "SLOTSYS_STAFF_LOGIN_HASH_WAIT_S": "30",
                  "SLOTSYS_STAFF_LOCKOUT_FAILURES": "1000"},
    "slots": {"SLOTSYS_STAFF_LOGIN_ADDRESS_LIMIT": "1000000/second", "SLOTSYS_STAFF_LOCKOUT_FAILURES": "1000"},
    "default": {},
    "healthz": {},  # not guessing: the same clients hammer GET /healthz, the cost of any 8 busy clients
}


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000 if xs else float("nan")


def run_phase(base: str, machines: list[dict], usernames: list[str], seconds: float, guessers: int,
              healthz: bool = False):
    stop = time.perf_counter() + seconds
    lat: list[float] = []
    statuses: collections.Counter = collections.Counter()
    spin_status: collections.Counter = collections.Counter()
    lock = threading.Lock()

    def spinner(m):
        try:
            _spinner(m)
        except Exception as exc:  # report, do not die silently
            print(f"spinner {m['asset']}: {exc!r}", file=sys.stderr)

    def _spinner(m):
        c = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {m['key']}"}, timeout=30)
        bet = {"lines": 1, "multiplier": 1} if m["game"].endswith("_50") else {"reels": 1, "multiplier": 1}
        local = []
        c.post(f"/api/v1/machines/{m['asset']}/bill-in", json={"amount": 50_000}, headers={"Idempotency-Key": uuid.uuid4().hex})
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            r = c.post(f"/api/v1/machines/{m['asset']}/spin", json=bet, headers={"Idempotency-Key": uuid.uuid4().hex})
            spin_status[r.status_code] += 1
            if r.status_code == 200:
                local.append(time.perf_counter() - t0)
            elif r.status_code == 409:
                c.post(f"/api/v1/machines/{m['asset']}/bill-in", json={"amount": 50_000},
                       headers={"Idempotency-Key": uuid.uuid4().hex})
        with lock:
            lat.extend(local)

    def guesser(i):
        try:
            _guesser(i)
        except Exception as exc:
            print(f"guesser {i}: {exc!r}", file=sys.stderr)

    def _guesser(i):
        c = httpx.Client(base_url=base, timeout=30)
        local: collections.Counter = collections.Counter()
        n = 0
        while time.perf_counter() < stop:
            if healthz:
                r = c.get("/healthz")
            else:
                r = c.post("/api/v1/auth/login", json={"username": usernames[(i + n) % len(usernames)],
                                                       "password": f"guess-{i}-{n}"})
            local[r.status_code] += 1
            n += 1
        with lock:
            statuses.update(local)

    ts = [threading.Thread(target=spinner, args=(m,)) for m in machines]
    ts += [threading.Thread(target=guesser, args=(i,)) for i in range(guessers)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if not lat:
        raise SystemExit(f"no spin succeeded: {dict(spin_status)} (gunicorn log: {base})")
    return lat, statuses


def serve(env: dict, workers: int, threads: int, port: int, log: Path):
    with open(log, "wb") as out:
        server = subprocess.Popen([BIN / "gunicorn", "-c", "python:slotsys.server.gunicorn_conf", "--workers", str(workers),
                                   "--threads", str(threads), "--bind", f"127.0.0.1:{port}", "slotsys.app.wsgi:app"],
                                  env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(base + "/readyz").status_code == 200:
                return server, base
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    server.terminate()
    raise SystemExit(f"gunicorn did not become ready: see {log}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--machines", type=int, default=8)
    ap.add_argument("--guessers", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--pg", default=None, help="PostgreSQL server URL (a fresh database per configuration)")
    ap.add_argument("--port", type=int, default=8797)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    args = ap.parse_args()

    print(f"gunicorn {args.workers} workers × {args.threads} threads; {args.machines} machines spinning; "
          f"{args.guessers} guessing clients; {args.seconds:.0f} s per phase; "
          f"database {'PostgreSQL' if args.pg else 'SQLite'}")
    print(f"{'config':<10} {'spin p50 alone':>15} {'p95 alone':>10} {'p50 guessed':>12} {'p95 guessed':>12} "
          f"{'p50 ×':>6}  guessers' answers")
    for name in args.configs.split(","):
        tmp = Path(tempfile.mkdtemp(prefix="slotsys-bench-login-"))
        env = dict(os.environ, SLOTSYS_CREDENTIALS_FILE=str(tmp / "creds.json"), SLOTSYS_LOG_LEVEL="WARNING",
                   SLOTSYS_LOG_JSON="true", SLOTSYS_CELERY_EAGER="true", PROMETHEUS_MULTIPROC_DIR=str(tmp / "prom"),
                   **CONFIGS[name])
        env.pop("REDIS_URL", None)
        (tmp / "prom").mkdir()
        dbname = None
        if args.pg:
            dbname = f"slotsys_bench_{uuid.uuid4().hex[:8]}"
            subprocess.run(["psql", args.pg, "-qc", f'CREATE DATABASE "{dbname}"'], check=True)
            env["DATABASE_URL"] = args.pg.rsplit("/", 1)[0] + "/" + dbname
        else:
            env["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.db'}"
        subprocess.run([BIN / "slotsys", "migrate"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        subprocess.run([BIN / "slotsys", "seed"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        creds = json.loads((tmp / "creds.json").read_text())
        usernames = [s["username"] for s in creds["staff"]]
        server, base = serve(env, args.workers, args.threads, args.port, tmp / "gunicorn.log")
        try:
            machines = creds["machines"][: args.machines]
            run_phase(base, machines, usernames, 1.5, 0)  # warm-up
            alone, _ = run_phase(base, machines, usernames, args.seconds, 0)
            guessed, statuses = run_phase(base, machines, usernames, args.seconds, args.guessers, name == "healthz")
            ratio = statistics.median(guessed) / statistics.median(alone)
            print(f"{name:<10} {pct(alone, 50):>12.1f} ms {pct(alone, 95):>7.1f} ms {pct(guessed, 50):>9.1f} ms "
                  f"{pct(guessed, 95):>9.1f} ms {ratio:>5.2f}×  {dict(sorted(statuses.items()))}", flush=True)
        finally:
            server.terminate()
            server.wait()
            if dbname:
                subprocess.run(["psql", args.pg, "-qc", f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)'])


if __name__ == "__main__":
    main()
