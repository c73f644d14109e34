"""A whole floor under load: N machines spinning over HTTP against gunicorn + PostgreSQL + Redis +
a real Celery worker, on loopback, bounded in time; beside it, in the same run, a bare endpoint
through the same gunicorn and pgbench running a spin-shaped transaction on the same rows.

Setup: a fresh PostgreSQL database (created here, dropped at the end), migrated and seeded with the
demo floor, plus N load machines (asset L0001…, MASS zone, ₩100, both demo games, so every wager
feeds the Mass and floor-wide jackpot levels), each funded with a ₩5,000,000 bill-in entry.

Load, ``--driver httpx`` (the default): P client processes (asyncio + httpx). ``--interval S`` (open
loop): every machine spins once every S seconds on its own schedule (a 3,000-machine floor at one spin
per 3 s offers 1,000 spins/s); latency is measured from the scheduled start, so a server that falls
behind shows it (no coordinated omission). ``--closed C``: C connections spin back to back (the ceiling).
The Python client costs about as much CPU per request as the server on this 2-core box, so its figures
understate the server. ``--driver wrk`` (Debian's wrk, C, with ``bench/floor_wrk.lua``): ``--closed C``
connections back to back, or one keep-alive connection per machine that spins ``--interval`` seconds
after its last result (a closed system with think time: the rate offered falls if the server slows,
so the achieved rate is printed beside the most it could offer). ``--pyspy DIR`` records each gunicorn
worker with py-spy (``--gil``: Python CPU only) for ``bench/pyspy_summary.py``.

Printed: spins/s achieved vs offered, p50/p95/p99 latency, errors by kind, the ledger audit and the
jackpot audit after the run, GET /healthz req/s through the same gunicorn, pgbench tps of the
spin-shaped transaction (machine row lock + 2 account updates + journal entry + 2 postings + game
round + wager + meters, on the load machines' own rows), and spins/s as a ratio of each.

    .venv/bin/python bench/floor_load.py --machines 3000 --interval 3 --seconds 30
    .venv/bin/python bench/floor_load.py --machines 200 --closed 32 --seconds 20
    .venv/bin/python bench/floor_load.py --machines 300 --closed 16 --seconds 30 --driver wrk
    .venv/bin/python bench/floor_load.py --machines 3000 --interval 3 --seconds 30 --driver wrk --wrk-threads 2
"""

from __future__ import annotations

from slotsys.kernel import accounts

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

FUND = 5_000_000


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000 if xs else float("nan")


# ------------------------------------------------------------------ setup
def add_load_machines(db_url: str, n: int) -> list[dict]:
    """Create and fund ``n`` machines directly through the services (setup, not the measured path)."""
    from slotsys.app.bootstrap import build_services
    from slotsys.kernel import ledger as L
    from slotsys.app.seed import LINE_GAME, WAYS_GAME, add_machine
    from slotsys.kernel.settings import Settings

    svc = build_services(Settings(database_url=db_url, redis_url=None, celery_eager=True))
    out = []
    try:
        for start in range(0, n, 500):
            with svc.uow() as uow:
                for i in range(start, min(n, start + 500)):
                    asset = f"L{i + 1:04d}"
                    game = LINE_GAME if i % 2 else WAYS_GAME
                    key = add_machine(uow, asset, "MASS", f"L{i // 50 + 1}", 100, game)
                    e = L.EntryBuilder("machine.bill_in", f"load fund {asset}")
                    e.add(debit=accounts.machine_drop(asset), credit=accounts.machine_credits(asset), amount=FUND)
                    uow.ledger.post(e.build({"machine": asset}))
                    out.append({"asset": asset, "key": key, "game": game})
                uow.commit()
    finally:
        svc.uow.engine.dispose()
    return out


def wait_ready(base: str, timeout: float = 120) -> None:
    import httpx

    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit("the server did not become ready")


# ------------------------------------------------------------------ load
async def _client(base: str, machines: list[dict], seconds: float, interval: float | None, closed: int,
                  t0: float, out: mp.Queue) -> None:
    import httpx

    lat: list[float] = []
    errors: dict[str, int] = {}
    done = [t0]
    late = [0]
    limits = httpx.Limits(max_connections=64 if interval else closed, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as c:
        async def spin(m: dict) -> None:
            bet = {"lines": 1, "multiplier": 1} if m["game"].endswith("_50") else {"reels": 1, "multiplier": 1}
            try:
                r = await c.post(f"/api/v1/machines/{m['asset']}/spin", json=bet,
                                 headers={"Authorization": f"Bearer {m['key']}", "Idempotency-Key": uuid.uuid4().hex})
                if r.status_code != 200:
                    errors[str(r.status_code)] = errors.get(str(r.status_code), 0) + 1
                    return False
                return True
            except httpx.HTTPError as e:
                errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
                return False

        end = t0 + seconds

        async def paced(m: dict, offset: float) -> None:
            k = 0
            while True:
                due = t0 + offset + k * interval
                if due >= end:
                    return
                if time.perf_counter() >= end:  # bounded in time: what was due but not sent is counted, not sent
                    late[0] += 1
                    k += 1
                    continue
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                if await spin(m):
                    lat.append(time.perf_counter() - due)  # from the scheduled start
                    done[0] = max(done[0], time.perf_counter())
                k += 1

        async def loop(i: int) -> None:
            j = i
            while time.perf_counter() < end:
                m = machines[j % len(machines)]
                j += closed
                s = time.perf_counter()
                if await spin(m):
                    lat.append(time.perf_counter() - s)
                    done[0] = max(done[0], time.perf_counter())

        await asyncio.sleep(max(0.0, t0 - time.perf_counter()))
        if interval:
            rnd = random.Random(len(machines))
            await asyncio.gather(*(paced(m, rnd.uniform(0, interval)) for m in machines))
        else:
            await asyncio.gather(*(loop(i) for i in range(closed)))
    if late[0]:
        errors["not sent by the deadline"] = late[0]
    out.put((lat, errors, done[0]))


def _proc(base, machines, seconds, interval, closed, t0, out) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(_client(base, machines, seconds, interval, closed, t0, out))


def run_load(base: str, machines: list[dict], procs: int, seconds: float, interval: float | None,
             closed: int) -> tuple[list[float], dict, float]:
    q: mp.Queue = mp.Queue()
    t0 = time.perf_counter() + 2.0  # perf_counter is system-wide on Linux (CLOCK_MONOTONIC)
    parts = [machines[i::procs] for i in range(procs)]
    ps = [mp.Process(target=_proc, args=(base, part, seconds, interval, max(1, closed // procs), t0, q))
          for part in parts]
    for p in ps:
        p.start()
    lat: list[float] = []
    errors: dict[str, int] = {}
    last = t0
    for _ in ps:
        lo, er, end = q.get()
        last = max(last, end)
        lat.extend(lo)
        for k, v in er.items():
            errors[k] = errors.get(k, 0) + v
    for p in ps:
        p.join()
    return lat, errors, last - t0  # the rate counts until the last spin completed


WORKER_CLASSES = {"admission": "slotsys.server.gunicorn_worker.AdmissionWorker", "gthread": "gthread", "sync": "sync"}


def run_wrk(base: str, machines: list[dict], connections: int, seconds: float, threads: int, tmp: Path,
            think_s: float = 0.0) -> dict:
    """Driven by wrk (C, epoll; the client costs a fraction of the Python one's CPU): ``connections``
    keep-alive connections spin for ``seconds``, back to back, or (``think_s``) each as a machine that
    waits for its result and then ``think_s`` before the next spin. Returns wrk's figures."""
    path = tmp / "machines.txt"
    path.write_text("".join(
        f"{m['asset']} {m['key']} "
        + (json.dumps({"lines": 1, "multiplier": 1}) if m["game"].endswith("_50") else json.dumps({"reels": 1, "multiplier": 1})).replace(" ", "")
        + "\n" for m in machines))
    r = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds:g}s", "--timeout", "30s",
                        "-s", str(ROOT / "bench" / "floor_wrk.lua"), base, "--", str(path), uuid.uuid4().hex[:12],
                        str(int(think_s * 1000)), str(max(1, connections // threads))],
                       capture_output=True, text=True)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("WRK ")), None)
    if line is None:
        raise SystemExit(f"wrk failed: {r.stdout[-2000:]} {r.stderr[-2000:]}")
    return json.loads(line[4:])


def healthz_wrk(base: str, seconds: float, connections: int = 16) -> float:
    r = subprocess.run(["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds:g}s", base + "/healthz"],
                       capture_output=True, text=True)
    m = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
    return float(m.group(1)) if m else float("nan")


def healthz_rate(base: str, seconds: float, clients: int = 16) -> float:
    import httpx
    import threading

    n = [0]
    lock = threading.Lock()
    end = time.perf_counter() + seconds

    def w():
        k = 0
        with httpx.Client(base_url=base) as c:
            while time.perf_counter() < end:
                k += c.get("/healthz").status_code == 200
        with lock:
            n[0] += k

    ts = [threading.Thread(target=w) for _ in range(clients)]
    s = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return n[0] / (time.perf_counter() - s)


def cpu_seconds_by_role() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) each live process has used, by role: PostgreSQL (backends and server),
    gunicorn, the Celery worker, Redis, other (Linux /proc). Sampled before and after the load, the
    difference says where the machine's cores went; a process that exited in between is not counted (the
    load client's own is taken from getrusage once it has exited)."""
    tck = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[str, float]] = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / tck
        role = ("PostgreSQL" if name.startswith("postgres") or cmd.startswith("postgres") else "gunicorn" if "gunicorn" in cmd
                else "Celery" if "celery" in cmd else "Redis" if name.startswith("redis") else "other")
        out[int(pid)] = (role, cpu)
    return out


def cpu_per_op(before: dict, after: dict, ops: int) -> dict[str, float]:
    """CPU milliseconds per operation by role, between two :func:`cpu_seconds_by_role` samples."""
    by_role: dict[str, float] = {}
    for pid, (role, cpu) in after.items():
        by_role[role] = by_role.get(role, 0.0) + cpu - before.get(pid, (role, 0.0))[1]
    return {r: v * 1000 / max(1, ops) for r, v in sorted(by_role.items(), key=lambda kv: -kv[1])}


def spin_batches(exposition: str) -> tuple[float, float] | None:
    """(group commits, spins in them) from a ``/metrics`` body's ``slotsys_spin_batch_size`` histogram, or None."""
    count = total = None
    for line in exposition.splitlines():
        if line.startswith("slotsys_spin_batch_size_count"):
            count = float(line.split()[-1])
        elif line.startswith("slotsys_spin_batch_size_sum"):
            total = float(line.split()[-1])
    return (count, total) if count and total is not None else None


def pgbench_spin(db_url: str, clients: int, seconds: float) -> float:
    """tps of the spin's own statements as one pgbench transaction, on the load machines' rows:
    machine row lock, idempotency claim, credits read, 2 account updates, journal entry, 2 postings,
    jackpot wager, meters, carded-session lookup, game round, idempotency completion, COMMIT."""
    import sqlalchemy as sa

    from slotsys.kernel.adapters.db import make_engine

    eng = make_engine(db_url)
    with eng.begin() as c:
        c.execute(sa.text(
            "CREATE TABLE bench_map AS SELECT row_number() OVER (ORDER BY m.id) AS k, m.id AS mid, a1.id AS cred, a2.id AS hold "
            "FROM machines m JOIN accounts a1 ON a1.code = 'machine:' || m.asset_number || :c "
            "JOIN accounts a2 ON a2.code = 'machine:' || m.asset_number || :h WHERE m.asset_number LIKE 'L%'"),
            {"c": ":credits", "h": ":hold"})
        n = c.execute(sa.text("SELECT count(*) FROM bench_map")).scalar_one()
    eng.dispose()
    script = Path(tempfile.mkdtemp(prefix="floor-bench-")) / "spin.sql"
    script.write_text(f"""\\set k random(1, {n})
SELECT mid, cred, hold FROM bench_map WHERE k = :k \\gset
BEGIN;
SELECT * FROM machines WHERE id = :mid FOR UPDATE;
INSERT INTO idempotency_records (principal, key, fingerprint, created_at) VALUES ('bench', md5(random()::text), 'x', now()) ON CONFLICT DO NOTHING RETURNING id \\gset idem_
SELECT balance, normal_sign FROM accounts WHERE id = :cred;
UPDATE accounts SET balance = balance + 100 WHERE id = :cred RETURNING balance, normal_sign, non_negative;
UPDATE accounts SET balance = balance - 100 WHERE id = :hold RETURNING balance, normal_sign, non_negative;
INSERT INTO journal_entries (kind, memo, refs, created_at) VALUES ('bench.spin', 'pgbench', '{{}}', now()) RETURNING id \\gset je_
INSERT INTO postings (entry_id, account_id, amount, memo) VALUES (:je_id, :cred, 100, 'coin-in'), (:je_id, :hold, -100, 'coin-in');
INSERT INTO jackpot_wagers (machine_id, asset, zone, bank, game_number, bet_won, progressive, created_at) VALUES (:mid, 'BENCH', 'BENCH', '', 0, 100, '', now());
UPDATE machines SET game_seq = game_seq + 1, coin_in = coin_in + 100, games_played = games_played + 1 WHERE id = :mid;
SELECT id FROM player_sessions WHERE machine_id = :mid AND status = 'open';
INSERT INTO game_rounds (machine_id, game_number, bet, bet_won, win_won, outcome, jackpots, credits_before, credits_after, entry_id, created_at)
  VALUES (:mid, (SELECT game_seq FROM machines WHERE id = :mid) + 1000000000, '{{"lines": 1}}', 100, 0, '{{"stops": [1, 2, 3, 4, 5]}}', '[]', 0, 0, :je_id, now());
UPDATE idempotency_records SET status_code = 200, response = '{{"ok": true}}' WHERE id = :idem_id;
COMMIT;
""")
    r = subprocess.run(["pgbench", "-n", "-c", str(clients), "-j", "2", "-T", str(int(seconds)), "-f", str(script), db_url],
                       capture_output=True, text=True)
    m = re.search(r"tps = ([\d.]+)", r.stdout)
    if not m:
        print(r.stdout[-2000:], r.stderr[-2000:])
        return float("nan")
    return float(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    ap.add_argument("--machines", type=int, default=3000)
    ap.add_argument("--interval", type=float, default=3.0, help="seconds between one machine's spins (open loop)")
    ap.add_argument("--closed", type=int, default=0, help="closed loop with this many connections instead")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--procs", type=int, default=2, help="client processes")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--port", type=int, default=8797)
    ap.add_argument("--worker-class", default="admission", choices=tuple(WORKER_CLASSES),
                    help="admission: gthread with admission control (slotsys/server/gunicorn_conf.py's); gthread; sync")
    ap.add_argument("--shed-ms", type=int, default=None,
                    help="admission control's queue budget (SLOTSYS_SHED_QUEUE_MS; 0 = off; default: the app's)")
    ap.add_argument("--driver", default="httpx", choices=("httpx", "wrk"),
                    help="load client: httpx (Python, open or closed loop) or wrk (C; Debian package wrk): "
                         "--closed C connections back to back, or one connection per machine with --interval "
                         "as the think time after each result")
    ap.add_argument("--worker-connections", type=int, default=None,
                    help="gunicorn's per-worker connection limit (default: slotsys/server/gunicorn_conf.py's)")
    ap.add_argument("--wrk-threads", type=int, default=1)
    ap.add_argument("--size-for", type=float, default=1000.0, metavar="RATE",
                    help="with --driver wrk: also print the cores a floor offering RATE spins/s needs at the CPU per "
                         "served spin this run measured (3,000 machines at one spin per 3 s: 1,000; 0: off)")
    ap.add_argument("--warmup", type=float, default=0.0, metavar="S",
                    help="with --driver wrk: run the same load S seconds first, unmeasured, so each web process has "
                         "seen every machine once (its key, account ids and link written) as on a floor that has "
                         "been running; 0: measure from the first spin (a floor whose processes just started)")
    ap.add_argument("--pyspy", metavar="DIR", help="record each gunicorn worker with py-spy during the load "
                    "(collapsed stacks, DIR/worker-<pid>.txt; summarise with bench/pyspy_summary.py)")
    args = ap.parse_args()
    if args.driver == "wrk" and not shutil.which("wrk"):
        ap.error("wrk not found: apt-get install wrk")

    name = f"slotsys_load_{uuid.uuid4().hex[:8]}"
    db_url = args.pg.rsplit("/", 1)[0] + "/" + name
    tmp = Path(tempfile.mkdtemp(prefix="floor-load-"))
    env = dict(os.environ, DATABASE_URL=db_url, REDIS_URL=args.redis, SLOTSYS_CREDENTIALS_FILE=str(tmp / "creds.json"),
               SLOTSYS_LOG_LEVEL=os.environ.get("BENCH_LOG_LEVEL", "WARNING"), SLOTSYS_LOG_JSON="true", PYTHONUNBUFFERED="1")
    if args.shed_ms is not None:
        env["SLOTSYS_SHED_QUEUE_MS"] = str(args.shed_ms)
    subprocess.run(["psql", args.pg, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    procs: list[subprocess.Popen] = []
    base = f"http://127.0.0.1:{args.port}"
    try:
        subprocess.run([BIN / "slotsys", "migrate"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        subprocess.run([BIN / "slotsys", "seed"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        creds = json.loads((tmp / "creds.json").read_text())
        t = time.perf_counter()
        machines = add_load_machines(db_url, args.machines)
        print(f"setup: {len(machines):,} load machines created and funded in {time.perf_counter() - t:.1f} s")
        subprocess.run(["redis-cli", "-u", args.redis, "flushdb"], check=False, stdout=subprocess.DEVNULL)
        procs.append(subprocess.Popen([BIN / "celery", "-A", "slotsys.app.worker", "worker", "--pool", "threads",
                                       "--concurrency", "2", "--loglevel", "WARNING"], env=env, cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=open(tmp / "worker.log", "w")))
        procs.append(subprocess.Popen([BIN / "gunicorn", "-c", "python:slotsys.server.gunicorn_conf", "-w", str(args.workers), "--threads", str(args.threads), "-k",
                                       WORKER_CLASSES[args.worker_class],
                                       *(["--worker-connections", str(args.worker_connections)] if args.worker_connections else []), "-b", f"127.0.0.1:{args.port}", "--log-level", "warning",
                                       "slotsys.app.wsgi:app"], env=env, cwd=ROOT, stdout=open(tmp / "web.out", "w"),
                                      stderr=open(tmp / "web.log", "w")))
        wait_ready(base)
        if args.warmup and args.driver == "wrk":  # the same load first, not measured: every process's caches warm
            run_wrk(base, machines, args.closed or len(machines), args.warmup, args.wrk_threads, tmp,
                    think_s=0.0 if args.closed else args.interval)

        interval = None if args.closed else args.interval
        wrk = None
        spies = []
        if args.pyspy:
            Path(args.pyspy).mkdir(parents=True, exist_ok=True)
            master = procs[-1].pid
            kids = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
            spies = [subprocess.Popen([BIN / "py-spy", "record", "--format", "raw", "--gil", "--nonblocking", "--pid", pid, "--duration",
                                       str(int(args.seconds)), "--rate", "200", "-o", str(Path(args.pyspy) / f"worker-{pid}.txt")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for pid in kids]
        if args.driver == "wrk":
            base_rate = healthz_wrk(base, 5)
            cpu0, wall0, kids0 = cpu_seconds_by_role(), time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
            if args.closed:
                wrk = run_wrk(base, machines, args.closed, args.seconds, args.wrk_threads, tmp)
            else:  # one connection per machine, each thinking --interval between its result and its next spin
                wrk = run_wrk(base, machines, len(machines), args.seconds, args.wrk_threads, tmp, think_s=args.interval)
            cpu1, wall1, kids1 = cpu_seconds_by_role(), time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu1[-1] = ("wrk", (kids1.ru_utime + kids1.ru_stime) - (kids0.ru_utime + kids0.ru_stime))  # wrk has exited
            ok = wrk["requests"] - wrk["non2xx"]
            shed = wrk["statuses"].get("503", 0)
            rate = ok / (wrk["duration_us"] / 1e6)
            errors = {k: v for k, v in (("non-2xx", wrk["non2xx"] - shed), ("connect", wrk["connect"]), ("read", wrk["read"]),
                                         ("timeout", wrk["timeout"])) if v}
        else:
            base_rate = healthz_rate(base, 5)
            lat, errors, secs = run_load(base, machines, args.procs, args.seconds, interval, args.closed)
            rate = len(lat) / secs if secs > 0 else 0.0
        offered = (len(machines) / args.interval) if interval else float("nan")
        for sp in spies:
            sp.wait(timeout=60)
        time.sleep(3)  # the sequencer folds the last wagers

        import httpx

        auditor = next(s for s in creds["staff"] if s["role"] == "auditor")
        tok = httpx.post(base + "/api/v1/auth/login", json={"username": auditor["username"],  # after a backlog drains
                                                             "password": auditor["password"]}, timeout=120).json()["token"]
        audit = httpx.get(base + "/api/v1/audit/ledger", headers={"Authorization": f"Bearer {tok}"}, timeout=120).json()
        batch = spin_batches(httpx.get(base + "/metrics", timeout=30).text)
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        procs.clear()
        tps = pgbench_spin(db_url, 16, 10)

        if wrk and interval:
            mode = (f"{len(machines):,} connections (one per machine), each spinning {args.interval:g} s after its last "
                    f"result (at most {offered:,.0f} spins/s)")
        else:
            mode = f"open loop, one spin per machine every {args.interval:g} s" if interval else f"closed loop, {args.closed} connections"
        client = f"wrk {args.wrk_threads} thread(s)" if wrk else f"{args.procs} httpx client processes"
        print(f"floor: {len(machines):,} machines, {mode}, {args.seconds:g} s; gunicorn {args.workers}×{args.threads} "
              f"{args.worker_class}, PostgreSQL + Redis + 1 Celery worker; {client}")
        if interval:
            print(f"offered: {offered:,.0f} spins/s")
        if wrk:
            sv = wrk["served"]
            print(f"spins: {rate:,.1f} spins/s  p50 {wrk['p50'] / 1000:.1f} ms  p95 {wrk['p95'] / 1000:.1f} ms  "
                  f"p99 {wrk['p99'] / 1000:.1f} ms  max {wrk['max'] / 1000:.1f} ms  (every answer, at the client; "
                  f"{wrk['requests']:,} sent, errors {errors or 0}{', statuses ' + str(wrk['statuses']) if wrk['statuses'] else ''})")
            if sv.get("n"):
                print(f"served spins, server side (Server-Timing queue + app): p50 {sv['p50']:.1f} ms  p95 {sv['p95']:.1f} ms  "
                      f"p99 {sv['p99']:.1f} ms  max {sv['max']:.1f} ms;  shed (503 Retry-After, nothing applied): {shed:,} "
                      f"= {shed / max(1, wrk['requests']):.1%} of answers")
            per = cpu_per_op(cpu0, cpu1, ok)
            busy = sum(per.values()) * ok / 1000 / (wall1 - wall0) / (os.cpu_count() or 1)
            print(f"CPU ms per served spin: {sum(per.values()):.2f} in all = "
                  + ", ".join(f"{r} {v:.2f}" for r, v in per.items() if v >= 0.005)
                  + f"  (the {os.cpu_count()} cores {busy:.0%} busy)")
            if args.size_for:  # what a floor offering that rate needs at this run's CPU per served spin
                server = sum(v for r, v in per.items() if r != "wrk")  # the load client is not the casino's
                need = args.size_for * server / 1000
                print(f"sizing: {args.size_for:,.0f} spins/s at {server:.2f} ms of server CPU per served spin "
                      f"(wrk's excluded) = {need:.1f} cores busy (PostgreSQL {args.size_for * per.get('PostgreSQL', 0) / 1000:.1f}); "
                      f"{need / 0.7:.1f} cores at 70% utilisation, cores of this machine's speed"
                      + ("; from an overloaded run, refusals included: size from a closed loop below capacity" if shed else ""))
        else:
            print(f"spins: {rate:,.1f} spins/s  p50 {pct(lat, 50):.1f} ms  p95 {pct(lat, 95):.1f} ms  p99 {pct(lat, 99):.1f} ms"
                  f"  ({len(lat):,} ok, errors {errors or 0})")
        jp = audit.get("jackpots", [])
        print(f"audit: balanced={audit.get('balanced')} (journal entries {audit.get('journal_entries'):,}, sum of balances "
              f"{audit.get('sum_of_balances')}, tickets agree {audit.get('tickets', {}).get('agrees')}, "
              f"{sum(1 for j in jp if j.get('agrees'))}/{len(jp)} jackpot levels agree, "
              f"players agree {audit.get('players', {}).get('agrees')})")
        if batch:
            print(f"group commit: {batch[1]:,.0f} spins in {batch[0]:,.0f} transactions = {batch[1] / batch[0]:.2f} spins "
                  f"per transaction (slotsys_spin_batch_size; SLOTSYS_SPIN_GROUP_COMMIT_MAX="
                  f"{os.environ.get('SLOTSYS_SPIN_GROUP_COMMIT_MAX', 'default')})")
        else:
            print("group commit: off (no slotsys_spin_batch_size samples)")
        print(f"bare GET /healthz through the same gunicorn: {base_rate:,.0f} req/s  → spins/s ratio {rate / base_rate:.1%}")
        print(f"pgbench, spin-shaped transaction on the same rows (16 clients): {tps:,.0f} tps  → spins/s ratio {rate / tps:.1%}")
        return 0 if audit.get("balanced") else 1
    finally:
        for p in procs:
            p.kill()
        subprocess.run(["psql", args.pg, "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], check=False)


if __name__ == "__main__":
    raise SystemExit(main())
