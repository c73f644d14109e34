"""Where a spin's time goes, in-process (no HTTP server, no client threads): SQL statements and
round trips per spin, wall and CPU milliseconds per spin, and optionally a cProfile of the hot path.

Runs the real app (Flask test client → auth → idempotency → spin use case → ledger → jackpot
wager) on a fresh database: SQLite by default, or PostgreSQL with --pg URL (a throwaway database
is created and dropped). Deterministic figures (statements per spin) make a before/after
comparison meaningful on a noisy machine; the millisecond figures are for the same run only.

    .venv/bin/python bench/spin_profile.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/spin_profile.py --pg ... --what redeem        # a TITO redemption at the cage
    .venv/bin/python bench/spin_profile.py --pg ... --profile 25        # top 25 functions by cumulative time
    .venv/bin/python bench/spin_profile.py --pg ... --machines 12       # 12 machines at once, one thread each:
        the group commit's batches; CPU per spin also counts PostgreSQL's processes (Linux /proc)
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build_app(pg: str | None, tmp: Path):
    import sqlalchemy as sa

    from slotsys.kernel.adapters.db import make_engine
    from slotsys.app.factory import create_app
    from slotsys.app.migrate import upgrade
    from slotsys.app.seed import seed_demo
    from slotsys.kernel.settings import Settings

    dropper = None
    if pg:
        name = f"slotsys_prof_{uuid.uuid4().hex[:8]}"
        admin = make_engine(pg).execution_options(isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(sa.text(f'CREATE DATABASE "{name}"'))
        url = f"{pg.rsplit('/', 1)[0]}/{name}"

        def dropper():
            with admin.connect() as c:
                c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    else:
        url = f"sqlite:///{tmp / 'floor.db'}"
    settings = Settings(database_url=url, redis_url=None, celery_eager=True, credentials_file=tmp / "creds.json")
    upgrade(url)
    app = create_app(settings)
    svc = app.extensions["slotsys"]
    creds = seed_demo(svc)
    return app, creds, dropper


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", help="PostgreSQL server URL (a database is created and dropped)")
    ap.add_argument("--n", type=int, default=400, help="operations measured (after 40 warm-up)")
    ap.add_argument("--what", choices=("spin", "redeem"), default="spin")
    ap.add_argument("--profile", type=int, default=0, help="print the top N functions of a cProfile")
    ap.add_argument("--profile-out", help="also write the cProfile stats to this file (pstats format)")
    ap.add_argument("--machines", type=int, default=1, help="spin on this many machines at once, one thread and "
                    "one test client each (--n split among them; spin only): the spins a process receives together, "
                    "as the group commit batches them")
    args = ap.parse_args()
    if args.machines > 1:
        return concurrent_spins(args)

    from sqlalchemy import event

    with tempfile.TemporaryDirectory() as td:
        app, creds, dropper = build_app(args.pg, Path(td))
        try:
            engine = app.extensions["slotsys"].uow.engine
            stmts = collections.Counter()
            counting = [False]

            background = collections.Counter()  # the jackpot sequencer's thread folds wagers meanwhile
            request_thread = threading.get_ident()

            pipelined = [0]  # statements sent in a psycopg pipeline (write-behind): one round trip with COMMIT

            @event.listens_for(engine, "before_cursor_execute")
            def _count(conn, cursor, statement, parameters, context, executemany):
                if counting[0]:
                    mine = threading.get_ident() == request_thread
                    (stmts if mine else background)[" ".join(statement.split())[:90]] += 1
                    if mine and getattr(conn.connection.driver_connection, "_pipeline", None) is not None:
                        pipelined[0] += 1

            client = app.test_client()
            mach = next(m for m in creds["machines"] if m["asset"].startswith("M"))
            asset, key = mach["asset"], mach["key"]
            hdr = lambda: {"Authorization": f"Bearer {key}", "Idempotency-Key": uuid.uuid4().hex}  # noqa: E731
            total = args.n + 40
            for _ in range(max(1, total * 6000 // 50_000 + 2)):
                assert client.post(f"/api/v1/machines/{asset}/bill-in", json={"amount": 50_000}, headers=hdr()).status_code == 200
            cashier = next(s for s in creds["staff"] if s["role"] == "cashier")
            ctok = client.post("/api/v1/auth/login", json={"username": cashier["username"], "password": cashier["password"]}).json["token"]
            chdr = lambda: {"Authorization": f"Bearer {ctok}", "Idempotency-Key": uuid.uuid4().hex}  # noqa: E731
            tickets: list[str] = []
            if args.what == "redeem":
                r = client.post("/api/v1/cage/sessions", json={"drawer": "PROF1", "opening_float": 100_000_000}, headers=chdr())
                assert r.status_code in (200, 201, 409), r.json  # the demo seed may open the drawer already
                for _ in range(total):
                    client.post(f"/api/v1/machines/{asset}/bill-in", json={"amount": 1_000}, headers=hdr())
                    r = client.post(f"/api/v1/machines/{asset}/cash-out", headers=hdr())
                    tickets.append(r.json["tickets"][0]["validation_number"])

            def op(i: int):
                if args.what == "spin":
                    r = client.post(f"/api/v1/machines/{asset}/spin", json={"lines": 20, "multiplier": 3}, headers=hdr())
                else:
                    r = client.post("/api/v1/cage/redeem", json={"validation_number": tickets[i]}, headers=chdr())
                assert r.status_code == 200, r.json

            for i in range(40):
                op(i)
            prof = cProfile.Profile() if args.profile else None
            counting[0] = True
            w0, c0 = time.perf_counter(), time.process_time()
            if prof:
                prof.enable()
            for i in range(40, total):
                op(i)
            if prof:
                prof.disable()
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            counting[0] = False
            n = args.n
            print(f"{args.what} on {'PostgreSQL' if args.pg else 'SQLite'}: {n} operations in-process")
            total_stmts = sum(stmts.values())
            print(f"  statements per {args.what}: {total_stmts / n:.2f}, of which {pipelined[0] / n:.2f} go with COMMIT "
                  f"in one pipeline: round trips (statements + COMMIT) {(total_stmts - pipelined[0]) / n + 1:.2f}")
            print(f"  wall ms per {args.what}: {wall / n * 1000:.2f}   CPU ms: {cpu / n * 1000:.2f}")
            for s, c in stmts.most_common():
                print(f"   {c / n:5.2f}  {s}")
            print(f"  background (jackpot sequencer) statements per {args.what}: {sum(background.values()) / n:.2f}")
            if prof:
                pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile)
                if args.profile_out:
                    prof.dump_stats(args.profile_out)
        finally:
            app.extensions["slotsys"].uow.engine.dispose()
            if dropper:
                dropper()
    return 0


def concurrent_spins(args) -> int:
    """``--machines K``: K threads play K machines at once through the app (the Flask test client), each with its
    own key; prints statements per spin (every request thread's), the group commit's spins per transaction, and
    CPU per spin of this process (all its threads, the jackpot sequencer's included) and of PostgreSQL's."""
    from sqlalchemy import event

    sys.path.insert(0, str(ROOT / "bench"))
    from floor_load import cpu_per_op, cpu_seconds_by_role

    with tempfile.TemporaryDirectory() as td:
        app, creds, dropper = build_app(args.pg, Path(td))
        try:
            svc = app.extensions["slotsys"]
            machines = [m for m in creds["machines"] if m["asset"].startswith("M")][:args.machines]
            k = len(machines)
            per = max(1, args.n // k)
            warm = 10
            stmts: collections.Counter = collections.Counter()
            counting = [False]
            players: set[int] = set()

            @event.listens_for(svc.uow.engine, "before_cursor_execute")
            def _count(conn, cursor, statement, parameters, context, executemany):
                if counting[0] and threading.get_ident() in players:
                    stmts[" ".join(statement.split())[:90]] += 1

            def hdr(key: str) -> dict:
                return {"Authorization": f"Bearer {key}", "Idempotency-Key": uuid.uuid4().hex}

            setup = app.test_client()
            for m in machines:  # ₩6,000 and ₩5,000 bets: every spin is paid for even if it never wins
                for _ in range((per + warm) * 6000 // 50_000 + 2):
                    assert setup.post(f"/api/v1/machines/{m['asset']}/bill-in", json={"amount": 50_000},
                                      headers=hdr(m["key"])).status_code == 200
            bets = {m["asset"]: ({"lines": 20, "multiplier": 3} if int(m["asset"][1:]) % 2 else
                                 {"reels": 5, "multiplier": 2}) for m in machines}  # the demo floor's two games
            ready, go, done = threading.Barrier(k + 1), threading.Barrier(k + 1), threading.Barrier(k + 1)
            failed: list[object] = []

            def play(m: dict) -> None:
                players.add(threading.get_ident())
                client = app.test_client()
                url, bet = f"/api/v1/machines/{m['asset']}/spin", bets[m["asset"]]
                try:
                    for i in range(warm + per):
                        if i == warm:
                            ready.wait()
                            go.wait()
                        r = client.post(url, json=bet, headers=hdr(m["key"]))
                        assert r.status_code == 200, r.json
                    done.wait()
                except (AssertionError, threading.BrokenBarrierError) as e:
                    failed.append(e)
                    for b in (ready, go, done):
                        b.abort()  # the others and the main thread stop waiting

            threads = [threading.Thread(target=play, args=(m,)) for m in machines]
            for t in threads:
                t.start()
            try:
                ready.wait()
                group = svc.floor.spin_group
                b0, i0 = (group.batches, group.items) if group else (0, 0)
                counting[0] = True
                cpu0, w0, c0 = cpu_seconds_by_role(), time.perf_counter(), time.process_time()
                go.wait()
                done.wait()
                wall, cpu, cpu1 = time.perf_counter() - w0, time.process_time() - c0, cpu_seconds_by_role()
            except threading.BrokenBarrierError:
                pass
            counting[0] = False
            for t in threads:
                t.join()
            if failed:
                print(f"a spin failed: {failed[0]}")
                return 1
            n = per * k
            pg_ms = cpu_per_op(cpu0, cpu1, n).get("PostgreSQL", 0.0)
            print(f"spin on {'PostgreSQL' if args.pg else 'SQLite'}: {k} machines at once, {n} spins in-process "
                  f"({n / wall:,.0f} spins/s)")
            if group:
                b, i = group.batches - b0, group.items - i0
                print(f"  group commit: {i} spins in {b} transactions = {i / max(b, 1):.2f} spins per transaction")
            print(f"  statements per spin: {sum(stmts.values()) / n:.2f}")
            print(f"  CPU ms per spin: {cpu / n * 1000 + pg_ms:.2f} = this process {cpu / n * 1000:.2f} "
                  f"+ PostgreSQL {pg_ms:.2f}")
            for st, c in stmts.most_common(12):
                print(f"   {c / n:5.2f}  {st}")
        finally:
            app.extensions["slotsys"].uow.engine.dispose()
            if dropper:
                dropper()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
