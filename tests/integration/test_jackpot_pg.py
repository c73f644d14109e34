"""The jackpot controller on the real PostgreSQL + Redis + a real Celery worker: 200 concurrent
machines, a killed service, a flushed Redis, the live stream over Redis pub/sub."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import func, select

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel, JackpotWager
from jackpot_controller.domain.records import params_of
from tests.helpers import spin as spin_directly
from slotsys.floor.adapters.tables import GameRound, Machine
from slotsys.kernel import accounts
from slotsys.kernel.adapters.db import JournalEntryRow
from slotsys.kernel.money import contribution_milli
from slotsys.kernel.context import Principal
from tests.conftest import Api

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def jp_app(pg_server_url, tmp_path):
    """The app on a fresh PostgreSQL database with a Redis database of its own (tests here flush
    it, and award tasks must not reach other suites' workers): ``JACKPOT_TEST_REDIS_DB``, default 13."""
    import sqlalchemy as sa

    from slotsys.kernel.adapters.db import make_engine
    from slotsys.kernel.settings import Settings
    from tests.conftest import _make_app

    name = f"slotsys_t_{uuid.uuid4().hex[:10]}"
    admin = make_engine(pg_server_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    redis_url = os.environ["REDIS_URL"].rsplit("/", 1)[0] + "/" + os.environ.get("JACKPOT_TEST_REDIS_DB", "13")
    settings = Settings(database_url=f"{pg_server_url.rsplit('/', 1)[0]}/{name}", redis_url=redis_url,
                        celery_eager=False, credentials_file=tmp_path / "creds.json",
                        db_pool_timeout_s=300)  # 200 machine threads share the pool: wait, don't fail, on a busy box
    a = _make_app(settings)
    a.extensions["slotsys"].celery.control.purge()
    yield a
    svc = a.extensions["slotsys"]
    svc.jackpots.sequencer.stop()
    svc.uow.engine.dispose()
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def jp_worker(jp_app):
    from celery.contrib.testing.worker import start_worker

    celery = jp_app.extensions["slotsys"].celery
    with start_worker(celery, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=20):
        yield celery


class WithProgressive:
    def __init__(self, outcome, keys):
        self._o, self.progressive = outcome, tuple(keys)

    def __getattr__(self, name):
        return getattr(self._o, name)


def bet_for(game: str) -> dict:
    return {"lines": 10, "multiplier": 1} if game.endswith("_50") else {"reels": 3, "multiplier": 2}


def add_machines(svc, n: int) -> list[tuple[str, str]]:
    """n extra machines (MASS zone, banks X1..), funded with ₩50,000 each; returns (asset, game)."""
    from slotsys.app.seed import LINE_GAME, WAYS_GAME, add_machine

    out = []
    with svc.uow() as uow:
        for i in range(1, n + 1):
            game = LINE_GAME if i % 2 else WAYS_GAME
            add_machine(uow, f"X{i:03d}", "MASS", f"X{(i - 1) // 10 + 1}", 100, game)
            out.append((f"X{i:03d}", game))
        uow.commit()
    return out


def snapshot_levels(svc) -> dict[str, dict]:
    with svc.uow(readonly=True) as uow:
        return {lv.code: {"id": lv.id, "value": lv.value_milli, "reserve": lv.reserve_milli, "overflow": lv.overflow_milli,
                          "total_won": lv.total_won, "seeded": lv.seeded_won, "cycle": lv.cycle, "trigger": lv.trigger_milli,
                          "hits": lv.hits, "params": params_of(lv), "contributed": lv.contributed_milli}
                for lv in uow.levels.all()}


def wait_until(pred, timeout=60.0, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


def settled(svc) -> bool:
    with svc.uow(readonly=True) as uow:
        pending = uow.levels.pending_count()
        open_hits = uow.session.scalar(select(func.count()).select_from(JackpotHit)
                                       .where(JackpotHit.status.in_(("hit", "claimed"))))
        return pending == 0 and open_hits == 0


def expected_contributions(before: dict, wagers: list[tuple[str, str, str, int]]) -> dict[str, int]:
    """Σ contributions (milli-won) each level should have received from (asset, bank, zone, bet) wagers,
    by the rules, independently of the controller (no level here changes parameters mid-run)."""
    out = defaultdict(int)
    for code, lv in before.items():
        p = lv["params"]
        for asset, bank, zone, bet in wagers:
            if p.eligible(asset, bank, zone) and bet >= p.min_bet:
                out[code] += contribution_milli(bet, p.rate_ppm) + contribution_milli(bet, p.reserve_rate_ppm)
    return out


def check_conservation(before: dict, after: dict, expected: dict[str, int]) -> None:
    for code, a in after.items():
        b = before[code]
        growth = (a["value"] + a["reserve"] + a["overflow"]) - (b["value"] + b["reserve"] + b["overflow"])
        awards, seeds = a["total_won"] - b["total_won"], a["seeded"] - b["seeded"]
        assert expected[code] == growth + 1000 * (awards - seeds), (code, expected[code], growth, awards, seeds)
        assert a["contributed"] - b["contributed"] == expected[code], code
        assert a["value"] <= a["params"].ceiling * 1000, code


def test_200_concurrent_machines_every_trigger_awarded_once_no_contribution_lost(jp_app, jp_worker, monkeypatch):
    import slotsys.floor.services.play as floor

    api = Api(jp_app)
    svc = jp_app.extensions["slotsys"]
    # fast levels, so the run has many hits: a floor-wide mystery, a linked progressive per zone
    for body in (
        {"code": "FAST_MYSTERY", "name": "Fast mystery", "kind": "mystery", "scope": "floor", "reset": 1_000,
         "ceiling": 3_000, "rate_ppm": 50_000, "reserve_rate_ppm": 5_000},
        {"code": "FAST_LINKED", "name": "Fast linked", "kind": "linked", "scope": "zone", "zone": "MASS",
         "reset": 2_000, "ceiling": 4_000, "rate_ppm": 20_000, "combination": "grand", "second_hit_rule": "same_amount"},
    ):
        r = api.as_staff("operator", "POST", "/api/v1/jackpots/levels", body)
        assert r.status_code == 201, r.json
    machines = [(m["asset"], m["game"]) for m in api.creds["machines"]] + add_machines(svc, 170)
    assert len(machines) == 200
    from slotsys.kernel import ledger as L

    with svc.uow() as uow:  # ₩500,000 on each machine
        for asset, _ in machines:
            uow.ledger.post(L.EntryBuilder("machine.bill_in").add(debit=accounts.machine_drop(asset), credit=accounts.machine_credits(asset),
                                                                  amount=500_000).build())
        uow.commit()
    chance = random.Random(11)
    real = floor.play
    monkeypatch.setattr(floor, "play", lambda *a, **k: WithProgressive(real(*a, **k), ["grand"] if chance.random() < 0.02 else []))
    before = snapshot_levels(svc)
    with svc.uow(readonly=True) as uow:
        where = {m.asset_number: (m.bank, m.zone) for m in uow.machines.all()}
    samples, over_ceiling = [0], []
    stop = threading.Event()

    def monitor():  # values seen while the floor plays
        while not stop.is_set():
            for code, lv in snapshot_levels(svc).items():
                if lv["value"] > lv["params"].ceiling * 1000:
                    over_ceiling.append((code, lv["value"]))
            samples[0] += 1
            time.sleep(0.05)

    mon = threading.Thread(target=monitor, daemon=True)
    mon.start()

    def play(m):
        asset, game = m
        p = Principal("machine", asset)
        out = []
        for _ in range(12):
            status, body, _ = spin_directly(svc, p, asset, bet_for(game), uuid.uuid4().hex)
            assert status == 200
            out.append(body)
        return out

    t0 = time.time()
    try:
        with ThreadPoolExecutor(max_workers=200) as pool:
            spins = [s for chunk in pool.map(play, machines) for s in chunk]
        elapsed = time.time() - t0
        assert wait_until(lambda: settled(svc), timeout=90), svc.jackpots.reads.queue()
    finally:
        stop.set()
        mon.join(timeout=5)
    after = snapshot_levels(svc)
    print(f"\n{len(spins)} spins by 200 machines in {elapsed:.1f} s; hits:",
          {c: a["hits"] - before[c]["hits"] for c, a in after.items() if a["hits"] != before[c]["hits"]})

    # no contribution lost or counted twice: every spin recorded one wager, folded once
    with svc.uow(readonly=True) as uow:
        n_wagers, n_folded = uow.session.execute(select(func.count(), func.count(JackpotWager.fold_id))).one()
        assert n_wagers == n_folded == len(spins)
        wagers = [(w.asset, w.bank, w.zone, w.bet_won) for w in uow.session.scalars(select(JackpotWager))]
    assert sorted(b for *_, b in wagers) == sorted(s["bet"]["won"] for s in spins)
    assert all(where[a] == (b, z) for a, b, z, _ in wagers)
    check_conservation(before, after, expected_contributions(before, wagers))

    # every trigger awarded exactly once: consecutive cycles, one hit each, one award entry each
    with svc.uow(readonly=True) as uow:
        hits = list(uow.session.scalars(select(JackpotHit)))
        assert all(h.status == "awarded" and h.pay_method == "credit" and h.award_entry_id for h in hits)
        by_level = defaultdict(list)
        for h in hits:
            by_level[h.level_id].append(h.cycle)
        for code, a in after.items():
            cycles = sorted(by_level[a["id"]])
            assert cycles == list(range(before[code]["cycle"], a["cycle"])) and len(cycles) == a["hits"] - before[code]["hits"]
        award_entries = uow.session.scalar(select(func.count()).select_from(JournalEntryRow)
                                           .where(JournalEntryRow.kind == "jackpot.award"))
        assert award_entries == len(hits) >= 50
        assert sum(h.amount_won for h in hits) == sum(a["total_won"] - before[c]["total_won"] for c, a in after.items())
        jackpot_out = dict(uow.session.execute(select(Machine.asset_number, Machine.jackpot_out)).all())
        per_machine = defaultdict(int)
        for h in hits:
            per_machine[uow.machines.get_by_id(h.machine_id).asset_number] += h.amount_won
    assert {a: v for a, v in jackpot_out.items() if v} == dict(per_machine)
    # each machine's credits: ₩500,000 − bets + game wins + its awards
    with svc.uow(readonly=True) as uow:
        for asset, _ in machines:
            mine = [s for s in spins if s["machine"] == asset]
            expect = 500_000 + sum(s["total_win"] - s["bet"]["won"] for s in mine) + per_machine[asset]
            assert uow.ledger.balance(accounts.machine_credits(asset)) == expect, asset
    assert samples[0] > 10 and over_ceiling == []
    audit = api.audit()
    assert audit["balanced"] and all(j["agrees"] for j in audit["jackpots"]), audit["jackpots"]


SPINNER = r"""
import os, sys, threading, uuid
from slotsys.app.bootstrap import build_services
from slotsys.kernel.context import Principal
from slotsys.kernel.settings import Settings
from tests.helpers import spin as spin_directly
svc = build_services(Settings(database_url=os.environ["DATABASE_URL"], redis_url=None, celery_eager=True,
                              log_level="WARNING"))  # async sequencer (PostgreSQL), tasks in-process
assets = sys.argv[1].split(",")
print("ready", flush=True)
def play(asset, game):
    p = Principal("machine", asset)
    bet = {"lines": 10, "multiplier": 1} if asset[1:].isdigit() and int(asset[1:]) % 2 else {"reels": 3, "multiplier": 2}
    while True:
        spin_directly(svc, p, asset, bet, uuid.uuid4().hex)
ts = [threading.Thread(target=play, args=(a, None), daemon=True) for a in assets]
[t.start() for t in ts]
[t.join() for t in ts]
"""


def test_killing_the_service_mid_spin_loses_no_value_and_a_restart_keeps_the_triggers(jp_app):
    """A process playing 10 machines (and folding) is SIGKILLed three times mid-flight; the
    restarted service folds what was committed with the same triggers; nothing is lost."""
    svc = jp_app.extensions["slotsys"]
    api = Api(jp_app)
    assets = [f"M{n:03d}" for n in range(1, 11)]
    from slotsys.kernel import ledger as L

    with svc.uow() as uow:
        for a in assets:
            uow.ledger.post(L.EntryBuilder("machine.bill_in").add(debit=accounts.machine_drop(a), credit=accounts.machine_credits(a),
                                                                  amount=5_000_000).build())
        uow.commit()
    svc.jackpots.sequencer.stop()  # this process folds only when the test says so
    before = snapshot_levels(svc)
    env = dict(os.environ, DATABASE_URL=svc.settings.database_url, PYTHONPATH=str(ROOT), SLOTSYS_LOG_LEVEL="WARNING")
    for round_ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", SPINNER, ",".join(assets)], env=env, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.5 + round_)
        proc.send_signal(signal.SIGKILL)  # mid-spin, mid-fold: no chance to clean up
        proc.wait(timeout=10)
    with svc.uow(readonly=True) as uow:
        rounds = uow.session.scalar(select(func.count()).select_from(GameRound))
        wagers = uow.session.scalar(select(func.count()).select_from(JackpotWager))
        assert rounds == wagers > 0  # a spin committed whole (round + wager) or not at all
    mid = snapshot_levels(svc)
    # the restart: this process folds what the killed one left, with the triggers on file
    svc.jackpots.sequencer.fold_all()
    after = snapshot_levels(svc)
    for code, a in after.items():
        if a["cycle"] == mid[code]["cycle"]:
            assert a["trigger"] == mid[code]["trigger"], code  # never re-drawn by a restart
    assert after["MEGA"]["trigger"] == before["MEGA"]["trigger"] and after["MEGA"]["cycle"] == 1
    with svc.uow(readonly=True) as uow:
        assert uow.levels.pending_count() == 0
        ws = [(w.asset, w.bank, w.zone, w.bet_won) for w in uow.session.scalars(select(JackpotWager))]
        spins = uow.session.execute(select(func.count(), func.sum(GameRound.bet_won))).one()
    assert spins[0] == len(ws) and spins[1] == sum(w[3] for w in ws)
    check_conservation(before, after, expected_contributions(before, ws))
    svc.jackpots.sweeper.run()  # award what was decided (no worker here: in-process)
    audit = api.audit()
    assert audit["balanced"] and all(j["agrees"] for j in audit["jackpots"]), audit["jackpots"]


def test_flushing_redis_loses_no_award_and_the_sweep_pays_each_once(jp_app):
    import redis

    app = jp_app
    svc = app.extensions["slotsys"]
    api = Api(app)
    svc.jackpots.sequencer.stop()
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").with_for_update().one()
        lv.trigger_milli = lv.value_milli + 1
        uow.commit()
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000})
    r = api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", {"lines": 10, "multiplier": 1})
    assert r.status_code == 200 and r.json["jackpots"] == []
    svc.jackpots.sequencer.fold_all()  # decides the hit and enqueues its award on Redis: no worker is running
    client = redis.Redis.from_url(svc.settings.redis_url)
    assert client.llen("celery") >= 1
    client.flushdb()  # the queued award task is gone
    with svc.uow(readonly=True) as uow:
        (hit,) = uow.session.scalars(select(JackpotHit)).all()
        assert hit.status == "hit" and hit.amount_won > 0
        hit_id, amount = hit.id, hit.amount_won
    assert api.audit()["balanced"]  # the award is owed on the ledger (payable), not lost
    credits = api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None).json["credits"]
    assert credits == r.json["credits"]
    time.sleep(2.1)
    from celery.contrib.testing.worker import start_worker

    with start_worker(svc.celery, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=20):
        svc.celery.tasks["jackpot_controller.sweep"].delay()  # what beat sends every 5 s
        svc.celery.tasks["jackpot_controller.award"].delay(hit_id)  # and a stray duplicate
        assert wait_until(lambda: api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None)
                          .json["credits"] == credits + amount, timeout=30)
        svc.celery.tasks["jackpot_controller.sweep"].delay()
        time.sleep(2)
    assert api.as_machine("M001", "GET", "/api/v1/machines/M001/meters", key=None).json["credits"] == credits + amount
    with svc.uow(readonly=True) as uow:
        assert uow.session.get(JackpotHit, hit_id).status == "awarded"
        assert uow.session.scalar(select(func.count()).select_from(JournalEntryRow)
                                  .where(JournalEntryRow.kind == "jackpot.award")) == 1
    a = api.audit()
    assert a["balanced"] and all(j["agrees"] for j in a["jackpots"])


def test_live_stream_over_redis_shows_the_hit_within_two_seconds(jp_app, jp_worker):
    from jackpot_controller.adapters.stream import RedisSubscription
    from jackpot_controller.domain.signage import CHANNEL

    svc = jp_app.extensions["slotsys"]
    api = Api(jp_app)
    sub = RedisSubscription(svc.settings.redis_url, CHANNEL)
    got: list[tuple[str, dict, float]] = []

    def listen():
        for chunk in svc.jackpots.signage.stream(sub, max_seconds=10):
            event = chunk.split("\n", 1)[0].removeprefix("event: ")
            data = json.loads(chunk.split("data: ", 1)[1])
            got.append((event, data, time.time()))
            if event == "hit":
                return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    assert wait_until(lambda: got, timeout=5) and got[0][0] == "meters"
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MAJOR").with_for_update().one()
        lv.trigger_milli = lv.value_milli + 1
        uow.commit()
    api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 50_000})
    r = api.as_machine("M003", "POST", "/api/v1/machines/M003/spin", {"lines": 10, "multiplier": 1})
    assert r.status_code == 200
    t.join(timeout=10)
    hits = [(d, at) for e, d, at in got if e == "hit"]
    assert hits, got
    hit, at = hits[0]
    with svc.uow(readonly=True) as uow:
        row = uow.session.get(JackpotHit, hit["hit"])
        decided = row.created_at.timestamp()
        amount = row.amount_won
        wager_at = uow.session.get(JackpotWager, row.wager_id).created_at.timestamp()
    assert hit["machine"] == "M003" and hit["level"] == "MASS_MAJOR" and 300_000 <= hit["new_value"] < 300_100
    # announced once the worker settled it: credited (below the handpay threshold), with its amount
    assert hit["status"] == "awarded" and hit["pay_method"] == "credit" and hit["amount"] == amount > 0
    assert at - wager_at < 2.0 and decided - wager_at < 1.0, (at - wager_at, decided - wager_at)
    svc.jackpots.sequencer.stop()
