"""Readiness and metrics when what they depend on is down (nothing shared is stopped: the app is pointed at a
closed port instead), and the business counters' rules (after commit, not for a replay) in one process."""

from __future__ import annotations

import socket
import time
import uuid

from prometheus_client.parser import text_string_to_metric_families

from slotsys.app.factory import create_app
from slotsys.kernel.settings import Settings


def _closed_port() -> int:
    with socket.socket() as s:  # bound, never listening, then closed: nothing answers there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _samples(text: str) -> dict:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_readyz_is_503_problem_when_postgresql_is_down(tmp_path):
    port = _closed_port()
    app = create_app(Settings(database_url=f"postgresql://postgres@127.0.0.1:{port}/slotsys", redis_url=None,
                              celery_eager=True, credentials_file=tmp_path / "c.json"))
    try:
        client = app.test_client()
        t0 = time.monotonic()
        r = client.get("/readyz")
        assert time.monotonic() - t0 < 10
        assert r.status_code == 503 and r.headers["Content-Type"] == "application/problem+json"
        assert r.json["type"].endswith("/not-ready") and r.json["field"] == "database"
        assert r.json["checks"]["database"].startswith("error")
        assert client.get("/healthz").status_code == 200  # alive, just not ready
        # a request that needs the database is a 503 problem too, not a 500
        r = client.get("/api/v1/floor", headers={"Authorization": "Bearer st_nothing"})
        assert r.status_code == 503 and r.headers["Content-Type"] == "application/problem+json", r.json
    finally:
        app.extensions["slotsys"].uow.engine.dispose()


def test_readyz_and_metrics_when_redis_is_down(app, tmp_path):
    """Redis down: /readyz says so (503 naming redis); /metrics still answers at once, broker_up 0."""
    port = _closed_port()
    db = app.extensions["slotsys"].settings.database_url
    other = create_app(Settings(database_url=db, redis_url=f"redis://127.0.0.1:{port}/5", celery_eager=True,
                                credentials_file=tmp_path / "c.json"))
    client = other.test_client()
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json["field"] == "redis" and r.json["checks"]["database"] == "ok"
    t0 = time.monotonic()
    r = client.get("/metrics")
    assert r.status_code == 200 and time.monotonic() - t0 < 3
    m = _samples(r.get_data(as_text=True))
    assert m[("slotsys_celery_broker_up", ())] == 0
    assert not any(k[0] == "slotsys_celery_queue_depth" for k in m)


def test_business_counters_count_after_commit_and_not_replays(api):
    def metric(name, **labels):
        text = api.client.get("/metrics").get_data(as_text=True)
        return _samples(text).get((name, tuple(sorted(labels.items()))), 0.0)

    spins, coin_in = metric("slotsys_spins_total"), metric("slotsys_coin_in_won_total")
    kiosk = metric("slotsys_ticket_redemptions_total", channel="kiosk")
    machine = metric("slotsys_ticket_redemptions_total", channel="machine")
    kiosk_won = metric("slotsys_ticket_redeemed_won_total", channel="kiosk")
    api.as_machine("M009", "POST", "/api/v1/machines/M009/bill-in", {"amount": 10_000})
    key = uuid.uuid4().hex
    first = api.as_machine("M009", "POST", "/api/v1/machines/M009/spin", {"lines": 10, "multiplier": 1}, key=key)
    again = api.as_machine("M009", "POST", "/api/v1/machines/M009/spin", {"lines": 10, "multiplier": 1}, key=key)
    assert first.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    refused = api.as_machine("M009", "POST", "/api/v1/machines/M009/spin", {"lines": 10, "multiplier": 10_000})
    assert refused.status_code == 422  # refused: nothing committed, nothing counted
    assert metric("slotsys_spins_total") == spins + 1
    assert metric("slotsys_coin_in_won_total") == coin_in + first.json["bet"]["won"] == coin_in + 1_000
    # two tickets: one into another machine (single-call ticket-in), one at the kiosk; each replayed once
    tickets = []
    for _ in range(2):
        api.as_machine("M009", "POST", "/api/v1/machines/M009/bill-in", {"amount": 1_000})
        tickets.append(api.as_machine("M009", "POST", "/api/v1/machines/M009/cash-out").json["ticket"])
    key = uuid.uuid4().hex
    for _ in range(2):
        r = api.as_machine("M010", "POST", "/api/v1/machines/M010/ticket-in",
                           {"validation_number": tickets[0]["validation_number"]}, key=key)
        assert r.status_code == 200, r.json
    key = uuid.uuid4().hex
    for _ in range(2):
        r = api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": tickets[1]["validation_number"]},
                         key=key)
        assert r.status_code == 200, r.json
    assert metric("slotsys_ticket_redemptions_total", channel="machine") == machine + 1
    assert metric("slotsys_ticket_redemptions_total", channel="kiosk") == kiosk + 1
    assert metric("slotsys_ticket_redeemed_won_total", channel="kiosk") == kiosk_won + tickets[1]["amount"]
