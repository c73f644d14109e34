"""Long-lived jackpot streams off the request threads, with real processes: gunicorn with the production conf
(its AdmissionWorker hands streams to an event loop), ``slotsys streams`` (aiohttp), a private redis-server
(pub/sub is global to a Redis server, so other tests' publishes stay out) and PostgreSQL; and ``slotsys run``
(the ``make run`` shape: one worker, SQLite, in-process broadcast).

Before this work each open stream held a gunicorn thread until the client left: 8 streams froze a 2 × 4-thread
node (spins and /healthz timed out), and there was no stream server to route to.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.integration._procs import (BIN, FloorDb, Gunicorn, PrivateRedis, Proc, free_port, service_env, tail,
                                      wait_until)
from tests.integration._sse import Crowd

pytestmark = pytest.mark.integration

JACKPOTS = "/api/v1/jackpots/stream"
SCREENS = "/api/v1/screens/jackpot-stream"
CHANNEL = "slotsys:jackpots"
LINE_BET = {"lines": 10, "multiplier": 1}  # ₩1,000 on a MASS line machine (M001, M003, …)
WAYS_BET = {"reels": 3, "multiplier": 1}


class StreamServer(Proc):
    def __init__(self, env: dict, tmp: Path, name: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        super().__init__([BIN / "slotsys", "streams", "--port", self.port], env, tmp / f"streams-{name}.log")

    def start(self) -> "StreamServer":
        super().start()
        assert wait_until(lambda: self.alive() and httpx.get(self.base + "/healthz", timeout=2).status_code == 200,
                          timeout=60), f"slotsys streams did not come up:\n{tail(self.log)}"
        return self

    def streams(self) -> int:
        return httpx.get(self.base + "/healthz", timeout=5).json()["streams"]


class Floor:
    def __init__(self, server_url: str, tmp: Path) -> None:
        self.tmp = tmp
        self.redis = PrivateRedis(tmp).start()
        self.procs: list[Proc] = [self.redis]
        self.db = FloorDb(server_url, tmp, self.redis.url)
        self.creds = self.db.creds
        self.keys = {m["asset"]: m["key"] for m in self.creds["machines"]}

    def env(self, **extra: str) -> dict:
        return service_env(self.db.url, self.redis.url, self.tmp, **extra)

    def start(self, proc):
        self.procs.append(proc)
        return proc.start()

    def publish(self, message: dict) -> int:
        import redis

        client = redis.Redis.from_url(self.redis.url)
        try:
            return client.publish(CHANNEL, json.dumps(message))
        finally:
            client.close()

    def close(self) -> None:
        for p in reversed(self.procs):
            p.stop()
        self.db.drop()


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    from tests.conftest import _pg_url

    url = _pg_url()
    if not url or not os.environ.get("REDIS_URL"):
        pytest.skip("integration: set DATABASE_URL (PostgreSQL) and REDIS_URL to run against the real services")
    f = Floor(url, tmp_path_factory.mktemp("streams"))
    try:
        # the node and a stream server sized for the crowd: 10 streams per machine, 30 s lifetime
        crowd_env = f.env(SLOTSYS_STREAM_PER_PRINCIPAL="10", SLOTSYS_STREAM_MAX_LIFETIME_S="30",
                          SLOTSYS_STREAM_BUFFER="16")
        f.web = f.start(Gunicorn(crowd_env, f.tmp, workers=2, threads=4))
        f.streams = f.start(StreamServer(crowd_env, f.tmp, "a"))
        # a stream server with short limits
        f.short = f.start(StreamServer(f.env(SLOTSYS_STREAM_PER_PRINCIPAL="2", SLOTSYS_STREAM_MAX_LIFETIME_S="3",
                                             SLOTSYS_STREAM_HEARTBEAT_S="0.5"), f.tmp, "b"))
        for asset in ("M001", "M002", "M003", "M004"):
            r = call(f.web.base, "POST", f"/api/v1/machines/{asset}/bill-in", f.keys[asset], {"amount": 50_000})
            assert r.status_code in (200, 201), r.text
    except BaseException:
        f.close()
        raise
    yield f
    f.close()


def call(base: str, method: str, path: str, token: str, body=None, timeout: float = 10.0) -> httpx.Response:
    return httpx.request(method, base + path, json=body, timeout=timeout,
                         headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def staff_token(base: str, creds: dict, role: str = "operator") -> str:
    s = next(s for s in creds["staff"] if s["role"] == role)
    r = httpx.post(base + "/api/v1/auth/login", json={"username": s["username"], "password": s["password"]}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["token"]


def stream_url(base: str, token: str) -> str:
    r = httpx.post(base + "/api/v1/screens/stream-token", headers=bearer(token), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["stream_url"]


def spins_and_health(base: str, keys: dict, n: int = 16) -> tuple[list[float], list[float]]:
    """Sequential spins on M001-M004 and /healthz probes; seconds each (a timeout counts as 10 s)."""
    spins, health = [], []
    assets = ["M001", "M002", "M003", "M004"]
    for i in range(n):
        a = assets[i % 4]
        t = time.perf_counter()
        try:
            r = call(base, "POST", f"/api/v1/machines/{a}/spin", keys[a], LINE_BET if int(a[1:]) % 2 else WAYS_BET,
                     timeout=10)
            assert r.status_code == 200, r.text
            spins.append(time.perf_counter() - t)
        except httpx.TimeoutException:
            spins.append(10.0)
        t = time.perf_counter()
        try:
            assert httpx.get(base + "/healthz", timeout=10).status_code == 200
            health.append(time.perf_counter() - t)
        except httpx.TimeoutException:
            health.append(10.0)
    return spins, health


def test_hundreds_of_streams_leave_spins_and_healthz_answered(floor):
    assets = sorted(floor.keys)
    crowd = Crowd()
    try:
        token = staff_token(floor.web.base, floor.creds)
        on_server = [(JACKPOTS, bearer(floor.keys[assets[i % len(assets)]])) for i in range(240)]
        on_server += [(stream_url(floor.web.base, token), {}) for _ in range(8)]  # the pages' token streams
        # a deployment without the proxy: streams straight at gunicorn (2 workers × 4 threads)
        on_web = [(JACKPOTS, bearer(floor.keys[assets[i % len(assets)]])) for i in range(60)]
        opened = crowd.open(floor.streams.port, on_server) + crowd.open(floor.web.port, on_web)
        bad = [(c.path, c.status, c.error, c.text()[:200]) for c in opened if c.status != 200]
        assert not bad, bad[:5]
        assert floor.streams.streams() == len(on_server)

        spins, health = spins_and_health(floor.web.base, floor.keys)
        assert max(spins) < 2.0 and statistics.median(spins) < 0.5, spins
        assert max(health) < 1.0, health
        assert httpx.get(floor.streams.base + "/healthz", timeout=2).status_code == 200

        time.sleep(2.5)  # a heartbeat snapshot after 2 s of silence
        assert all(not c.ended and c.events >= 2 for c in opened), \
            [(c.path, c.events, c.error) for c in opened if c.ended or c.events < 2][:5]
        assert all(c.text().startswith("event: meters\ndata: {") or "\r\nevent: meters\ndata: {" in c.text()
                   for c in opened)
    finally:
        crowd.close()
    assert wait_until(lambda: floor.streams.streams() == 0, timeout=10), floor.streams.streams()


def test_the_per_principal_cap_answers_429_with_retry_after(floor):
    crowd = Crowd()
    try:
        key = bearer(floor.keys["V001"])
        first = crowd.open(floor.streams.port, [(JACKPOTS, key)] * 10)
        assert [c.status for c in first] == [200] * 10
        [over] = crowd.open(floor.streams.port, [(JACKPOTS, key)])
        assert over.status == 429, (over.head, over.text())
        assert "retry-after: 5" in over.head.lower() and "application/problem+json" in over.head
        body = json.loads(over.body)
        assert body["type"].endswith("/too-many-streams") and body["status"] == 429
        # another caller is not affected
        [other] = crowd.open(floor.streams.port, [(JACKPOTS, bearer(floor.keys["V002"]))])
        assert other.status == 200
        # bad credentials are 401 problem+json, nothing opened
        [anon] = crowd.open(floor.streams.port, [(JACKPOTS, {})])
        [forged] = crowd.open(floor.streams.port, [(SCREENS + "?token=e30.forged", {})])
        assert anon.status == 401 and forged.status == 401 and json.loads(forged.body)["field"] == "token"
    finally:
        crowd.close()


def test_the_lifetime_limit_ends_a_stream(floor):
    crowd = Crowd()
    try:
        [c] = crowd.open(floor.short.port, [(JACKPOTS, bearer(floor.keys["V003"]))])
        assert c.status == 200
        assert wait_until(lambda: c.ended, timeout=15), "the stream did not end"
        lasted = c.ended_at - c.opened_at
        assert 2.5 < lasted < 8, lasted
        assert c.events >= 3  # the snapshot and heartbeat snapshots every 0.5 s
        assert wait_until(lambda: floor.short.streams() == 0, timeout=5)
    finally:
        crowd.close()


def test_a_message_published_on_redis_reaches_every_stream_client(floor):
    crowd = Crowd()
    try:
        conns = crowd.open(floor.streams.port, [(JACKPOTS, bearer(floor.keys[a])) for a in ("V004", "V005")])
        conns += crowd.open(floor.web.port, [(JACKPOTS, bearer(floor.keys[f"V00{i}"])) for i in range(6, 10)] * 2)
        assert [c.status for c in conns] == [200] * len(conns)
        assert wait_until(lambda: all(c.events >= 1 for c in conns), timeout=10)
        marker = uuid.uuid4().hex
        hit = {"event": "hit", "hit": 1, "level": "MASS_MINOR", "machine": "M001", "zone": "MASS", "amount": 31_000,
               "new_value": 30_000, "at": marker}
        t = time.monotonic()
        assert floor.publish(hit) >= 2  # the stream server and at least one gunicorn worker: one subscription each
        frame = f"event: hit\ndata: {json.dumps(hit)}\n\n"
        assert wait_until(lambda: all(frame in c.text() for c in conns), timeout=5, step=0.05), \
            [c.text()[-300:] for c in conns if frame not in c.text()][:2]
        assert time.monotonic() - t < 2.0
    finally:
        crowd.close()


def test_a_stalled_reader_is_disconnected_not_buffered(floor):
    crowd = Crowd()
    try:
        assert wait_until(lambda: floor.streams.streams() == 0, timeout=10)  # earlier tests' clients are gone
        before = 0
        [reader] = crowd.open(floor.streams.port, [(JACKPOTS, bearer(floor.keys["M010"]))])
        [stalled] = crowd.open(floor.streams.port, [(JACKPOTS, bearer(floor.keys["M011"]))], read=False)
        assert reader.status == stalled.status == 200 and floor.streams.streams() == before + 2
        pad = "x" * 32_000
        for i in range(600):  # ~19 MB: more than the socket buffers hold, so the stalled client's queue fills
            floor.publish({"event": "noise", "i": i, "pad": pad})
            time.sleep(0.003)
        assert wait_until(lambda: floor.streams.streams() == before + 1, timeout=10), floor.streams.streams()
        assert not reader.ended and reader.events > 100
    finally:
        crowd.close()


def test_without_the_hand_off_the_flask_route_is_bounded(floor):
    """A node run without the hand-off (or another WSGI server) serves at most STREAM_WSGI_MAX streams per
    process on its threads (503 + Retry-After beyond) for at most the lifetime: spins keep their threads."""
    web = floor.start(Gunicorn(floor.env(SLOTSYS_STREAM_HANDOFF="false", SLOTSYS_STREAM_WSGI_MAX="2",
                                         SLOTSYS_STREAM_MAX_LIFETIME_S="4"), floor.tmp, workers=1, threads=4))
    crowd = Crowd()
    try:
        key = bearer(floor.keys["V010"])
        held = crowd.open(web.port, [(JACKPOTS, key)] * 2)
        assert [c.status for c in held] == [200, 200]
        [over] = crowd.open(web.port, [(JACKPOTS, key)])
        assert over.status == 503 and "retry-after: 5" in over.head.lower(), over.head
        assert json.loads(over.body)["type"].endswith("/overloaded")
        spins, health = spins_and_health(web.base, floor.keys, n=8)
        assert max(spins) < 2.0 and max(health) < 1.0, (spins, health)
        assert wait_until(lambda: all(c.ended for c in held), timeout=10)
        assert all(3.5 < c.ended_at - c.opened_at < 9 for c in held)
        [again] = crowd.open(web.port, [(JACKPOTS, key)])
        assert again.status == 200
    finally:
        crowd.close()
        web.stop()


def test_make_run_shape_more_streams_than_threads_leave_spins_answered(tmp_path):
    """``slotsys run`` (one worker, 2 threads here, SQLite, in-process broadcast): 24 streams, same-origin."""
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SLOTSYS_") and k not in ("REDIS_URL", "DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'floor.db'}", SLOTSYS_PORT=str(port),
               SLOTSYS_CREDENTIALS_FILE=str(tmp_path / "creds.json"), SLOTSYS_LOG_LEVEL="WARNING",
               SLOTSYS_STREAM_PER_PRINCIPAL="4")
    run = Proc([BIN / "slotsys", "run", "--threads", "2"], env, tmp_path / "run.log").start()
    base = f"http://127.0.0.1:{port}"
    crowd = Crowd()
    try:
        assert wait_until(lambda: httpx.get(base + "/readyz", timeout=2).status_code == 200, timeout=90), tail(run.log)
        creds = json.loads((tmp_path / "creds.json").read_text())
        keys = {m["asset"]: m["key"] for m in creds["machines"]}
        token = staff_token(base, creds)
        reqs = [(JACKPOTS, bearer(keys[f"V00{i}"])) for i in range(1, 6)] * 4 + \
               [(stream_url(base, token), {}) for _ in range(4)]
        conns = crowd.open(port, reqs)
        assert [c.status for c in conns] == [200] * len(conns), [(c.status, c.text()[:200]) for c in conns]
        [over] = crowd.open(port, [(JACKPOTS, bearer(keys["V001"]))])  # the per-principal cap (4 here)
        assert over.status == 429 and "retry-after" in over.head.lower()
        for a in ("M001", "M002", "M003", "M004"):
            r = call(base, "POST", f"/api/v1/machines/{a}/bill-in", keys[a], {"amount": 50_000})
            assert r.status_code in (200, 201), r.text
        spins, health = spins_and_health(base, keys, n=12)
        assert max(spins) < 2.0 and max(health) < 1.0, (spins, health)
        time.sleep(2.5)
        assert all(not c.ended and c.events >= 2 for c in conns)
        # the tester's report, on this shape: an auditor's stream ends within ~2 s of its logout, saying why
        auditor = staff_token(base, creds, role="auditor")
        [mine] = crowd.open(port, [(JACKPOTS, bearer(auditor))])
        assert mine.status == 200 and wait_until(lambda: mine.events >= 1, timeout=10)
        assert call(base, "POST", "/api/v1/auth/logout", auditor).status_code == 200
        t = time.monotonic()
        assert wait_until(lambda: mine.ended, timeout=10, step=0.05) and mine.ended_at - t < 2.5
        assert ended_revoked(mine), mine.text()[-200:]
        for raw in ("abc", "-1", "99999999999999999999"):
            [bad] = crowd.open(port, [(f"{JACKPOTS}?max_seconds={raw}", bearer(keys["V005"]))])
            assert bad.status == 422 and json.loads(bad.body)["field"] == "max_seconds", (raw, bad.head, bad.body)
        assert all(not c.ended for c in conns)  # the machines' and the signage streams go on
    finally:
        crowd.close()
        run.stop()


REVOKED = 'end\ndata: {"reason": "revoked"}\n\n'


def ended_revoked(c) -> bool:
    """The stream's last event is ``event: end`` with reason ``revoked`` (chunk framing aside)."""
    return c.text().rsplit("event: ", 1)[-1].startswith(REVOKED)


def _staff(creds: dict, role: str) -> dict:
    return next(s for s in creds["staff"] if s["role"] == role)


def test_logout_ends_open_streams_on_the_hand_off_and_the_stream_server(floor):
    """A staff token's open streams (gunicorn hand-off and ``slotsys streams``, another process told through
    Redis) end within ~2 s of its logout with ``event: end`` reason ``revoked``; a machine's stream goes on."""
    token = staff_token(floor.web.base, floor.creds, role="auditor")
    crowd = Crowd()
    try:
        conns = crowd.open(floor.web.port, [(JACKPOTS, bearer(token))] * 2)
        conns += crowd.open(floor.streams.port, [(JACKPOTS, bearer(token))] * 2)
        [machine] = crowd.open(floor.streams.port, [(JACKPOTS, bearer(floor.keys["M012"]))])
        assert [c.status for c in conns + [machine]] == [200] * 5
        assert wait_until(lambda: all(c.events >= 1 for c in conns), timeout=10)
        time.sleep(1.2)  # the credential is in every process's cache and has been re-checked once
        assert not any(c.ended for c in conns)
        r = call(floor.web.base, "POST", "/api/v1/auth/logout", token)
        assert r.status_code == 200 and r.json()["revoked"] is True, r.text
        t = time.monotonic()
        assert wait_until(lambda: all(c.ended for c in conns), timeout=10, step=0.05), [c.text()[-200:] for c in conns]
        assert max(c.ended_at for c in conns) - t < 2.5, [c.ended_at - t for c in conns]
        assert all(ended_revoked(c) for c in conns), [c.text()[-120:] for c in conns]
        assert not machine.ended
        [again] = crowd.open(floor.streams.port, [(JACKPOTS, bearer(token))])
        assert again.status == 401
    finally:
        crowd.close()


def test_a_password_change_ends_the_owners_signage_streams(floor):
    """A stream token (signage, ``?token=``) is re-checked against its owner: a password change (every token of
    the user revoked) ends its streams on both paths with ``event: end`` reason ``revoked``."""
    s = _staff(floor.creds, "auditor")
    token = staff_token(floor.web.base, floor.creds, role="auditor")
    url = stream_url(floor.web.base, token)
    crowd = Crowd()
    try:
        conns = crowd.open(floor.web.port, [(url, {})]) + crowd.open(floor.streams.port, [(url, {})])
        assert [c.status for c in conns] == [200, 200]
        assert wait_until(lambda: all(c.events >= 1 for c in conns), timeout=10)
        new = s["password"] + "-Changed-7"
        r = httpx.post(floor.web.base + "/api/v1/auth/password", headers=bearer(token), timeout=30,
                       json={"old_password": s["password"], "new_password": new})
        assert r.status_code == 200, r.text
        t = time.monotonic()
        try:
            assert wait_until(lambda: all(c.ended for c in conns), timeout=10, step=0.05)
            assert max(c.ended_at for c in conns) - t < 2.5
            assert all(ended_revoked(c) for c in conns), [c.text()[-120:] for c in conns]
        finally:  # the module's other tests sign in with the seeded password
            r = httpx.post(floor.web.base + "/api/v1/auth/login", json={"username": s["username"], "password": new},
                           timeout=30)
            assert r.status_code == 200, r.text
            r = httpx.post(floor.web.base + "/api/v1/auth/password", headers=bearer(r.json()["token"]), timeout=30,
                           json={"old_password": new, "new_password": s["password"]})
            assert r.status_code == 200, r.text
    finally:
        crowd.close()


BAD_MAX_SECONDS = ["abc", "-1", "99999999999999999999", "inf", "nan", "", "86401"]


def _assert_422_max_seconds(status: int, body: bytes | str, where: str) -> None:
    assert status == 422, (where, status, body)
    problem = json.loads(body)
    assert problem["status"] == 422 and problem["field"] == "max_seconds", (where, problem)
    assert problem["type"].endswith("/validation-failed"), (where, problem)


def test_a_bad_max_seconds_is_422_on_every_path(floor):
    """The Flask route (a node without the hand-off), the gunicorn hand-off and ``slotsys streams``: the same
    422 problem naming ``max_seconds``, and nothing is opened; a good value still streams and ends. The Flask
    route's stream also ends on logout (heartbeat 2 s + re-check 1 s)."""
    flask = floor.start(Gunicorn(floor.env(SLOTSYS_STREAM_HANDOFF="false"), floor.tmp, workers=1, threads=2))
    key = bearer(floor.keys["M013"])
    crowd = Crowd()
    try:
        for raw in BAD_MAX_SECONDS:
            r = httpx.get(flask.base + JACKPOTS, params={"max_seconds": raw}, headers=key, timeout=10)
            _assert_422_max_seconds(r.status_code, r.content, f"flask {raw!r}")
            for port in (floor.web.port, floor.streams.port):
                [c] = crowd.open(port, [(f"{JACKPOTS}?max_seconds={raw}", key)])
                _assert_422_max_seconds(c.status, c.body, f"{port} {raw!r}")
                assert "application/problem+json" in c.head.lower()
        # the Flask route re-checks its credential too: a logout ends it with event: end revoked
        token = staff_token(floor.web.base, floor.creds, role="auditor")
        [mine] = crowd.open(flask.port, [(JACKPOTS, bearer(token))])
        assert mine.status == 200 and wait_until(lambda: mine.events >= 1, timeout=10)
        assert call(floor.web.base, "POST", "/api/v1/auth/logout", token).status_code == 200
        t = time.monotonic()
        assert wait_until(lambda: mine.ended, timeout=10, step=0.05) and mine.ended_at - t < 4.0, mine.text()[-200:]
        assert ended_revoked(mine), mine.text()[-200:]
        conns = crowd.open(floor.web.port, [(f"{JACKPOTS}?max_seconds=1.5", key)])
        conns += crowd.open(floor.streams.port, [(f"{JACKPOTS}?max_seconds=1.5", key)])
        assert [c.status for c in conns] == [200, 200]
        assert wait_until(lambda: all(c.ended for c in conns), timeout=10)
        assert all(1.0 < c.ended_at - c.opened_at < 5 for c in conns)
    finally:
        crowd.close()
        flask.stop()


def test_a_client_hanging_up_is_one_info_line_not_a_traceback(floor):
    """``slotsys streams`` at INFO: clients that go away mid-stream leave ``stream.client_disconnected`` lines,
    never aiohttp's "Error handling request" traceback."""
    server = floor.start(StreamServer(floor.env(SLOTSYS_LOG_LEVEL="INFO", SLOTSYS_STREAM_HEARTBEAT_S="0.2"),
                                      floor.tmp, "info"))
    try:
        for _ in range(3):
            crowd = Crowd()
            conns = crowd.open(server.port, [(JACKPOTS, bearer(floor.keys["M014"]))] * 3)
            assert [c.status for c in conns] == [200] * 3
            assert wait_until(lambda conns=conns: all(c.events >= 2 for c in conns), timeout=10)
            crowd.close()
        assert wait_until(lambda: server.streams() == 0, timeout=10)
        time.sleep(0.5)
        log = server.log.read_text()
        assert log.count("stream.client_disconnected") >= 1, tail(server.log)
        assert "Error handling request" not in log and "Traceback" not in log, tail(server.log)
    finally:
        server.stop()


def test_zz_a_machine_key_reissue_ends_its_streams(floor):
    """``slotsys seed --reissue`` (new machine keys; the old ones announced on the revocation bus) ends the old
    keys' open streams on the hand-off and on ``slotsys streams`` within ~2 s, not after the 60 s machine-key
    cache. Last in this module: every key and password of the floor changes."""
    key = bearer(floor.keys["M015"])
    crowd = Crowd()
    try:
        conns = crowd.open(floor.web.port, [(JACKPOTS, key)]) + crowd.open(floor.streams.port, [(JACKPOTS, key)])
        assert [c.status for c in conns] == [200, 200]
        assert wait_until(lambda: all(c.events >= 1 for c in conns), timeout=10)
        time.sleep(1.2)
        seed = Proc([BIN / "slotsys", "seed", "--reissue"], floor.env(), floor.tmp / "reissue.log").start()
        assert wait_until(lambda: not seed.alive(), timeout=120) and seed.p.returncode == 0, tail(seed.log)
        t = time.monotonic()
        assert wait_until(lambda: all(c.ended for c in conns), timeout=10, step=0.05), tail(seed.log)
        assert max(c.ended_at for c in conns) - t < 2.5, [c.ended_at - t for c in conns]
        assert all(ended_revoked(c) for c in conns), [c.text()[-120:] for c in conns]
    finally:
        crowd.close()
        new = json.loads((floor.tmp / "creds.json").read_text())
        floor.creds, floor.keys = new, {m["asset"]: m["key"] for m in new["machines"]}
