"""Jackpot contributions per second through the spin path, beside pgbench on the same hot rows.

On a fresh PostgreSQL database (created and dropped here): the demo floor is seeded, M machines
(MASS zone: each wager feeds MASS_MINOR, MASS_MAJOR, MASS_GRAND, MEGA and PREMIUM) are funded,
then P processes × M/P threads call ``FloorService.spin`` (the whole spin path: idempotency
claim, machine lock, game, ledger entry, recall row, meters, the jackpot wager) for D seconds,
with the production sequencer (one fold thread per process) folding the wagers into the pools.
Then pgbench runs, in the same database, a transaction updating the three hot pool rows those
spins would otherwise lock (MASS_MINOR, MASS_MAJOR, MASS_GRAND) with the same number of clients.

Printed: wagers/s through the spin path, level contributions/s folded (a wager feeds 5 levels),
the fold lag (wager committed → folded), pgbench tps, and the ratios. ``--hot-rows-in-spin``
adds, inside each spin's transaction, the in-transaction design's lock pattern (SELECT … FOR UPDATE
and UPDATE of the five level rows) to show what the sequencer avoids; ``--no-jackpot`` drops the
jackpot part of the spin (the floor path's own ceiling on this machine).

    .venv/bin/python bench/jackpot_throughput.py --seconds 15 --machines 16 --procs 2
    .venv/bin/python bench/jackpot_throughput.py --hot-rows-in-spin
"""

from __future__ import annotations

from slotsys.kernel import accounts

import argparse
import multiprocessing as mp
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HOT = ("MASS_MINOR", "MASS_MAJOR", "MASS_GRAND")


def _settings(url: str):
    from slotsys.kernel.settings import Settings

    return Settings(database_url=url, redis_url=None, celery_eager=True, log_level="WARNING", log_json=True)


def worker(url: str, machines: list[tuple[str, str]], seconds: float, mode: str, barrier, out) -> None:
    os.environ["SLOTSYS_LOG_LEVEL"] = "WARNING"
    from sqlalchemy import text

    from slotsys.app.bootstrap import build_services
    from slotsys.kernel.context import Principal
    from slotsys.kernel.idempotency import OnceKey, fingerprint

    svc = build_services(_settings(url))
    wagers = svc.jackpots.wagers  # the port the floor's spin records its wagers through
    if mode == "no-jackpot":  # the floor's own spin path, without the jackpot part: its ceiling
        wagers.on_wager = lambda *a, **k: ([], 0)
    if mode == "hot-rows":  # the in-transaction design's locks: the machine's five level rows, held to commit
        real = wagers.on_wager

        def on_wager(uow, machine, bet_won, game_number, outcome):
            uow.session.execute(text("SELECT id FROM jackpot_levels WHERE zone = :z OR zone IS NULL ORDER BY id FOR UPDATE"),
                                {"z": machine.zone})
            uow.session.execute(text("UPDATE jackpot_levels SET updated_at = now() WHERE zone = :z OR zone IS NULL"),
                                {"z": machine.zone})
            return real(uow, machine, bet_won, game_number, outcome)

        wagers.on_wager = on_wager
    counts, lat = [0] * len(machines), []
    lock = threading.Lock()
    barrier.wait()
    stop = time.perf_counter() + seconds

    def play(i: int) -> None:
        asset, game = machines[i]
        p = Principal("machine", asset)
        bet = {"lines": 1, "multiplier": 1} if game.endswith("_50") else {"reels": 1, "multiplier": 1}
        local = []
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            svc.floor.spin(p, asset, bet, OnceKey(p.id, uuid.uuid4().hex, fingerprint("POST", f"spin/{asset}", bet)))
            local.append(time.perf_counter() - t0)
            counts[i] += 1
        with lock:
            lat.extend(local)

    ts = [threading.Thread(target=play, args=(i,)) for i in range(len(machines))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    svc.jackpots.sequencer.fold_all()
    svc.jackpots.sequencer.stop()
    out.put((sum(counts), lat))


def pgbench(url: str, level_ids: list[int], clients: int, seconds: float) -> float:
    script = Path(tempfile.mkdtemp(prefix="jp-bench-")) / "hot3.sql"
    script.write_text("BEGIN;\n" + "".join(f"UPDATE jackpot_levels SET updated_at = now() WHERE id = {i};\n"
                                           for i in level_ids) + "END;\n")
    r = subprocess.run(["pgbench", "-n", "-c", str(clients), "-j", "2", "-T", str(int(seconds)), "-f", str(script), url],
                       capture_output=True, text=True, check=True)
    m = re.search(r"tps = ([\d.]+)", r.stdout)
    return float(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", default=os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"))
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--machines", type=int, default=16)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--hot-rows-in-spin", action="store_true")
    ap.add_argument("--no-jackpot", action="store_true", help="baseline: the spin path without its jackpot part")
    args = ap.parse_args()
    os.environ["SLOTSYS_LOG_LEVEL"] = "WARNING"

    import sqlalchemy as sa

    from jackpot_controller.adapters.tables import JackpotLevel
    from jackpot_controller.domain.records import params_of
    from slotsys.kernel.adapters.db import make_engine
    from slotsys.app.bootstrap import build_services
    from slotsys.kernel import ledger as L
    from slotsys.app.migrate import upgrade
    from slotsys.app.seed import seed_demo

    name = f"slotsys_jpbench_{uuid.uuid4().hex[:8]}"
    admin = make_engine(args.pg).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = args.pg.rsplit("/", 1)[0] + "/" + name
    try:
        upgrade(url)
        svc = build_services(_settings(url))
        creds = seed_demo(svc)
        mass = [(m["asset"], m["game"]) for m in creds["machines"] if m["zone"] == "MASS"][: args.machines]
        if len(mass) < args.machines:
            from slotsys.app.seed import LINE_GAME, WAYS_GAME, add_machine

            with svc.uow() as uow:
                for i in range(args.machines - len(mass)):
                    game = LINE_GAME if i % 2 else WAYS_GAME
                    add_machine(uow, f"B{i:03d}", "MASS", "B1", 100, game)
                    mass.append((f"B{i:03d}", game))
                uow.commit()
        with svc.uow() as uow:
            for asset, _ in mass:
                uow.ledger.post(L.EntryBuilder("machine.bill_in").add(
                    debit=accounts.machine_drop(asset), credit=accounts.machine_credits(asset), amount=100_000_000).build())
            uow.commit()
            levels = {lv.code: lv.id for lv in uow.levels.all()}
        svc.uow.engine.dispose()

        ctx = mp.get_context("spawn")
        barrier, out = ctx.Barrier(args.procs), ctx.Queue()
        mode = "hot-rows" if args.hot_rows_in_spin else "no-jackpot" if args.no_jackpot else "sequencer"
        procs = [ctx.Process(target=worker, args=(url, mass[i::args.procs], args.seconds, mode, barrier, out))
                 for i in range(args.procs)]
        for p in procs:
            p.start()
        results = [out.get() for _ in procs]
        for p in procs:
            p.join()
        spins = sum(n for n, _ in results)
        lat = sorted(x for _, xs in results for x in xs)
        engine = make_engine(url)
        with engine.connect() as c:
            rows = c.execute(sa.text(
                "SELECT EXTRACT(EPOCH FROM (f.created_at - w.created_at)) FROM jackpot_wagers w "
                "JOIN jackpot_folds f ON f.id = w.fold_id")).scalars().all()
            pending = c.execute(sa.text("SELECT count(*) FROM jackpot_wagers WHERE fold_id IS NULL")).scalar()
            n_wagers = c.execute(sa.text("SELECT count(*) FROM jackpot_wagers")).scalar()
            folds = c.execute(sa.text("SELECT count(*) FROM jackpot_folds")).scalar()
        from sqlalchemy.orm import Session

        with Session(engine) as s:
            prm = [params_of(lv) for lv in s.scalars(sa.select(JackpotLevel)) if not lv.paused]
        per_wager = sum(1 for p in prm if p.eligible(mass[0][0], "M1", "MASS"))
        engine.dispose()
        lags = sorted(float(x) for x in rows)
        tps = pgbench(url, [levels[c] for c in HOT], args.machines, args.seconds)

        rate = spins / args.seconds
        mode = {"hot-rows": "in-transaction hot rows (emulated)", "no-jackpot": "no jackpot part (baseline)"}.get(mode, mode)
        print(f"PostgreSQL; {args.procs} processes × {args.machines // args.procs} threads = {args.machines} machines; "
              f"{args.seconds:g} s; mode: {mode}")
        print(f"spin path: {rate:,.0f} wagers/s ({spins:,} spins)  p50 {statistics.median(lat) * 1000:.1f} ms  "
              f"p95 {lat[int(0.95 * len(lat))] * 1000:.1f} ms")
        contrib = n_wagers * per_wager / args.seconds
        print(f"level contributions folded: {contrib:,.0f}/s ({per_wager} levels per wager; {n_wagers:,} wagers "
              f"in {folds:,} folds, {pending} left)")
        if lags:
            print(f"fold lag (wager committed → folded): p50 {statistics.median(lags) * 1000:.0f} ms  "
                  f"p95 {lags[int(0.95 * len(lags))] * 1000:.0f} ms  max {lags[-1] * 1000:.0f} ms")
        print(f"pgbench, a transaction updating the same 3 hot pool rows, {args.machines} clients: {tps:,.0f} tps")
        print(f"ratio wagers/s ÷ pgbench tps: {rate / tps:.1%};  level contributions/s ÷ pgbench tps: "
              f"{contrib / tps:.1%}")
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    main()
