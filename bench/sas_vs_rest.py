"""The same floor played over SAS and over REST, on the real services (PostgreSQL): what one accounted game costs
the host process each way, and the SAS poll cycle while the machines play.

* **SAS**: ``--machines`` emulated machines (Dragon Pearl, ₩100) on one pty channel, in a child process, each playing
  one game every ``--pace`` seconds at the same bet option; the host (``SasChannel`` over ``ServicesFloor``, the
  floor's services in this process) polls them and accounts every game (game-end exception 7F → long poll 2F →
  ``MachineGameService.report_meters``/``report_game``: the ledger, the jackpot wager, the meters). Measured: the
  process CPU while idle (polling only) and while playing, games accounted, the poll cycle p50 / p99.
* **REST**: as many floor machines in machine mode, the same game and bet option, each reporting its games as a
  SAS-less machine would (``POST /api/v1/machines/<asset>/games`` through the Flask test client in this process:
  auth, Idempotency-Key, validation, the same use case), one client thread.

Both in this one process, so the CPU figures compare (HTTP parsing and auth on one side, polling and framing on the
other); the jackpot sequencer folds the wagers on its own thread in both. Noisy machines: compare the two figures
of the same run.

    .venv/bin/python bench/sas_vs_rest.py --pg postgresql://postgres@127.0.0.1:5432/postgres [--machines 10]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

GAME = "dragon_pearl_50"
BILLS = 6  # ₩50,000 notes per machine before the measured play (a game costs ₩2,000 at the bet option below)


def bet_option(game):
    return next(o for o in game.bet_options() if o.multiplier == 1 and (o.lines or 0) == 20)


def machines_process(slave_fd: int, n: int, pace_s: float, fund, play, stop, out) -> None:
    """The emulated machines: fund each once ``fund`` is set, play one game every ``pace_s`` while ``play`` is set
    and ``stop`` is not; put the games played on ``out``."""
    import threading

    from slotsys.floor.games import GAMES_DIR, load_game
    from slotsys.sas.adapters.links import FdLink
    from slotsys.sas.domain.clock import SystemClock
    from slotsys.sas.domain.egm import EgmConfig, EgmModel
    from slotsys.sas.emulator import EgmServer, SasEgm

    game = load_game(GAME)
    program = (GAMES_DIR / f"{GAME}.yaml").read_bytes()
    egms = [SasEgm(EgmModel(EgmConfig(a, 3000 + a, f"SN{a}", game, 100, program, seed=a, rom_delay_s=0.01),
                            SystemClock())) for a in range(1, n + 1)]
    server = EgmServer(FdLink(slave_fd), egms).start()
    fund.wait()
    for e in egms:
        with e.model.lock:
            for _ in range(BILLS):
                assert e.model.insert_bill(50_000)
    play.wait()
    opt = bet_option(game)
    played = [0]

    def player(e, offset: float) -> None:
        nxt = time.monotonic() + offset
        while not stop.is_set():
            time.sleep(max(0.0, nxt - time.monotonic()))
            nxt += pace_s
            with e.model.lock:
                if e.model.credits >= opt.credits and e.model.play(opt) is not None:
                    played[0] += 1

    threads = [threading.Thread(target=player, args=(e, i * pace_s / n), daemon=True) for i, e in enumerate(egms)]
    for t in threads:
        t.start()
    stop.wait()
    for t in threads:
        t.join()
    out.put(played[0])
    time.sleep(30)  # keep answering while the host accounts the last games (the parent kills us)
    server.close()


def wait(cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", required=True, help="PostgreSQL server URL (a database is created and dropped)")
    ap.add_argument("--machines", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20.0, help="measured play over SAS")
    ap.add_argument("--pace", type=float, default=0.25, help="seconds between two games of one SAS machine")
    ap.add_argument("--rest-games", type=int, default=600, help="games reported over REST (after 40 warm-up)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    from slotsys.sas.adapters.links import FdLink, open_pty_pair

    # the machines' process first (forked before this process opens a database connection)
    master, slave, _ = open_pty_pair()
    ctx = mp.get_context("fork")
    fund, play, stop, out = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Queue()
    child = ctx.Process(target=machines_process, args=(slave, args.machines, args.pace, fund, play, stop, out),
                        daemon=True)
    child.start()
    os.close(slave)

    from spin_profile import build_app

    from slotsys.app.emulator_reported import ReportingMachine
    from slotsys.app.wiring.sas import build_sas_floor, prepare_sas_machines
    from slotsys.floor.games import load_game
    from slotsys.floor.services.admin import create_bank, create_zone, enrol_machine
    from slotsys.sas.domain.link import LinkTimings, percentile
    from slotsys.sas.services.host import MachineSpec, SasChannel, SasHost

    game = load_game(GAME)
    opt = bet_option(game)
    with tempfile.TemporaryDirectory() as td:
        app, creds, dropper = build_app(args.pg, Path(td))
        host = None
        try:
            svc = app.extensions["slotsys"]
            sas_assets = [f"SB{a:03d}" for a in range(1, args.machines + 1)]
            with svc.uow() as uow:
                create_zone(uow, None, "SASB", "SAS bench")
                create_bank(uow, None, "SB", "SAS bench bank", "SASB", "N")
                for x, asset in enumerate(sas_assets):
                    enrol_machine(uow, svc.ctx, None, {"asset_number": asset, "bank": "SB", "game": GAME,
                                                       "denomination": 100, "validation_scheme": "sas",
                                                       "outcome_source": "machine", "x": x, "y": 30,
                                                       "reason": "SAS bench"}, tickets=svc.tito.desk)
                uow.commit()
            prepare_sas_machines(svc, sas_assets)
            channel = SasChannel("pty", FdLink(master), [MachineSpec(a, asset, 3000 + a)
                                                         for a, asset in enumerate(sas_assets, start=1)],
                                 build_sas_floor(svc), timings=LinkTimings(0.06, 0.02, 0.2), reconcile_every_s=0)
            host = SasHost([channel])
            host.start()
            wait(lambda: all(s.enrolled for s in channel.sessions), 120, "enrolment")
            fund.set()
            wait(lambda: all(svc.floor_view and _credits(svc, a) == BILLS * 50_000 for a in sas_assets), 120,
                 "the notes accounted")
            wait(channel.idle, 60, "the host idle")
            w0, c0 = time.perf_counter(), time.process_time()
            time.sleep(5)
            idle_cpu_s = (time.process_time() - c0) / (time.perf_counter() - w0)
            for s in channel.sessions:
                s.link.intervals.clear()
            games0 = channel.totals().games
            play.set()
            w0, c0 = time.perf_counter(), time.process_time()
            time.sleep(args.seconds)
            stop.set()
            played = out.get(timeout=30)
            wait(lambda: channel.totals().games - games0 >= played and channel.idle(), 120, "every game accounted")
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            cycles = [x for s in channel.sessions for x in s.link.intervals]
            games = channel.totals().games - games0
            host.stop()
            host = None

            # the same game and bet option over REST
            client = app.test_client()
            rest_assets = [m for m in creds["machines"] if m["asset"].startswith("M")]
            keys = {m["asset"]: m["key"] for m in rest_assets}
            mine = []
            for m in rest_assets:
                hdr = {"Authorization": f"Bearer {m['key']}"}
                info = client.get(f"/api/v1/machines/{m['asset']}/meters", headers=hdr).json
                if info["game"] == GAME and len(mine) < args.machines:
                    mine.append(m["asset"])
            svc.reported_games.set_outcome_source(None, mine[0], "machine", reason="bench")
            for asset in mine[1:]:
                svc.reported_games.set_outcome_source(None, asset, "machine", reason="bench")
            machines = {}
            for i, asset in enumerate(mine):
                hdr = {"Authorization": f"Bearer {keys[asset]}", "Idempotency-Key": uuid.uuid4().hex}
                for _ in range(BILLS):
                    r = client.post(f"/api/v1/machines/{asset}/bill-in", json={"amount": 50_000},
                                    headers={**hdr, "Idempotency-Key": uuid.uuid4().hex})
                    assert r.status_code == 200, r.json
                info = client.get(f"/api/v1/machines/{asset}/meters", headers={"Authorization": hdr["Authorization"]}).json
                machines[asset] = ReportingMachine(asset, info, seed=100 + i)
            o = {"lines": opt.lines, "reels": opt.reels, "multiplier": opt.multiplier}

            def report(asset: str) -> None:
                rm = machines[asset]
                while True:
                    nxt = rm.next_report(o)
                    if nxt is not None and nxt[0].endswith("/games"):
                        break
                    if nxt is not None:  # a meters-only report: play on (the comparison is game reports)
                        continue
                path, body, after = nxt
                r = client.post(path, json=body, headers={"Authorization": f"Bearer {keys[asset]}",
                                                          "Idempotency-Key": uuid.uuid4().hex})
                assert r.status_code in (200, 201), r.json
                rm.accepted(after)

            for i in range(40):
                report(mine[i % len(mine)])
            rw0, rc0 = time.perf_counter(), time.process_time()
            for i in range(args.rest_games):
                report(mine[i % len(mine)])
            rwall, rcpu = time.perf_counter() - rw0, time.process_time() - rc0
        finally:
            if host is not None:
                host.stop()
            child.kill()
            app.extensions["slotsys"].jackpots.driver.stop()
            app.extensions["slotsys"].uow.engine.dispose()
            if dropper:
                dropper()

    net = (cpu - idle_cpu_s * wall) / games
    print(f"the same floor over SAS and over REST on PostgreSQL: {args.machines} machines each, {GAME}, "
          f"bet {opt.credits} credits × ₩100")
    print(f"  SAS  : {games} games accounted in {wall:.1f} s ({games / wall:.1f} games/s; machines played {played}); "
          f"host process CPU {cpu / games * 1000:.2f} ms per game, of which polling "
          f"{idle_cpu_s * 1000:.0f} ms per second idle → {net * 1000:.2f} ms per game net of polling; "
          f"poll cycle p50 {percentile(cycles, 0.5) * 1000:.0f} ms, p99 {percentile(cycles, 0.99) * 1000:.0f} ms")
    print(f"  REST : {args.rest_games} games reported in {rwall:.1f} s ({args.rest_games / rwall:.1f} games/s, "
          f"one client); CPU {rcpu / args.rest_games * 1000:.2f} ms per game, wall {rwall / args.rest_games * 1000:.2f} ms")
    print(f"  SAS / REST CPU per game: {cpu / games / (rcpu / args.rest_games):.2f} "
          f"(net of polling {net / (rcpu / args.rest_games):.2f})")
    return 0


def _credits(svc, asset: str) -> int:
    with svc.uow(readonly=True) as uow:
        return uow.machines.credits(asset).total


if __name__ == "__main__":
    raise SystemExit(main())
