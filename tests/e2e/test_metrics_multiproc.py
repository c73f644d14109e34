"""/metrics under real gunicorn with 2 worker processes (SQLite floor, tasks in-process), and the JSON logs.

The server runs as production does (``gunicorn -c python:slotsys.server.gunicorn_conf``): Prometheus multiprocess
mode, every worker writing its samples to ``PROMETHEUS_MULTIPROC_DIR``. The test plays spins over fresh
connections until both workers have served some, then checks that every scrape (whichever worker answers it)
reports the totals of both: spins, coin-in, coin-out, jackpot awards, ticket redemptions, the latency
histogram; and that an idempotent replay counts nothing. Per-worker figures are read from each worker's own
sample file, so "both workers served" is shown, not assumed.
"""

from __future__ import annotations

import glob
import json
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client import multiprocess
from prometheus_client.parser import text_string_to_metric_families

from jackpot_controller.adapters.tables import JackpotLevel
from slotsys.kernel.settings import Settings
from tests.conftest import _make_app
from tests.e2e._gunicorn import gunicorn

MACHINES = [f"M{n:03d}" for n in range(1, 9)]  # MASS, ₩100 a credit: odd = lines game, even = ways game


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gunicorn")
    db = f"sqlite:///{tmp / 'floor.db'}"
    app = _make_app(Settings(database_url=db, redis_url=None, celery_eager=True, credentials_file=tmp / "creds.json"))
    creds = app.config["DEMO_CREDENTIALS"]
    with app.extensions["slotsys"].uow() as uow:  # the Minor's secret trigger 1 milli-won away: the next wager hits it
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one()
        lv.trigger_milli = lv.value_milli + 1
        uow.commit()
    app.extensions["slotsys"].uow.engine.dispose()
    with gunicorn(db, tmp, workers=2, threads=4) as srv:
        yield {**srv, "creds": creds}


def _key(creds, asset):
    return next(m["key"] for m in creds["machines"] if m["asset"] == asset)


def _metrics(base) -> dict[tuple[str, tuple], float]:
    r = httpx.get(f"{base}/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for fam in text_string_to_metric_families(r.text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _worker_spins(prom: Path) -> dict[int, float]:
    """Spins per worker pid, from each worker's own sample file."""
    per_pid = {}
    for f in glob.glob(str(prom / "counter_*.db")):
        pid = int(Path(f).stem.split("_")[-1])
        for fam in multiprocess.MultiProcessCollector._read_metrics([f]).values():
            for s in fam.samples:
                if s.name == "slotsys_spins_total":
                    per_pid[pid] = per_pid.get(pid, 0) + s.value
    return per_pid


def _fresh_client() -> httpx.Client:
    # no keep-alive: every request is a new connection, which either worker may accept
    return httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0))


def test_metrics_aggregate_every_gunicorn_worker(server):
    base, creds, prom = server["base"], server["creds"], server["prom"]
    results: list[dict] = []
    errors: list[str] = []
    spin_requests = 0
    shed_seen = 0
    lock = threading.Lock()

    def play(asset: str, spins: int) -> None:
        nonlocal spin_requests, shed_seen
        h = {"Authorization": f"Bearer {_key(creds, asset)}"}
        body = {"lines": 1, "multiplier": 1} if int(asset[1:]) % 2 else {"reels": 1, "multiplier": 1}
        with _fresh_client() as c:
            for _ in range(spins):
                key = uuid.uuid4().hex
                for _attempt in range(20):  # as a machine does: a busy node's 503 is retried with the same key
                    r = c.post(f"{base}/api/v1/machines/{asset}/spin", json=body, headers={**h, "Idempotency-Key": key})
                    if r.status_code != 503 or "Retry-After" not in r.headers:
                        break
                    with lock:
                        shed_seen += 1  # refused by admission control before the app: not a spin request
                    time.sleep(0.2)
                with lock:
                    spin_requests += 1
                    (results.append(r.json()) if r.status_code == 200 else errors.append(f"{asset} {r.status_code} {r.text}"))

    with _fresh_client() as c:
        for asset in MACHINES:
            r = c.post(f"{base}/api/v1/machines/{asset}/bill-in", json={"amount": 50_000},
                       headers={"Authorization": f"Bearer {_key(creds, asset)}", "Idempotency-Key": uuid.uuid4().hex})
            assert r.status_code == 200, r.text
    for _ in range(10):  # until both workers have played (a handful of rounds at most)
        threads = [threading.Thread(target=play, args=(a, 5)) for a in MACHINES]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if len([n for n in _worker_spins(prom).values() if n > 0]) >= 2:
            break
    assert not errors, errors[:5]
    per_worker = _worker_spins(prom)
    assert len([n for n in per_worker.values() if n > 0]) >= 2, per_worker  # both workers served spins
    n = len(results)
    assert sum(per_worker.values()) == n
    coin_in = sum(r["bet"]["won"] for r in results)
    coin_out = sum(r["total_win"] for r in results)
    jackpots: dict[str, list[int]] = {}
    for r in results:
        for j in r["jackpots"]:
            jackpots.setdefault(j["level"], []).append(j["amount"])
    assert "MASS_MINOR" in jackpots  # the trigger set above was crossed by the first MASS wager

    # an idempotent replay counts nothing
    with _fresh_client() as c:
        h = {"Authorization": f"Bearer {_key(creds, 'M001')}", "Idempotency-Key": "replayed-spin"}
        first = c.post(f"{base}/api/v1/machines/M001/spin", json={"lines": 1, "multiplier": 1}, headers=h)
        assert first.status_code == 200
        results.append(first.json())
        n, coin_in, coin_out = n + 1, coin_in + first.json()["bet"]["won"], coin_out + first.json()["total_win"]
        for j in first.json()["jackpots"]:
            jackpots.setdefault(j["level"], []).append(j["amount"])
        again = c.post(f"{base}/api/v1/machines/M001/spin", json={"lines": 1, "multiplier": 1}, headers=h)
        assert again.headers.get("Idempotent-Replayed") == "true" and again.json() == first.json()
        spin_requests += 2

        # a ticket redeemed at the cage (and its replay)
        out = c.post(f"{base}/api/v1/machines/M003/cash-out",
                     headers={"Authorization": f"Bearer {_key(creds, 'M003')}", "Idempotency-Key": uuid.uuid4().hex})
        assert out.status_code == 201, out.text
        ticket = out.json()["ticket"]
        cashier = next(s for s in creds["staff"] if s["role"] == "cashier")
        token = c.post(f"{base}/api/v1/auth/login", json={"username": cashier["username"],
                                                          "password": cashier["password"]}).json()["token"]
        h = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
        for _ in range(2):
            r = c.post(f"{base}/api/v1/cage/redeem", json={"validation_number": ticket["validation_number"]}, headers=h)
            assert r.status_code == 200, r.text

    for _ in range(4):  # every scrape, whichever worker answers, reports both workers' totals
        m = _metrics(base)
        assert m[("slotsys_spins_total", ())] == n
        assert m[("slotsys_coin_in_won_total", ())] == coin_in
        assert m[("slotsys_coin_out_won_total", ())] == coin_out
        for level, amounts in jackpots.items():
            assert m[("slotsys_jackpot_awards_total", (("level", level),))] == len(amounts)
            assert m[("slotsys_jackpot_awarded_won_total", (("level", level),))] == sum(amounts)
        assert m[("slotsys_ticket_redemptions_total", (("channel", "cage"),))] == 1
        assert m[("slotsys_ticket_redeemed_won_total", (("channel", "cage"),))] == ticket["amount"]
        assert m[("slotsys_http_request_seconds_count", (("endpoint", "machines.spin"),))] == spin_requests
        assert m[("slotsys_http_requests_total", (("endpoint", "machines.spin"), ("status", "200")))] == spin_requests
        assert m.get(("slotsys_http_shed_total", (("endpoint", "machines.spin"),)), 0) == shed_seen
    assert server["proc"].poll() is None


def test_a_machine_request_logs_json_with_its_request_id_and_machine(server):
    base, creds = server["base"], server["creds"]
    rid = f"obs-{uuid.uuid4().hex}"
    r = httpx.get(f"{base}/api/v1/machines/M005/meters",
                  headers={"Authorization": f"Bearer {_key(creds, 'M005')}", "X-Request-ID": rid}, timeout=10)
    assert r.status_code == 200 and r.headers["X-Request-ID"] == rid
    # and one refused by the rules: its refusal line carries both too
    r = httpx.post(f"{base}/api/v1/machines/M005/spin", json={"lines": 7, "multiplier": 1}, timeout=10,
                   headers={"Authorization": f"Bearer {_key(creds, 'M005')}", "X-Request-ID": rid,
                            "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == 422
    deadline = time.monotonic() + 5
    lines: list[dict] = []
    while time.monotonic() < deadline:
        lines = []
        for raw in server["log"].read_text().splitlines():
            if rid in raw:
                lines.append(json.loads(raw))  # every line of the request is one JSON object
        if len(lines) >= 3:
            break
        time.sleep(0.2)
    events = [x["event"] for x in lines]
    assert events.count("http.request") == 2 and "request.refused" in events, lines
    for x in lines:
        assert x["request_id"] == rid and x["machine"] == "M005" and x["level"] and x["timestamp"], x
