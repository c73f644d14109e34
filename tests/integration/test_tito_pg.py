"""TITO on the real PostgreSQL, under real concurrency; hold release on a real Celery worker."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

pytestmark = pytest.mark.integration

MACHINES = [f"M{n:03d}" for n in range(2, 21)]


def _post(client, token, path, body):
    return client.post(path, json=body, headers={"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex})


def _redeem_entries(app, vn) -> int:
    with app.extensions["slotsys"].uow.engine.connect() as c:
        rows = c.execute(sa.text("SELECT refs FROM journal_entries WHERE kind = 'tito.redeem'")).scalars().all()
    return sum(1 for refs in rows if refs.get("validation_number") == vn)


def test_1000_concurrent_presentations_across_every_channel_pay_once(pg_app, pg_api):
    api = pg_api
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000})
    vn = api.as_machine("M001", "POST", "/api/v1/machines/M001/cash-out").json["ticket"]["validation_number"]
    cashier, kiosk = api.staff_token("cashier"), api.staff_token("kiosk")
    drawer0 = api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json["expected_cash"]
    validators = {a: threading.Lock() for a in MACHINES}

    def present(i: int):
        c = pg_app.test_client()
        kind = ("two-phase", "cage", "kiosk", "single")[i % 4]
        if kind == "cage":
            return kind, _post(c, cashier, "/api/v1/cage/redeem", {"validation_number": vn}), None
        if kind == "kiosk":
            return kind, _post(c, kiosk, "/api/v1/kiosk/redeem", {"validation_number": vn}), None
        asset = MACHINES[i % len(MACHINES)]
        key = api.key(asset)
        with validators[asset]:  # one bill validator handles one ticket at a time
            if kind == "single":
                return kind, _post(c, key, f"/api/v1/machines/{asset}/ticket-in", {"validation_number": vn}), None
            auth = _post(c, key, f"/api/v1/machines/{asset}/ticket-in/authorize", {"validation_number": vn})
            if auth.status_code != 200:
                return kind, auth, None
            time.sleep(0.05)  # the bill validator stacks the ticket: meanwhile it is pending here
            commit = _post(c, key, f"/api/v1/machines/{asset}/ticket-in/commit",
                           {"validation_number": vn, "transaction_id": auth.json["transaction_id"]})
            return kind, auth, commit

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=24) as pool:
        results = list(pool.map(present, range(1000)))
    elapsed = time.perf_counter() - t0

    paid = [(kind, r) for kind, r, commit in results if kind != "two-phase" and r.status_code == 200]
    paid += [(kind, commit) for kind, r, commit in results if commit is not None and commit.status_code == 200]
    assert len(paid) == 1, Counter((k, r.status_code) for k, r, _ in results)
    refusals = Counter()
    for kind, r, commit in results:
        final = commit if commit is not None else r
        if final.status_code == 200:
            continue
        assert final.status_code == 409, final.json
        refusals[final.json["type"].rsplit("/", 1)[1]] += 1
    assert set(refusals) <= {"ticket-already-redeemed", "ticket-pending-elsewhere"}, refusals
    assert sum(refusals.values()) == 999
    print(f"\n1000 presentations in {elapsed:.1f}s; winner: {paid[0][0]}; refusals: {dict(refusals)}")

    # the ledger moved the amount exactly once, to the winner
    assert _redeem_entries(pg_app, vn) == 1
    audit = api.audit()
    assert audit["balanced"] and audit["tickets"]["ledger_outstanding"] == 0
    credits = sum(api.as_machine(a, "GET", f"/api/v1/machines/{a}/meters", key=None).json["credits"] for a in MACHINES)
    cassette_paid = 100_000_000 - api.as_staff("kiosk", "GET", "/api/v1/kiosks/kiosk1", key=None).json["cassette"]
    drawer_paid = drawer0 - api.as_staff("cashier", "GET", "/api/v1/cage/sessions/current", key=None).json["expected_cash"]
    assert credits + cassette_paid + drawer_paid == 50_000
    look = api.as_staff("auditor", "GET", f"/api/v1/tickets/{vn}", key=None).json
    assert look["status"] == "redeemed"
    assert sum(1 for e in look["events"] if e["kind"] in ("redeemed", "committed")) == 1
    # nobody was locked out: refusals of a ticket on file are not guesses
    sec = api.as_staff("auditor", "GET", "/api/v1/tito/reports/security", key=None).json
    assert "terminal_locked" not in sec["counts"]


def test_reject_and_lost_commit_leave_the_ticket_redeemable(pg_app, pg_api, celery_worker_running, monkeypatch):
    api = pg_api
    svc = pg_app.extensions["slotsys"]
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 10_000})
    vn = api.as_machine("M001", "POST", "/api/v1/machines/M001/cash-out").json["ticket"]["validation_number"]

    # 1. reject: the ticket is back to issued at once
    auth = api.as_machine("M002", "POST", "/api/v1/machines/M002/ticket-in/authorize", {"validation_number": vn})
    assert auth.status_code == 200
    r = api.as_machine("M002", "POST", "/api/v1/machines/M002/ticket-in/reject",
                       {"validation_number": vn, "transaction_id": auth.json["transaction_id"], "reason": "jam"})
    assert r.status_code == 200 and r.json["status"] == "issued"

    # 2. lost commit: M003 authorises and goes silent; after the hold the worker releases it
    monkeypatch.setattr(pg_app.extensions["slotsys"].tito.settings, "hold_seconds", 1.0)
    auth = api.as_machine("M003", "POST", "/api/v1/machines/M003/ticket-in/authorize", {"validation_number": vn})
    assert auth.status_code == 200
    r = api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn})
    assert r.status_code == 409 and r.json["type"].endswith("ticket-pending-elsewhere")
    time.sleep(1.2)
    svc.celery.tasks["tito.release_ticket_holds"].delay()
    status, deadline = None, time.time() + 20
    while time.time() < deadline and status != "issued":
        status = api.as_staff("cashier", "GET", f"/api/v1/tickets/{vn}", key=None).json["status"]
        time.sleep(0.2)
    assert status == "issued", "the worker did not release the lapsed hold"
    late = api.as_machine("M003", "POST", "/api/v1/machines/M003/ticket-in/commit",
                          {"validation_number": vn, "transaction_id": auth.json["transaction_id"]})
    assert late.status_code == 409 and late.json["type"].endswith("ticket-hold-not-found")

    r = api.as_staff("kiosk", "POST", "/api/v1/kiosk/redeem", {"validation_number": vn})
    assert r.status_code == 200 and r.json["paid"] == 10_000
    for asset in ("M002", "M003"):
        assert api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/meters", key=None).json["credits"] == 0
    kinds = [e["kind"] for e in api.as_staff("auditor", "GET", f"/api/v1/tickets/{vn}", key=None).json["events"]]
    assert kinds[:4] == ["issued", "authorised", "rejected", "authorised"] and "released" in kinds
    assert kinds[-1] == "redeemed"
    assert _redeem_entries(pg_app, vn) == 1
    assert api.audit()["balanced"]


def test_concurrent_sas_cash_outs_use_each_sequence_once(pg_app, pg_api):
    """Cash-outs on SAS machines racing each other: every number is the machine's next sequence."""
    from tito.domain.validation import sas_secure_enhanced_number

    api = pg_api
    assets = ["V001", "V002", "V003"]

    def cycle(asset):
        c = pg_app.test_client()
        key = api.key(asset)
        out = []
        for _ in range(8):
            assert _post(c, key, f"/api/v1/machines/{asset}/bill-in", {"amount": 1_000}).status_code == 200
            r = _post(c, key, f"/api/v1/machines/{asset}/cash-out", None)
            assert r.status_code == 201, r.json
            out.append(r.json["ticket"]["validation_number"])
        return asset, out

    secrets_ = {}
    for asset in assets:  # the machine's own validation ID and next sequence (random, shown only to it)
        v = api.as_machine(asset, "GET", f"/api/v1/machines/{asset}/validation", key=None).json
        secrets_[asset] = (v["sas_validation_id"], v["sas_next_sequence"])
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = dict(pool.map(cycle, assets))
    for asset in assets:
        vid, seq = secrets_[asset]
        assert results[asset] == [sas_secure_enhanced_number(vid, (seq + s) & 0xFFFFFF) for s in range(8)]
    sec = api.as_staff("auditor", "GET", "/api/v1/tito/reports/security", key=None).json["sas_sequence"]
    assert sec["tickets_checked"] >= 24 and not [f for f in sec["flagged"] if f["machine"] in assets], sec
    rec = api.as_staff("auditor", "GET", "/api/v1/tito/reports/reconciliation", key=None).json
    assert rec["all_agree"]
