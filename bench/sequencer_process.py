"""The jackpot sequencer as a process of its own (``slotsys sequencer``): its fold ceiling on a backlog and its
fold lag under an offered load, on a fresh PostgreSQL database (created and dropped here), seeded with the demo
floor, award tasks queued on a broker as deployed (``--redis``; no worker pays them here). Wagers are written
as the spin writes them (one row each in ``jackpot_wagers``, here by INSERT … SELECT
from this script so that the writer is not the limit); the sequencer runs in its own process as deployed.

Printed:
* ceiling: a backlog of ``--backlog`` wagers from MASS machines (each feeds the MASS levels and the floor-wide
  ones) folded from a cold start: wagers/s, and level contributions/s;
* lag: ``--rate`` wagers/s offered for ``--seconds`` (a batch every 50 ms, each row stamped with the server's
  clock when inserted); each wager's lag = its fold's commit time − its insert time: p50, p99, max.

    .venv/bin/python bench/sequencer_process.py --backlog 100000 --rate 1000 --seconds 20
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent


def insert_wagers(engine, machines: list[dict], first_game: int, n: int, bet: int) -> None:
    import sqlalchemy as sa

    with engine.begin() as c:
        c.execute(sa.text(
            "INSERT INTO jackpot_wagers (machine_id, asset, zone, bank, game_number, bet_won, progressive, created_at) "
            "SELECT m.id, m.asset, m.zone, m.bank, :first + g, :bet, '', clock_timestamp() "
            "FROM generate_series(0, :n - 1) AS g "
            "JOIN json_to_recordset(CAST(:machines AS json)) AS m(i int, id int, asset text, zone text, bank text) "
            "ON m.i = g % :k"), {"first": first_game, "n": n, "bet": bet, "k": len(machines),
                                 "machines": json.dumps(machines)})


def pending(engine) -> int:
    import sqlalchemy as sa

    with engine.connect() as c:
        return c.execute(sa.text("SELECT count(*) FROM jackpot_wagers WHERE fold_id IS NULL")).scalar()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", default=os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"))
    ap.add_argument("--backlog", type=int, default=100_000)
    ap.add_argument("--rate", type=int, default=1_000, help="wagers/s offered in the lag phase")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--bet", type=int, default=6_000)
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/13",
                    help="the broker the sequencer queues its award tasks on, as deployed (emptied afterwards); "
                         "'' runs them eagerly inside the sequencer, which then measures awards too")
    args = ap.parse_args()
    os.environ["SLOTSYS_LOG_LEVEL"] = "WARNING"

    import sqlalchemy as sa

    from slotsys.kernel.adapters.db import make_engine
    from slotsys.app.bootstrap import build_services
    from slotsys.app.migrate import upgrade
    from slotsys.app.seed import seed_demo
    from slotsys.kernel.settings import Settings

    name = f"slotsys_seqbench_{uuid.uuid4().hex[:8]}"
    admin = make_engine(args.pg).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = args.pg.rsplit("/", 1)[0] + "/" + name
    proc = None
    try:
        upgrade(url)
        svc = build_services(Settings(database_url=url, redis_url=None, celery_eager=True, log_level="WARNING"))
        svc.jackpots.sequencer.stop()
        creds = seed_demo(svc)
        mass = [m["asset"] for m in creds["machines"] if m["zone"] == "MASS"]
        engine = make_engine(url)
        with engine.connect() as c:
            rows = c.execute(sa.text("SELECT id, asset_number, zone, bank FROM machines WHERE asset_number = ANY(:a) "
                                     "ORDER BY id"), {"a": mass}).all()
            levels = c.execute(sa.text("SELECT count(*) FROM jackpot_levels WHERE NOT paused")).scalar()
        machines = [{"i": i, "id": r[0], "asset": r[1], "zone": r[2], "bank": r[3] or ""} for i, r in enumerate(rows)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSYS_")}
        env.update(DATABASE_URL=url, SLOTSYS_JACKPOT_SEQUENCER="process", SLOTSYS_LOG_LEVEL="WARNING",
                   PYTHONPATH=str(ROOT))
        # award tasks go to a broker as deployed (a Celery worker pays them; none runs here): the bench measures
        # folding, not paying
        env.pop("REDIS_URL", None)
        if args.redis:
            env["REDIS_URL"] = args.redis

        insert_wagers(engine, machines, 1_000_000, args.backlog, args.bet)
        proc = subprocess.Popen([BIN / "slotsys", "sequencer"], env=env, cwd=ROOT)
        t0 = None
        while pending(engine) == args.backlog:
            time.sleep(0.005)
        t0 = time.monotonic()
        while pending(engine):
            time.sleep(0.01)
        ceiling_s = time.monotonic() - t0
        print(f"ceiling: {args.backlog:,} wagers folded in {ceiling_s:.2f} s = {args.backlog / ceiling_s:,.0f} wagers/s "
              f"({levels} active levels; each MASS wager feeds several)")

        with engine.connect() as c:
            start_id = c.execute(sa.text("SELECT coalesce(max(id), 0) FROM jackpot_wagers")).scalar()
        step, game, t_end = 0.05, 2_000_000, time.monotonic() + args.seconds
        per_batch = max(1, round(args.rate * step))
        nxt = time.monotonic()
        while time.monotonic() < t_end:
            insert_wagers(engine, machines, game, per_batch, args.bet)
            game += per_batch
            nxt += step
            time.sleep(max(0.0, nxt - time.monotonic()))
        while pending(engine):
            time.sleep(0.05)
        with engine.connect() as c:
            lags = [float(x) for x in c.execute(sa.text(
                "SELECT extract(epoch FROM f.created_at - w.created_at) FROM jackpot_wagers w "
                "JOIN jackpot_folds f ON f.id = w.fold_id WHERE w.id > :s"), {"s": start_id}).scalars()]
        lags.sort()
        q = statistics.quantiles(lags, n=100)
        print(f"lag at {args.rate:,} wagers/s offered for {args.seconds:g} s ({len(lags):,} wagers): "
              f"p50 {q[49] * 1000:.0f} ms, p99 {q[98] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms")
        engine.dispose()
        svc.uow.engine.dispose()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=20)
        if args.redis:
            import redis

            redis.Redis.from_url(args.redis).flushdb()  # the award tasks queued for a database that is gone
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
