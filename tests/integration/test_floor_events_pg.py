"""Machine heartbeat, offline detection and alerts on the real PostgreSQL under real concurrency: the offline sweep
run by a real Celery worker marks a silent machine offline (one comms_lost, however many sweeps run at once), its
next requests bring it back once; of concurrent acknowledgements of one alert exactly one wins."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration


def _events(api, asset, **q):
    qs = "&".join(f"{k}={v}" for k, v in q.items())
    r = api.as_staff("attendant", "GET", f"/api/v1/machines/{asset}/events?{qs}", key=None)
    assert r.status_code == 200, r.json
    return r.json


def test_silent_machine_goes_offline_once_and_comes_back_once(pg_app, pg_api, celery_worker_running):
    api = pg_api
    svc = pg_app.extensions["slotsys"].events
    svc.settings = svc.settings.model_copy(update={"machine_offline_after_s": 1.0, "machine_heartbeat_write_s": 0})
    for asset in ("M001", "M002", "M003"):
        assert api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).status_code == 200
    assert _events(api, "M001")["link"]["online"] is True
    time.sleep(1.3)
    api.as_machine("M003", "GET", "/api/v1/machines/M003/meters", key=None)  # M003 keeps talking

    # the periodic task, run by a real Celery worker
    celery = pg_app.extensions["slotsys"].celery
    celery.tasks["slotsys.machines_offline_sweep"].delay()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _events(api, "M002")["link"]["online"]:
        time.sleep(0.2)
    for asset in ("M001", "M002"):
        log = _events(api, asset, kind="comms_lost")
        assert log["link"]["online"] is False and len(log["events"]) == 1, log
        assert log["events"][0]["source"] == "system" and log["events"][0]["detail"]["silent_for_s"] >= 1.0
    assert _events(api, "M003")["link"]["online"] is True and not _events(api, "M003", kind="comms_lost")["events"]
    alerts = api.as_staff("attendant", "GET", "/api/v1/alerts?kind=comms_lost&state=active", key=None).json["alerts"]
    assert sorted(a["machine"] for a in alerts) == ["M001", "M002"]
    assert all(a["severity"] == "critical" for a in alerts)

    # four sweeps at once over two more silent machines: SKIP LOCKED, exactly one comms_lost each
    for asset in ("M005", "M006"):
        api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None)
    time.sleep(1.3)
    with ThreadPoolExecutor(max_workers=4) as pool:
        swept = list(pool.map(lambda _: svc.sweep_offline().model_dump(), range(4)))
    assert sorted(a for s in swept for a in s["offline"]) == ["M003", "M005", "M006"]
    for asset in ("M005", "M006"):
        assert len(_events(api, asset, kind="comms_lost")["events"]) == 1

    # M001 comes back with a burst of concurrent requests: one comms_restored, its alert resolved by the system
    def ping(_):
        c = pg_app.test_client()
        return c.get("/api/v1/machines/M001/meters", headers={"Authorization": f"Bearer {api.key('M001')}"}).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(ping, range(16))) == {200}
    log = _events(api, "M001", kind="comms_restored")
    assert log["link"]["online"] is True and len(log["events"]) == 1
    assert log["events"][0]["detail"]["offline_for_s"] >= 0
    lost = next(a for a in alerts if a["machine"] == "M001")
    after = api.as_staff("attendant", "GET", "/api/v1/alerts?machine=M001&kind=comms_lost", key=None).json["alerts"]
    assert next(a for a in after if a["id"] == lost["id"])["state"] == "resolved"


def test_concurrent_acknowledgements_one_wins(pg_app, pg_api):
    api = pg_api
    r = api.as_machine("M004", "POST", "/api/v1/machines/M004/events", {"kind": "printer_paper_out"})
    assert r.status_code == 201, r.json
    aid = r.json["events"][0]["alert_id"]
    tokens = [api.staff_token("attendant"), api.staff_token("supervisor"), api.staff_token("admin")]

    def ack(i: int):
        c = pg_app.test_client()
        return c.post(f"/api/v1/alerts/{aid}/acknowledge",
                      headers={"Authorization": f"Bearer {tokens[i % 3]}", "X-Request-ID": uuid.uuid4().hex})

    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(ack, range(24)))
    codes = [r.status_code for r in results]
    assert codes.count(200) == 1, codes
    assert all(c == 409 for c in codes if c != 200)
    winner = next(r.json for r in results if r.status_code == 200)
    final = next(a for a in api.as_staff("auditor", "GET", "/api/v1/alerts?machine=M004", key=None).json["alerts"]
                 if a["id"] == aid)
    assert final["state"] == "acknowledged" and final["acknowledged_by"] == winner["acknowledged_by"]
    assert final["acknowledged_at"] == winner["acknowledged_at"]
