"""Ticket redemption latency through the HTTP API on PostgreSQL, 64 concurrent terminals.

Creates a fresh database on the PostgreSQL server given by --pg (or DATABASE_URL), migrates
and seeds the demo floor, adds cashiers (each with an open drawer) and kiosks (each with a
filled cassette), prints tickets in-process, then serves the app with gunicorn and lets T
terminals redeem distinct tickets over HTTP: a third cashiers (POST /cage/redeem), a third
kiosks (POST /kiosk/redeem), a third machines (POST /machines/<asset>/ticket-in, the
single-call authorise+commit). Two phases:

* paced: each terminal presents one ticket every --interval ms (default 1000: 64 terminals
  make 64 redemptions/s, far busier than a real floor), with a random start so arrivals spread;
* closed loop: each terminal presents its next ticket as soon as the last one is answered
  (the saturation throughput; latency is then mostly queueing).

``--driver wrk`` runs both phases with Debian's wrk (``bench/tito_wrk.lua``), one connection per terminal:
a paced terminal presents its next ticket --interval ms after the last was answered (think time), and the
client's own CPU no longer inflates the latency (the Python threads cost about as much as the server).

Before them one terminal alone redeems 20 tickets (the service time without queueing), and
64 clients hammer GET /healthz for 5 s (what the box's HTTP stack can do at that moment:
the figures depend on what else runs on the machine, so the load average is printed too).

Prints p50 / p95 / p99 / max latency (ms), redemptions/s and errors per phase and per
channel, then the auditor's ledger proof (balanced, outstanding = tickets on file).

    .venv/bin/python bench/tito_redeem.py --pg postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

from slotsys.kernel import accounts

import argparse
import json
import os
import random
import shutil
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
sys.path.insert(0, str(ROOT))


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def prepare(url: str, terminals: int, per_terminal: int, amount: int) -> list[dict]:
    """Migrate, seed, add terminals, print tickets. Returns the terminals with their tickets."""
    from slotsys.app.bootstrap import build_services
    from slotsys.kernel import ledger as L
    from slotsys.app.migrate import upgrade
    from slotsys.app.seed import seed_demo
    from slotsys.kernel.settings import Settings
    from tito.services.cage import open_drawer_session
    from tito.services.kiosk import fill_kiosk

    upgrade(url)
    settings = Settings(database_url=url, redis_url=None, celery_eager=True)
    svc = build_services(settings)
    tito = svc.tito
    creds = seed_demo(svc)
    machines = [m for m in creds["machines"] if m["zone"] == "MASS"] + [m for m in creds["machines"] if m["zone"] == "VIP"]
    n_machine = min(len(machines), terminals // 3)
    n_kiosk = (terminals - n_machine) // 2
    n_cage = terminals - n_machine - n_kiosk
    out: list[dict] = []
    password = uuid.uuid4().hex
    with svc.uow() as uow:
        for i in range(n_cage):
            name = f"bench_cashier{i}"
            svc.auth.create_user(uow, name, password, "cashier")
            open_drawer_session(uow, svc.ctx.clock.now(), name, f"B{i}", per_terminal * amount)
            out.append({"kind": "cage", "user": name})
        for i in range(n_kiosk):
            name = f"bench_kiosk{i}"
            svc.auth.create_user(uow, name, password, "kiosk")
            uow.session.flush()
            fill_kiosk(uow, tito.kiosk.kiosks, name, per_terminal * amount, "bench", svc.ctx.clock.now())
            out.append({"kind": "kiosk", "user": name})
        uow.commit()
    for m in machines[:n_machine]:
        out.append({"kind": "machine", "asset": m["asset"], "key": m["key"]})
    # print the tickets: 8 issuing machines, each funded once, tickets issued in batches
    issuers = [m["asset"] for m in machines[:8]]
    vns: list[str] = []
    total = terminals * per_terminal
    for k, asset in enumerate(issuers):
        count = total // len(issuers) + (1 if k < total % len(issuers) else 0)
        for start in range(0, count, 500):
            n = min(500, count - start)
            with svc.uow() as uow:
                m = tito.book.machines.lock(uow, asset)
                e = L.EntryBuilder("bench.fund", "bench tickets").add(debit=accounts.machine_drop(asset),
                                                                       credit=accounts.machine_credits(asset), amount=n * amount)
                uow.ledger.post(e.build())
                for _ in range(n):
                    t, m = tito.book.issue(uow, ticket_type="cashable", amount=amount,
                                           debit_accounts=[(accounts.machine_credits(asset), amount)], machine=m,
                                           actor="bench")
                    vns.append(t.validation_number)
                tito.book.machines.add_ticket_meters(uow, m.id, tickets_out=n * amount, tickets_out_count=n)
                uow.commit()
    random.Random(1).shuffle(vns)
    for i, term in enumerate(out):
        term["tickets"] = vns[i::len(out)]
        term["password"] = password
    auditor = next(s for s in creds["staff"] if s["role"] == "auditor")
    out.append({"kind": "auditor", "user": auditor["username"], "password": auditor["password"]})
    svc.uow.engine.dispose()
    return out


def run_phase(base: str, terms: list[dict], take: int, interval: float | None) -> dict:
    lat: dict[str, list[float]] = {"cage": [], "kiosk": [], "machine": []}
    errors: dict[str, int] = {}
    lock = threading.Lock()
    barrier = threading.Barrier(len(terms) + 1)

    def worker(term):
        c = httpx.Client(base_url=base, timeout=30, headers={"Authorization": f"Bearer {term['token']}"})
        mine = [term["tickets"].pop() for _ in range(min(take, len(term["tickets"])))]
        local, errs = [], {}
        rnd = random.Random(term.get("user") or term.get("asset"))
        barrier.wait()
        if interval:
            time.sleep(rnd.random() * interval)
        next_at = time.perf_counter()
        for vn in mine:
            if term["kind"] == "cage":
                path = "/api/v1/cage/redeem"
            elif term["kind"] == "kiosk":
                path = "/api/v1/kiosk/redeem"
            else:
                path = f"/api/v1/machines/{term['asset']}/ticket-in"
            t0 = time.perf_counter()
            r = c.post(path, json={"validation_number": vn}, headers={"Idempotency-Key": uuid.uuid4().hex})
            local.append(time.perf_counter() - t0)
            if r.status_code != 200:
                key = f"{term['kind']} {r.status_code} {r.json().get('type', '').rsplit('/', 1)[-1]}"
                errs[key] = errs.get(key, 0) + 1
            if interval:
                next_at += interval
                time.sleep(max(0.0, next_at - time.perf_counter()))
        with lock:
            lat[term["kind"]].extend(local)
            for k, v in errs.items():
                errors[k] = errors.get(k, 0) + v
        c.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in terms]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    every = [x for xs in lat.values() for x in xs]
    return {"elapsed": elapsed, "all": every, "by_kind": lat, "errors": errors}


def run_wrk_phase(base: str, terms: list[dict], take: int, think_ms: float, seconds: float, tmp: Path) -> dict:
    """The same terminals driven by wrk (C, epoll; Debian package ``wrk``): one wrk thread and one
    keep-alive connection per terminal, each presenting its next ticket when the last is answered,
    after ``think_ms`` (0: back to back). The client costs a sliver of the Python threads' CPU, so the
    latency is the server's. Returns wrk's figures (µs) and the redemptions per second."""
    lines = []
    for term in terms:
        path = {"cage": "/api/v1/cage/redeem", "kiosk": "/api/v1/kiosk/redeem"}.get(term["kind"]) or \
            f"/api/v1/machines/{term['asset']}/ticket-in"
        mine = [term["tickets"].pop() for _ in range(min(take, len(term["tickets"])))]
        lines.append(f"{path} {term['token']} {','.join(mine)}\n")
    f = tmp / f"terminals-{uuid.uuid4().hex[:6]}.txt"
    f.write_text("".join(lines))
    n = len(terms)
    r = subprocess.run(["wrk", "-t", str(n), "-c", str(n), "-d", f"{seconds:g}s", "--timeout", "30s",
                        "-s", str(ROOT / "bench" / "tito_wrk.lua"), base, "--", str(f), uuid.uuid4().hex[:10],
                        str(int(think_ms))], capture_output=True, text=True)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("WRK ")), None)
    if line is None:
        raise SystemExit(f"wrk failed: {r.stdout[-2000:]} {r.stderr[-2000:]}")
    w = json.loads(line[4:])
    w["per_s"] = (w["requests"] - w["non2xx"]) / (w["duration_us"] / 1e6)
    w["ran_out"] = w["requests"] >= sum(min(take, len(ln.split()[2].split(","))) for ln in lines) - n
    if w["ran_out"]:
        print(f"  (the terminals ran out of tickets before {seconds:g} s: the rate is understated; give more tickets)")
    return w


def report_wrk(name: str, w: dict) -> dict:
    """wrk's figures for a phase: latency over every answer at the client; redemptions are the 200s; 503s with
    Retry-After are refusals by admission control (nothing applied), reported apart from errors, with the
    server-side time (Server-Timing) of the answers that were served."""
    shed = w["statuses"].get("503", 0)
    out = {"phase": name, "driver": "wrk", "redemptions_per_s": round(w["per_s"], 1), "n": w["requests"] - w["non2xx"],
           **{f"{k}_ms": round(w[k] / 1000, 2) for k in ("p50", "p95", "p99", "max", "mean")},
           "shed": shed, "served_server_ms": w.get("served", {}),
           "errors": {k: v for k, v in (("non-2xx", w["non2xx"] - shed), ("connect", w["connect"]), ("read", w["read"]),
                                         ("timeout", w["timeout"])) if v}, "statuses": w["statuses"]}
    print(f"\n{name} [wrk]: {out['n']} redemptions = {out['redemptions_per_s']}/s; every answer at the client: "
          f"p50 {out['p50_ms']} ms, p95 {out['p95_ms']} ms, p99 {out['p99_ms']} ms, max {out['max_ms']} ms; "
          f"errors {out['errors'] or 0}")
    sv = out["served_server_ms"]
    if shed or sv.get("n"):
        print(f"  shed (503 Retry-After, nothing applied): {shed}; redemptions served, server side (queue + app): "
              f"p50 {sv.get('p50')} ms, p99 {sv.get('p99')} ms, max {sv.get('max')} ms")
    return out


def healthz_baseline(base: str, clients: int, seconds: float) -> dict:
    """The same clients hammering the cheapest endpoint: what this box's HTTP stack can do right now."""
    lat: list[float] = []
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker():
        c = httpx.Client(base_url=base, timeout=30)
        local = []
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            c.get("/healthz")
            local.append(time.perf_counter() - t0)
        with lock:
            lat.extend(local)

    ts = [threading.Thread(target=worker) for _ in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return {"per_s": round(len(lat) / seconds, 1), "p50_ms": round(percentile(lat, 50) * 1000, 2),
            "p99_ms": round(percentile(lat, 99) * 1000, 2)}


def report(name: str, res: dict) -> dict:
    def row(xs):
        return {"n": len(xs), "p50_ms": round(percentile(xs, 50) * 1000, 2), "p95_ms": round(percentile(xs, 95) * 1000, 2),
                "p99_ms": round(percentile(xs, 99) * 1000, 2), "max_ms": round(max(xs) * 1000, 2) if xs else None,
                "mean_ms": round(statistics.fmean(xs) * 1000, 2) if xs else None}

    out = {"phase": name, "redemptions_per_s": round(len(res["all"]) / res["elapsed"], 1), **row(res["all"]),
           "by_channel": {k: row(v) for k, v in res["by_kind"].items()}, "errors": res["errors"]}
    print(f"\n{name}: {out['n']} redemptions in {res['elapsed']:.1f}s = {out['redemptions_per_s']}/s; "
          f"p50 {out['p50_ms']} ms, p95 {out['p95_ms']} ms, p99 {out['p99_ms']} ms, max {out['max_ms']} ms; "
          f"errors {sum(res['errors'].values())}")
    for k, v in out["by_channel"].items():
        print(f"    {k:8s} n={v['n']:5d}  p50 {v['p50_ms']:7.2f}  p99 {v['p99_ms']:7.2f} ms")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", default=os.environ.get("DATABASE_URL"), help="PostgreSQL server URL (a fresh database is made)")
    ap.add_argument("--terminals", type=int, default=64)
    ap.add_argument("--paced", type=int, default=40, help="tickets per terminal in the paced phase")
    ap.add_argument("--closed", type=int, default=40, help="tickets per terminal in the closed-loop phase")
    ap.add_argument("--interval", type=float, default=1000, help="ms between one terminal's presentations (paced)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--port", type=int, default=8798)
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--driver", default="python", choices=("python", "wrk"),
                    help="load client for the paced and closed phases: Python threads (httpx, per-channel "
                         "figures) or wrk (C; Debian package wrk), one connection per terminal")
    args = ap.parse_args()
    if not args.pg or not args.pg.startswith("postgresql"):
        sys.exit("needs --pg postgresql://… (or DATABASE_URL)")
    if args.driver == "wrk" and not shutil.which("wrk"):
        sys.exit("--driver wrk needs wrk: apt-get install wrk")

    name = f"slotsys_tito_bench_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", args.pg, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    url = f"{args.pg.rsplit('/', 1)[0]}/{name}"
    tmp = Path(tempfile.mkdtemp(prefix="tito-bench-"))
    proc = None
    try:
        print(f"{os.cpu_count()} cores; load average (1/5/15 min) before: {os.getloadavg()}")
        t0 = time.perf_counter()
        terms = prepare(url, args.terminals, args.paced + args.closed + 21, 10_000)
        print(f"prepared {args.terminals} terminals and {args.terminals * (args.paced + args.closed)} tickets "
              f"in {time.perf_counter() - t0:.1f}s")
        env = dict(os.environ, DATABASE_URL=url, SLOTSYS_CREDENTIALS_FILE=str(tmp / "creds.json"),
                   SLOTSYS_LOG_LEVEL="WARNING", SLOTSYS_LOG_JSON="true", PYTHONPATH=str(ROOT))
        env.pop("REDIS_URL", None)
        proc = subprocess.Popen([str(BIN / "gunicorn"), "-c", "python:slotsys.server.gunicorn_conf", "-w", str(args.workers), "--threads", str(args.threads), "-b", f"127.0.0.1:{args.port}", "--log-level", "warning",
                                 "slotsys.app.wsgi:app"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{args.port}"
        for _ in range(100):
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        auditor = terms.pop()
        for term in terms + [auditor]:
            if term["kind"] != "machine":
                r = httpx.post(f"{base}/api/v1/auth/login", json={"username": term["user"], "password": term["password"]})
                term["token"] = r.json()["token"]
            else:
                term["token"] = term["key"]
        # warm-up: one ticket per terminal (connections, caches), not measured
        run_phase(base, terms, 1, None)
        baseline = healthz_baseline(base, len(terms), 5.0)
        print(f"baseline GET /healthz, {len(terms)} clients back to back on the same gunicorn: "
              f"{baseline['per_s']}/s, p50 {baseline['p50_ms']} ms, p99 {baseline['p99_ms']} ms")
        figures = [report("one terminal alone (service time, no queueing)", run_phase(base, terms[:1], 20, None))]
        if args.driver == "wrk":
            figures += [
                report_wrk(f"paced ({args.terminals} terminals, each presents a ticket {args.interval:.0f} ms after "
                           f"the last was answered)",
                           run_wrk_phase(base, terms, args.paced - 1, args.interval, (args.paced - 3) * args.interval / 1000, tmp)),
                report_wrk(f"closed loop ({args.terminals} terminals, back to back)",
                           run_wrk_phase(base, terms, args.closed, 0, 5, tmp))]  # 5 s: tickets must not run out
        else:
            figures += [report(f"paced ({args.terminals} terminals, one ticket each every {args.interval:.0f} ms)",
                               run_phase(base, terms, args.paced - 1, args.interval / 1000)),
                        report(f"closed loop ({args.terminals} terminals, back to back)",
                               run_phase(base, terms, args.closed, None))]
        print(f"load average (1/5/15 min) at the end: {os.getloadavg()}")
        audit = httpx.get(f"{base}/api/v1/audit/ledger", headers={"Authorization": f"Bearer {auditor['token']}"}).json()
        print(f"\nledger balanced: {audit['balanced']}; outstanding ₩{audit['tickets']['ledger_outstanding']:,} = "
              f"tickets on file ₩{audit['tickets']['tickets_on_file_outstanding']:,}; by status {audit['tickets']['by_status']}")
        if args.json:
            Path(args.json).write_text(json.dumps({"figures": figures, "healthz_baseline": baseline,
                                                   "audit_balanced": audit["balanced"]}, indent=1))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=20)
        subprocess.run(["psql", args.pg, "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], check=False)


if __name__ == "__main__":
    main()
