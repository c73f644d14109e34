"""No outage stops the payouts: Redis (the Celery broker and the signage pub/sub) stopped for 10 s and
for 60 s while awards are in flight. Real processes, started as the README and ``.ci/run`` start them:
gunicorn (production conf), ``celery -A slotsys.app.worker worker --pool threads`` (gossip and mingle as
configured by the app, no test-only flags), ``celery -A slotsys.app.worker beat`` as its own process, a private
``redis-server`` (the shared one is never stopped), each case on a fresh PostgreSQL database.

Each case: machines spin through gunicorn, mystery levels are made to hit (``arm``), one award is held
mid-flight (its machine row locked, so the worker has claimed it and waits) when Redis is SIGKILLed; hits
keep being decided while Redis is down (their award tasks cannot be enqueued); Redis restarts empty on the
same port and the held award is released only after that. Asserts: the worker and beat are the same
processes (same pid) and alive, every hit is awarded exactly once (one ``jackpot.award`` entry each) with
no restart by hand, the web processes' Redis users (``/readyz``, the signage publisher) work again, and
``GET /api/v1/audit/ledger`` balances. See docs/resilience.md.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/pytest -m faults tests/integration/test_redis_outage.py
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select, text

from jackpot_controller.adapters.tables import JackpotHit
from tests.integration._procs import BIN, Proc, PrivateRedis, tail, wait_until
from tests.integration.test_faults import (
    Call, Floor, Load, arm, assert_awards_once, assert_jackpot_value_kept, bet_for, count_hits,
    fund, hit_states, http_audit, machine_key, settled,
)

pytestmark = [pytest.mark.integration, pytest.mark.faults]


class ReadmeWorker(Proc):
    """The worker exactly as README / .ci/run / docker start it: threads pool, nothing test-only."""

    def __init__(self, env: dict, tmp: Path) -> None:
        super().__init__([BIN / "celery", "-A", "slotsys.app.worker", "worker", "--pool", "threads", "--concurrency", 2,
                          "--loglevel", "INFO", "-n", f"outage-{uuid.uuid4().hex[:6]}@%h"], env, tmp / "celery-worker.log")

    def start(self, timeout: float = 120.0) -> "ReadmeWorker":
        super().start()
        ok = wait_until(lambda: not self.alive() or " ready." in self.log.read_text(errors="replace"), timeout=timeout,
                        step=0.5)
        assert ok and self.alive(), f"celery worker did not come up:\n{tail(self.log)}"
        return self


class Beat(Proc):
    def __init__(self, env: dict, tmp: Path) -> None:
        super().__init__([BIN / "celery", "-A", "slotsys.app.worker", "beat", "--loglevel", "INFO",
                          "--schedule", tmp / "beat-schedule"], env, tmp / "celery-beat.log")

    def start(self, timeout: float = 120.0) -> "Beat":
        super().start()
        ok = wait_until(lambda: not self.alive() or "Sending due task" in self.log.read_text(errors="replace"),
                        timeout=timeout, step=0.5)
        assert ok and self.alive(), f"celery beat did not come up:\n{tail(self.log)}"
        return self


def hold_award(f: Floor, asset: str):
    """Lock ``asset``'s machine row (NO KEY UPDATE: the fold's KEY SHARE passes, the award's FOR UPDATE
    waits), make its next spin hit Mass Minor and fold it: the award task goes to the broker, the worker
    claims the hit and waits on the row (mid-award, its message unacknowledged: ``acks_late``). Returns the
    open connection and transaction (rolling it back lets the award finish) and the hit's id."""
    db = f.db
    blocker = db.svc.uow.engine.connect()
    r = f.api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet_for(asset))  # before the lock
    assert r.status_code == 200, r.json
    arm(db, "MASS_MINOR")
    r = f.api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", bet_for(asset))
    assert r.status_code == 200, r.json
    tx = blocker.begin()
    mid = blocker.execute(text("SELECT id FROM machines WHERE asset_number = :a FOR NO KEY UPDATE"), {"a": asset}).scalar_one()
    db.svc.jackpots.fold_all()  # (or beat's fold, in the worker: the same hit either way)

    def held_hit():
        with db.svc.uow(readonly=True) as uow:
            return uow.session.scalar(select(JackpotHit.id).where(JackpotHit.machine_id == mid))

    assert wait_until(lambda: held_hit() is not None, timeout=30), hit_states(db)
    hit = held_hit()

    def claimed() -> bool:
        with db.svc.uow(readonly=True) as uow:
            return uow.session.get(JackpotHit, hit, populate_existing=True).status == "claimed"

    assert wait_until(claimed, timeout=60), hit_states(db)
    return blocker, tx, hit


def outage(pg_server_url, tmp_path: Path, down_s: float, machines: list[str]) -> None:
    import redis as redislib

    redis = PrivateRedis(tmp_path).start()
    f = Floor(pg_server_url, tmp_path, redis.url)
    f.procs.append(redis)
    try:
        # enough for every spin the load can play in the outage and the reconnection (about 80 s, each machine
        # back to back at ₩1,000): with ₩300,000 a fast run or a losing streak ran a machine dry (a 409, not the
        # outage's doing)
        fund(f, machines + ["M009"], 2_000_000)
        gun = f.gunicorn()
        worker = ReadmeWorker(f.env(), tmp_path)
        beat = Beat(f.env(), tmp_path)
        f.procs += [worker, beat]
        worker.start()
        beat.start()
        worker_pid, beat_pid = worker.pid, beat.pid
        blocker, tx, held = hold_award(f, "M009")  # claimed by the worker, waiting on the row (before the load:
        with Load(gun.base, f.db.creds, machines) as load:  # the armed hit is M009's for certain)
            try:
                for _ in range(2):
                    arm(f.db, "MASS_MINOR")
                    time.sleep(1)
                redis.kill()  # SIGKILL: every connection resets, the queue is lost (no persistence)
                down = time.monotonic()
                hits_before = count_hits(f.db)
                while time.monotonic() - down < down_s:
                    arm(f.db, "MASS_MINOR")  # hits decided while the broker is down: no task can be enqueued
                    time.sleep(2)
                    assert worker.alive() and beat.alive(), (tail(worker.log), tail(beat.log))
                hits_during = count_hits(f.db) - hits_before
                redis.start()  # same port, empty
                up = time.monotonic()
                # the worker reconnects by itself ("Connected to …" again after the restart)
                assert wait_until(lambda: worker.log.read_text(errors="replace").count("Connected to ") >= 2,
                                  timeout=60, step=0.5), tail(worker.log, 80)
                reconnected = time.monotonic() - up
            finally:
                tx.rollback()  # the held award finishes now, after the reconnection: its ack meets a new connection
                blocker.close()
            arm(f.db, "MASS_MINOR")
            time.sleep(3)
        assert hits_during >= 1, "no hit was decided while Redis was down"
        assert wait_until(lambda: settled(f.db), timeout=120, step=1), (hit_states(f.db), tail(worker.log, 80))
        # the same worker and beat, alive: nothing was restarted by hand or by a supervisor
        assert worker.alive() and worker.pid == worker_pid, tail(worker.log, 80)
        assert beat.alive() and beat.pid == beat_pid, tail(beat.log, 80)
        log = worker.log.read_text(errors="replace")
        # before the fix every outage logged "Error on restarting Gossip: AttributeError(…)" (a step still using a
        # channel of the closed connection), the error that, escaping the restart, made the worker exit
        assert "Unrecoverable error" not in log and "AttributeError" not in log, tail(worker.log, 80)
        # the worker consumes again: a task enqueued now is run by it
        task_id = f.db.svc.celery.tasks["jackpot_controller.announce_pending"].delay().id
        assert wait_until(lambda: f"announce_pending[{task_id}] succeeded" in worker.log.read_text(errors="replace"),
                          timeout=30), tail(worker.log, 40)
        # the other Redis users: the web's readiness probe, and the signage channel (the web's sequencer and the
        # worker publish meters after folds)
        assert wait_until(lambda: httpx.get(gun.base + "/readyz", timeout=5).status_code == 200, timeout=30)
        sub = redislib.Redis.from_url(redis.url).pubsub(ignore_subscribe_messages=True)
        sub.subscribe("slotsys:jackpots")
        last = Call("spin", f"/api/v1/machines/{machines[0]}/spin", bet_for(machines[0]),
                    machine_key(f.db.creds, machines[0])).until_ok(gun.base)
        assert last.status == 200, last.json
        deadline, got = time.monotonic() + 15, None
        while got is None and time.monotonic() < deadline:
            got = sub.get_message(timeout=1)
        sub.close()
        assert got is not None, "no signage message after Redis came back"
        calls = load.calls + [last]
        assert all(c.status == 200 for c in calls), [(c.statuses, c.json) for c in load.calls if c.status != 200][:5]
        assert wait_until(lambda: settled(f.db), timeout=60, step=1), hit_states(f.db)
        hits = assert_awards_once(f)
        assert held in {h["id"] for h in hits}
        assert_jackpot_value_kept(f)
        http_audit(gun.base, f.db.creds)
        spins = len(calls)
        print(f"\nRedis down {down_s:g} s: {spins} spins, {len(hits)} hits ({hits_during} decided during the outage), "
              f"each awarded once; worker pid {worker_pid} and beat pid {beat_pid} kept; "
              f"the consumer reconnected {reconnected:.1f} s after Redis was back")
    finally:
        f.close()


def test_redis_down_10s_mid_award_the_same_worker_pays_every_award_once(pg_server_url, tmp_path):
    outage(pg_server_url, tmp_path, 10, [f"M{n:03d}" for n in range(1, 7)])


@pytest.mark.timeout(600)
def test_redis_down_60s_mid_award_the_same_worker_pays_every_award_once(pg_server_url, tmp_path):
    outage(pg_server_url, tmp_path, 60, [f"M{n:03d}" for n in range(1, 4)])
