"""Faults (issue 11): the floor keeps every won through a killed web worker, a Redis outage, a killed
Celery worker and dropped PostgreSQL connections. Real processes: gunicorn (2 gthread workers × 4
threads), ``celery -A slotsys.app.worker worker -B``, a private redis-server (the shared one is never
stopped), each test on a fresh PostgreSQL database (never the server itself).

Every test ends with ``GET /api/v1/audit/ledger`` as the auditor ``balanced`` (zero-sum ledger, cached
balances = postings, tickets and every jackpot level agree with the ledger), each award and each ticket
paid exactly once (one journal entry each), and the jackpot pools' conservation: for every level,
Δ(value + reserve + overflow) + awards − house seeds = the contributions of every wager recorded.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/6 \\
        .venv/bin/pytest -m faults tests/integration/test_faults.py

``SLOTSYS_FAULT_DELAY_MS`` / ``SLOTSYS_FAULT_DELAY_AFTER_COMMIT_MS`` (slotsys/kernel/settings.py, off by default)
hold each Idempotency-Key use case open before / after its commit in the gunicorn under test, so a kill
or a dropped connection lands mid-request for certain.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select, text

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel, JackpotWager
from jackpot_controller.services.levels import params_of
from slotsys.floor.adapters.tables import GameRound, Machine
from slotsys.kernel.adapters.db import IdempotencyRecord, JournalEntryRow
from slotsys.kernel.money import contribution_milli
from tests.conftest import Api
from tests.integration._procs import CeleryWorker, FloorDb, Gunicorn, PrivateRedis, service_env, tail, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.faults]

SPIN_BET = {"lines": 10, "multiplier": 1}  # ₩1,000 on a MASS line machine (M001, M003, …)
WAYS_BET = {"reels": 3, "multiplier": 1}  # ₩700 on a MASS ways machine (M002, M004, …)


def bet_for(asset: str) -> dict:
    return SPIN_BET if int(asset[1:]) % 2 else WAYS_BET


def shared_redis_db6() -> str:
    return os.environ["REDIS_URL"].rsplit("/", 1)[0] + "/6"


# ---------------------------------------------------------------------------- fixture
class Floor:
    def __init__(self, server_url: str, tmp: Path, redis_url: str) -> None:
        self.tmp, self.redis_url = tmp, redis_url
        self.db = FloorDb(server_url, tmp, redis_url)
        self.api = Api(self.db.app)  # in-process, same database: set-up and reads
        self.procs: list = []
        self.levels_before = snapshot_levels(self.db)

    def env(self, redis_url: str | None = None, **extra: str) -> dict:
        return service_env(self.db.url, redis_url or self.redis_url, self.tmp, **extra)

    def gunicorn(self, **extra: str) -> Gunicorn:
        g = Gunicorn(self.env(**extra), self.tmp)
        self.procs.append(g)
        return g.start()

    def close(self) -> None:
        for p in reversed(self.procs):
            p.stop()
        self.db.drop()


@pytest.fixture
def floor(pg_server_url, tmp_path):
    f = Floor(pg_server_url, tmp_path, shared_redis_db6())
    try:
        yield f
    finally:
        f.close()


# ---------------------------------------------------------------------------- HTTP
@dataclass
class Call:
    kind: str  # spin | redeem
    path: str
    body: dict
    auth: str
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    status: int | None = None  # None: no response (transport error)
    json: dict | None = None
    replayed: bool = False
    error: str = ""
    started: float = 0.0
    attempts: int = 0
    statuses: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # the problem type of each error answer (…/unavailable, …/overloaded)
    was_committed: bool | None = None  # after a lost response: had the first attempt committed?
    finished: float = 0.0

    def send(self, base: str, timeout: float = 120.0) -> "Call":
        """One attempt with this call's Idempotency-Key, on a fresh connection."""
        self.started = self.started or time.monotonic()
        self.attempts += 1
        try:
            with httpx.Client(base_url=base, timeout=timeout) as c:
                r = c.post(self.path, json=self.body, headers={"Authorization": f"Bearer {self.auth}",
                                                               "Idempotency-Key": self.key})
            self.status, self.replayed, self.error = r.status_code, r.headers.get("Idempotent-Replayed") == "true", ""
            self.json = r.json()
            if r.status_code >= 400:
                self.problems.append(self.json.get("type", "").rsplit("/", 1)[-1])
        except httpx.TransportError as e:
            self.status, self.json, self.replayed, self.error = None, None, False, type(e).__name__
        self.statuses.append(self.status)
        return self

    def until_ok(self, base: str, tries: int = 30) -> "Call":
        """The machine's / cashier's retry: the same key and body until a response that is not 503."""
        for _ in range(tries):
            self.send(base)
            if self.status not in (None, 503):
                return self
            time.sleep(0.3)
        return self


def run_all(calls: list[Call], fn) -> list[threading.Thread]:
    """Send each call from its own thread (all in flight at once); join with :func:`join`."""
    ts = [threading.Thread(target=fn, args=(c,), daemon=True) for c in calls]
    for t in ts:
        t.start()
    return ts


def join(ts: list[threading.Thread], timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    for t in ts:
        t.join(max(0.1, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in ts), "requests still hanging"


def staff_token(base: str, creds: dict, role: str) -> str:
    """Log in as ``role``, retrying a 503 as every client here does: after the database dropped its connections,
    the first request a worker serves meets a dead pooled connection (pool_pre_ping off), and the worker that
    served none of the test's spins may be the one that answers this login."""
    s = next(s for s in creds["staff"] if s["role"] == role)
    for _ in range(5):
        r = httpx.post(base + "/api/v1/auth/login", json={"username": s["username"], "password": s["password"]}, timeout=60)
        if r.status_code != 503:
            break
        time.sleep(0.3)
    assert r.status_code == 200, r.text
    return r.json()["token"]


def machine_key(creds: dict, asset: str) -> str:
    return next(m["key"] for m in creds["machines"] if m["asset"] == asset)


def http_audit(base: str, creds: dict) -> dict:
    """GET /api/v1/audit/ledger as the auditor; asserts every part of it balances."""
    r = httpx.get(base + "/api/v1/audit/ledger", headers={"Authorization": f"Bearer {staff_token(base, creds, 'auditor')}"},
                  timeout=120)
    assert r.status_code == 200, r.text
    return assert_books(r.json())


def assert_books(a: dict) -> dict:
    assert a["tickets"]["agrees"], a["tickets"]
    bad = [j for j in a["jackpots"] if not j["agrees"]]
    assert not bad, bad
    assert a["balanced"] is True, {k: v for k, v in a.items() if k not in ("jackpots",)}
    return a


# ---------------------------------------------------------------------------- database checks
def fund(floor: Floor, assets, amount: int) -> None:
    """Bill in ``amount`` won on each machine, one note at a time (in-process, same database)."""
    for a in assets:
        left = amount
        for note in (50_000, 10_000, 5_000, 1_000):
            while left >= note:
                r = floor.api.as_machine(a, "POST", f"/api/v1/machines/{a}/bill-in", {"amount": note})
                assert r.status_code == 200, r.json
                left -= note
        assert left == 0


def snapshot_levels(db: FloorDb) -> dict[str, dict]:
    with db.svc.uow(readonly=True) as uow:
        return {lv.code: {"value": lv.value_milli, "reserve": lv.reserve_milli, "overflow": lv.overflow_milli,
                          "total_won": lv.total_won, "seeded": lv.seeded_won, "contributed": lv.contributed_milli,
                          "params": params_of(lv)} for lv in uow.levels.all()}


def assert_jackpot_value_kept(floor: Floor) -> dict:
    """Every wager is folded, and for each level: the contributions its rules give the recorded
    wagers = Δ(value + reserve + overflow) + 1000 × (awards − house seeds) (milli-won)."""
    before, after = floor.levels_before, snapshot_levels(floor.db)
    with floor.db.svc.uow(readonly=True) as uow:
        assert uow.levels.pending_count() == 0
        wagers = [(w.asset, w.bank or "", w.zone, int(w.bet_won)) for w in uow.session.scalars(select(JackpotWager))]
        rounds = uow.session.execute(select(func.count(), func.coalesce(func.sum(GameRound.bet_won), 0))).one()
    assert (len(wagers), sum(w[3] for w in wagers)) == tuple(rounds)  # each recorded spin has its wager, and only those
    for code, a in after.items():
        b, p = before[code], a["params"]
        expected = sum(contribution_milli(bet, p.rate_ppm) + contribution_milli(bet, p.reserve_rate_ppm)
                       for asset, bank, zone, bet in wagers if p.eligible(asset, bank, zone) and bet >= p.min_bet)
        growth = (a["value"] + a["reserve"] + a["overflow"]) - (b["value"] + b["reserve"] + b["overflow"])
        awards, seeds = a["total_won"] - b["total_won"], a["seeded"] - b["seeded"]
        if p.kind == "mystery":  # the slot floor's levels (others, e.g. table progressives, take no spin)
            assert a["contributed"] - b["contributed"] == expected, code
        assert growth + 1000 * (awards - seeds) == a["contributed"] - b["contributed"], (code, growth, awards, seeds)
    return after


def assert_awards_once(floor: Floor) -> list[dict]:
    """Every hit is awarded (credited), by exactly one ``jackpot.award`` entry; each machine's jackpot
    meter is exactly the sum of its awards."""
    with floor.db.svc.uow(readonly=True) as uow:
        hits = [{"id": h.id, "status": h.status, "machine_id": h.machine_id, "amount": h.amount_won,
                 "entry": h.award_entry_id, "created_at": h.created_at}
                for h in uow.session.scalars(select(JackpotHit).order_by(JackpotHit.id))]
        entries = {e.id: int(e.refs["hit"]) for e in
                   uow.session.scalars(select(JournalEntryRow).where(JournalEntryRow.kind == "jackpot.award"))}
        meters = {m.id: (m.asset_number, m.jackpot_out) for m in uow.session.scalars(select(Machine))}
    per_hit = Counter(entries.values())
    assert [h["status"] for h in hits] == ["awarded"] * len(hits), [(h["id"], h["status"]) for h in hits]
    assert all(per_hit[h["id"]] == 1 for h in hits) and len(entries) == len(hits), per_hit
    assert all(entries.get(h["entry"]) == h["id"] for h in hits)
    by_machine = defaultdict(int)
    for h in hits:
        by_machine[h["machine_id"]] += h["amount"]
        h["asset"] = meters[h["machine_id"]][0]
    assert all(jp == by_machine.get(mid, 0) for mid, (_, jp) in meters.items()), (dict(by_machine), meters)
    return hits


def assert_spins_whole(floor: Floor, calls: list[Call]) -> None:
    """Each spin key is recorded exactly once and wholly: its game round, its journal entry, its
    wager and the machine's meters; nothing recorded that no key asked for."""
    spins = [c for c in calls if c.kind == "spin"]
    with floor.db.svc.uow(readonly=True) as uow:
        s = uow.session
        rounds = [(r.machine_id, r.game_number, r.entry_id, r.bet_won, r.win_won, r.credits_after)
                  for r in s.scalars(select(GameRound))]
        machines = {m.id: (m.asset_number, m.games_played, m.game_seq, m.coin_in, m.coin_out)
                    for m in s.scalars(select(Machine))}
        spin_entries = s.scalar(select(func.count()).select_from(JournalEntryRow).where(JournalEntryRow.kind == "machine.spin"))
        recs = {r.key: (r.status_code, r.response) for r in
                s.scalars(select(IdempotencyRecord).where(IdempotencyRecord.key.in_([c.key for c in spins])))}
    assert len(recs) == len(spins) and all(st == 200 and body for st, body in recs.values())
    recorded = {(r[0], r[1]): r for r in rounds}
    assert len(rounds) == len(recorded) == len(spins) == spin_entries, (len(rounds), len(spins), spin_entries)
    by_asset = {v[0]: mid for mid, v in machines.items()}
    for c in spins:  # the stored (and replayed) response is the round on file
        body = recs[c.key][1]
        rnd = recorded[(by_asset[body["machine"]], body["game_number"])]
        assert rnd[2:] == (body["entry"], body["bet"]["won"], body["total_win"], body["credits"])
    per_machine = defaultdict(list)
    for r in rounds:
        per_machine[r[0]].append(r)
    for mid, rs in per_machine.items():
        asset, played, seq, coin_in, coin_out = machines[mid]
        assert (played, seq) == (len(rs), len(rs)) and max(r[1] for r in rs) == len(rs), asset
        assert coin_in == sum(r[3] for r in rs) and coin_out == sum(r[4] for r in rs), asset


def arm(db: FloorDb, *codes: str) -> None:
    """Make the next eligible wager of each level cross its (secret) trigger: the test decides when
    mystery levels hit, nothing else about them changes."""
    with db.svc.uow() as uow:
        for lv in uow.session.scalars(select(JackpotLevel).where(JackpotLevel.code.in_(codes))
                                      .order_by(JackpotLevel.id).with_for_update()):
            lv.trigger_milli = lv.value_milli + 1
        uow.commit()


# ============================================================================ 1. kill -9 a web worker
def test_kill9_web_worker_mid_spin_and_mid_redemption_retry_returns_the_original_or_runs_once(floor):
    """16 spins and 4 cage redemptions in two waves; the worker holding most of them is SIGKILLed
    while wave 1 sleeps after its commit (response not sent) and wave 2 before its commit. gunicorn's
    master starts a new worker; each call retried with its Idempotency-Key returns the stored original
    (committed) or runs once (not committed); a second retry of every call replays the same body."""
    db, creds = floor.db, floor.db.creds
    machines = [f"M{n:03d}" for n in range(1, 9)]
    fund(floor, machines, 200_000)
    tickets = []
    for a in ("M011", "M012", "M013", "M014"):
        fund(floor, [a], 12_000)
        r = floor.api.as_machine(a, "POST", f"/api/v1/machines/{a}/cash-out")
        assert r.status_code == 201, r.json
        tickets.append((r.json["ticket"]["validation_number"], r.json["ticket"]["amount"]))
    # The waves hold more calls than threads for seconds on purpose; admission control would refuse the
    # queued ones (503 overloaded, tests/e2e/test_admission.py), which is not the fault under test here.
    gun = floor.gunicorn(SLOTSYS_FAULT_DELAY_MS="1500", SLOTSYS_FAULT_DELAY_AFTER_COMMIT_MS="4000", SLOTSYS_SHED_QUEUE_MS="0")
    cashier = staff_token(gun.base, creds, "cashier")

    def spins():
        return [Call("spin", f"/api/v1/machines/{a}/spin", bet_for(a), machine_key(creds, a)) for a in machines]

    def redeems(tks):
        return [Call("redeem", "/api/v1/cage/redeem", {"validation_number": vn}, cashier) for vn, _ in tks]

    wave1 = spins() + redeems(tickets[:2])
    threads = run_all(wave1, lambda c: c.send(gun.base))

    def committed(keys) -> set[str]:
        with db.svc.uow(readonly=True) as uow:
            return set(uow.session.scalars(select(IdempotencyRecord.key).where(IdempotencyRecord.key.in_(list(keys)))))

    assert wait_until(lambda: len(committed(c.key for c in wave1)) == len(wave1), timeout=120), "wave 1 did not commit"
    wave2 = spins() + redeems(tickets[2:])
    threads += run_all(wave2, lambda c: c.send(gun.base))
    time.sleep(0.8)  # wave 2 has done its work and sleeps before its commit; wave 1 after it
    conns = gun.connections_by_worker()
    victim = max(conns, key=conns.get)
    assert conns[victim] > 0, conns
    os.kill(victim, signal.SIGKILL)
    join(threads)
    calls = wave1 + wave2
    lost = [c for c in calls if c.status is None]
    assert lost, "the kill hit no request in flight"
    assert all(c.status == 200 for c in calls if c.status is not None), [(c.kind, c.status, c.json) for c in calls]
    # gunicorn's master replaces the worker
    assert wait_until(lambda: len(gun.worker_pids()) == 2 and victim not in gun.worker_pids(), timeout=120), tail(gun.log)
    done = committed(c.key for c in lost)  # the killed worker can commit nothing more
    for c in lost:
        c.was_committed = c.key in done
    threads = run_all(lost, lambda c: c.until_ok(gun.base))
    join(threads)
    with db.svc.uow(readonly=True) as uow:
        stored = {r.key: r.response for r in uow.session.scalars(select(IdempotencyRecord).where(
            IdempotencyRecord.key.in_([c.key for c in calls])))}
    for c in lost:
        assert c.status == 200, (c.kind, c.statuses, c.json)
        assert c.replayed == c.was_committed, (c.kind, c.was_committed, c.replayed)  # replay iff it had committed
        assert c.json == stored[c.key]
    first = {c.key: c.json for c in calls}
    again = [Call(c.kind, c.path, c.body, c.auth, key=c.key) for c in calls]
    join(run_all(again, lambda c: c.send(gun.base)))
    assert all(c.status == 200 and c.replayed and c.json == first[c.key] for c in again), \
        [(c.kind, c.status, c.replayed) for c in again]
    # books: every spin once and whole, every ticket paid once
    assert_spins_whole(floor, calls)
    with db.svc.uow(readonly=True) as uow:
        redeemed = Counter(e.refs["validation_number"] for e in uow.session.scalars(
            select(JournalEntryRow).where(JournalEntryRow.kind == "tito.redeem")))
    assert redeemed == Counter(vn for vn, _ in tickets)
    assert all(c.json["paid"] == amt for c, (_, amt) in zip([c for c in calls if c.kind == "redeem"], tickets))
    audit = http_audit(gun.base, creds)
    assert audit["tickets"]["by_status"].get("redeemed") == 4
    was = Counter((c.kind, c.was_committed) for c in lost)
    print(f"\nkill -9 worker {victim} with {conns[victim]} of {sum(conns.values())} connections: {len(calls)} calls, "
          f"{len(lost)} lost their response ({dict(was)} (kind, committed)); retries: "
          f"{sum(c.replayed for c in lost)} replayed the original, {sum(not c.replayed for c in lost)} ran once")


# ============================================================================ helpers for load
class Load:
    """N machines spinning over HTTP, each retrying a failed spin (503 or no response) with the same
    Idempotency-Key until it gets an answer; every call is kept."""

    def __init__(self, base: str, creds: dict, machines: list[str]) -> None:
        self.base, self.creds, self.machines = base, creds, machines
        self.calls: list[Call] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(a,), daemon=True) for a in machines]

    def _run(self, asset: str) -> None:
        key = machine_key(self.creds, asset)
        while not self.stop.is_set():
            c = Call("spin", f"/api/v1/machines/{asset}/spin", bet_for(asset), key).until_ok(self.base, tries=100)
            c.finished = time.monotonic()
            with self.lock:
                self.calls.append(c)

    def __enter__(self) -> "Load":
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        join(self.threads)

    def outcomes(self) -> Counter:
        return Counter(s for c in self.calls for s in c.statuses)


# ============================================================================ 2. Redis down for 10 s
def test_redis_down_10s_under_load_spins_settle_and_no_jackpot_value_is_lost(pg_server_url, tmp_path):
    """8 machines spin through gunicorn while the private Redis (broker, pub/sub) is killed for 10 s and
    restarted empty; Mass Minor is made to hit about every second meanwhile. Spins keep settling; hits
    decided while Redis was down lose their award tasks and beat's sweep pays them, each once."""
    redis = PrivateRedis(tmp_path).start()
    f = Floor(pg_server_url, tmp_path, redis.url)
    f.procs.append(redis)
    try:
        machines = [f"M{n:03d}" for n in range(1, 9)]
        fund(f, machines, 300_000)
        gun = f.gunicorn()
        worker = CeleryWorker(f.env(), tmp_path, beat=True, name="redis")
        f.procs.append(worker)
        worker.start()
        with Load(gun.base, f.db.creds, machines) as load:
            t0 = time.monotonic()
            while time.monotonic() - t0 < 3:
                arm(f.db, "MASS_MINOR")
                time.sleep(1)
            redis.kill()
            down, up = time.monotonic(), None
            hits_before_outage = count_hits(f.db)
            while time.monotonic() - down < 10:
                arm(f.db, "MASS_MINOR")
                time.sleep(1)
            hits_in_outage = count_hits(f.db) - hits_before_outage
            redis.start()
            up = time.monotonic()
            while time.monotonic() - up < 4:
                arm(f.db, "MASS_MINOR")
                time.sleep(1)
        calls = load.calls
        during = [c for c in calls if down <= c.finished <= up and c.status == 200]
        assert all(c.status == 200 for c in calls), [(c.statuses, c.json) for c in calls if c.status != 200][:5]
        assert set(load.outcomes()) <= {200, 503, None}, load.outcomes()
        assert len(during) >= 8, f"only {len(during)} spins settled while Redis was down"
        assert hits_in_outage >= 1, "no hit was decided while Redis was down"
        # beat's sweep (every 5 s) awards the hits whose task was lost with Redis
        assert wait_until(lambda: settled(f.db), timeout=120, step=1), (hit_states(f.db), tail(worker.log))
        assert_spins_whole(f, calls)
        hits = assert_awards_once(f)
        assert_jackpot_value_kept(f)
        http_audit(gun.base, f.db.creds)
        print(f"\nRedis down 10 s: {len(calls)} spins ({len(during)} settled during the outage), outcomes "
              f"{dict(load.outcomes())}; {len(hits)} hits ({hits_in_outage} decided during the outage), each awarded once")
    finally:
        f.close()


def count_hits(db: FloorDb) -> int:
    with db.svc.uow(readonly=True) as uow:
        return uow.session.scalar(select(func.count()).select_from(JackpotHit))


def hit_states(db: FloorDb) -> Counter:
    with db.svc.uow(readonly=True) as uow:
        return Counter(uow.session.scalars(select(JackpotHit.status)))


def settled(db: FloorDb) -> bool:
    with db.svc.uow(readonly=True) as uow:
        open_hits = uow.session.scalar(select(func.count()).select_from(JackpotHit).where(JackpotHit.status != "awarded"))
        return uow.levels.pending_count() == 0 and open_hits == 0


# ============================================================================ 3. kill the Celery worker
def test_killed_celery_worker_with_award_tasks_queued_each_award_paid_once(floor):
    """12 hits (Mass Minor and Major, credited awards) wait as award tasks on the broker. A real worker
    takes the first two, claims them and is SIGKILLed while they wait on the machine row; the tasks it
    held are lost with it. A restarted worker (with beat) pays the queue, the sweep releases the dead
    claims after the commit timeout and pays them; duplicate tasks pay nothing: each award once."""
    import redis

    db, svc = floor.db, floor.db.svc
    client = redis.Redis.from_url(floor.redis_url)
    kombu_keys = ["celery", "unacked", "unacked_index", "unacked_mutex"]
    client.delete(*kombu_keys)
    machines = [f"M{n:03d}" for n in range(1, 7)]
    fund(floor, machines, 300_000)
    credits = {}
    for i in range(6):
        a = machines[i]
        arm(db, "MASS_MINOR", "MASS_MAJOR")
        r = floor.api.as_machine(a, "POST", f"/api/v1/machines/{a}/spin", bet_for(a))
        assert r.status_code == 200, r.json
        credits[a] = r.json["credits"]
        assert svc.jackpots.fold_all() == 1  # decides the two hits, enqueues their award tasks (no worker yet)
    with svc.uow(readonly=True) as uow:
        hits = [(h.id, h.status, h.machine_id) for h in uow.session.scalars(select(JackpotHit).order_by(JackpotHit.id))]
    assert len(hits) == 12 and {h[1] for h in hits} == {"hit"}
    assert client.llen("celery") >= 12
    first_machine = hits[0][2]
    assert hits[1][2] == first_machine  # the first two tasks are the two hits of M001's spin
    env = floor.env(SLOTSYS_JACKPOT_CLAIM_TIMEOUT_S="5")
    # hold M001's row: the worker's first awards claim, then wait on it (mid-award)
    blocker = db.svc.uow.engine.connect()
    tx = blocker.begin()
    blocker.execute(text("SELECT id FROM machines WHERE id = :m FOR UPDATE"), {"m": first_machine})
    w1 = CeleryWorker(env, floor.tmp, beat=False, concurrency=2, name="first")
    floor.procs.append(w1)
    try:
        w1.start()
        assert wait_until(lambda: hit_states(db).get("claimed", 0) == 2, timeout=120), (hit_states(db), tail(w1.log))
        w1.kill(signal.SIGKILL)  # mid-award: claimed, not settled; its tasks unacknowledged
    finally:
        tx.rollback()
        blocker.close()
    states_after_kill = hit_states(db)
    assert states_after_kill.get("awarded", 0) == 0 and states_after_kill["claimed"] == 2, states_after_kill
    queued_after_kill = client.llen("celery")
    for h in hits:  # strays: a duplicate award task for every hit
        svc.celery.tasks["jackpot_controller.award"].delay(h[0])
    w2 = CeleryWorker(env, floor.tmp, beat=True, concurrency=2, name="restarted")
    floor.procs.append(w2)
    w2.start()
    try:
        assert wait_until(lambda: settled(db), timeout=150, step=1), (hit_states(db), tail(w2.log))
        time.sleep(6)  # another sweep and the duplicates: nothing more is paid
        hits = assert_awards_once(floor)
        for a in machines:
            r = floor.api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None)
            won = sum(h["amount"] for h in hits if h["asset"] == a)
            assert r.json["credits"] == credits[a] + won, (a, r.json["credits"], credits[a], won)
        with svc.uow(readonly=True) as uow:
            released = uow.session.execute(text("SELECT count(*) FROM jackpot_events WHERE kind = 'claim_timeout'")).scalar()
        assert released >= 2  # the dead worker's claims were released, then paid once
        assert_jackpot_value_kept(floor)
        assert_books(floor.api.audit())
        print(f"\nCelery worker killed with 2 awards claimed mid-flight and {queued_after_kill} tasks still queued: "
              f"{len(hits)} hits awarded once each after the restart (+{len(hits)} duplicate tasks); "
              f"{released} dead claims released by the sweep")
    finally:
        client.delete(*kombu_keys)


# ============================================================================ 4. PostgreSQL connections dropped
def test_postgres_connections_dropped_mid_transaction_nothing_half_applied_and_the_service_recovers(floor):
    """8 machines spin through gunicorn (each use case holds its transaction 200 ms before committing);
    every backend of the test database is terminated three times. Each spin is recorded wholly or not at
    all; failed spins answer 503 (retried with their key until 200); then, with pool_pre_ping off (the
    default), one drop on an idle service costs at most one 503 per worker and the service recovers."""
    db, creds = floor.db, floor.db.creds
    machines = [f"M{n:03d}" for n in range(1, 9)]
    fund(floor, machines, 300_000)
    gun = floor.gunicorn(SLOTSYS_FAULT_DELAY_MS="200")
    terminated = []
    with Load(gun.base, creds, machines) as load:
        for _ in range(3):
            time.sleep(2.5)
            terminated.append(db.terminate_backends())
        time.sleep(2)
    calls = load.calls
    outcomes = load.outcomes()
    assert all(c.status == 200 for c in calls), [(c.statuses, c.json) for c in calls if c.status != 200][:5]
    assert set(outcomes) <= {200, 503}, outcomes  # a dropped connection is a clean 503, never a 500
    assert outcomes[503] >= 1, (terminated, outcomes)
    # the drops themselves answered 503 "unavailable" (a node too busy would say "overloaded")
    assert "unavailable" in [p for c in calls for p in c.problems], (terminated, [c.problems for c in calls])
    # idle service: one drop, then one spin at a time
    time.sleep(6)  # past the auth cache (5 s): the first request's first statement meets the dead connection
    dropped = db.terminate_backends()
    seq = [Call("spin", "/api/v1/machines/M001/spin", bet_for("M001"), machine_key(creds, "M001")) for _ in range(8)]
    for c in seq:
        c.until_ok(gun.base)
    first_tries = [c.statuses[0] for c in seq]
    assert all(c.status == 200 for c in seq), [c.statuses for c in seq]
    assert first_tries.count(503) <= gun.workers, first_tries  # at most one per worker's pool, then recovered
    retried = [c for c in seq if len(c.statuses) > 1]
    assert all(not c.replayed for c in retried)  # the failed attempt had applied nothing
    calls = calls + seq
    assert wait_until(lambda: db.svc.jackpots.fold_all() >= 0 and pending(db) == 0, timeout=60)
    assert_spins_whole(floor, calls)
    assert_jackpot_value_kept(floor)
    http_audit(gun.base, creds)
    print(f"\nPostgreSQL backends terminated {terminated} under load: {len(calls) - len(seq)} spins, attempts "
          f"{dict(outcomes)}; idle drop of {dropped} backends → first attempts of 8 sequential spins {first_tries}")


def pending(db: FloorDb) -> int:
    with db.svc.uow(readonly=True) as uow:
        return uow.levels.pending_count()


# ============================================================================ 3b. the claim timeout
def test_the_claim_timeout_runs_from_the_claim_not_from_the_hit(floor):
    """A backlog after a worker outage: a task claims a hit decided long ago. The sweep must not
    release that live claim (it did: the timeout was measured from the hit's creation, so every
    sweep released every in-flight award of an old hit, logging false claim timeouts); a claim
    really older than the timeout is released, its dead token settles nothing, the hit is paid once."""
    import redis

    db, svc = floor.db, floor.db.svc
    jp = svc.jackpots
    fund(floor, ["M001"], 50_000)
    for _ in range(2):
        arm(db, "MASS_MINOR")
        assert floor.api.as_machine("M001", "POST", "/api/v1/machines/M001/spin", bet_for("M001")).status_code == 200
        assert jp.fold_all() == 1
    redis.Redis.from_url(floor.redis_url).delete("celery")  # no worker here: this test drives the awards itself
    old = f"interval '{2 * jp.settings.claim_timeout_s:g} seconds'"
    with svc.uow() as uow:
        live, dead = uow.session.scalars(select(JackpotHit.id).order_by(JackpotHit.id)).all()
        uow.session.execute(text(f"UPDATE jackpot_hits SET created_at = created_at - {old}"))
        uow.commit()
    live_token, dead_token = jp.awards.claim(live), jp.awards.claim(dead)
    with svc.uow() as uow:
        uow.session.execute(text(f"UPDATE jackpot_hits SET claimed_at = claimed_at - {old} WHERE id = :h"), {"h": dead})
        uow.commit()
    assert jp.awards.release_stale_claims() == [dead]  # the live claim of an old hit is kept
    assert jp.awards.award(live, live_token) == "awarded"
    assert jp.awards.award(dead, dead_token) is None  # a released claim's token settles nothing
    assert jp.sweeper.run().awarded == [dead]
    assert jp.sweeper.run().awarded == [] and jp.awards.process(dead) is None
    assert_awards_once(floor)
    assert_books(floor.api.audit())
