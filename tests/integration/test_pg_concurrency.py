"""Exactly-once on the real PostgreSQL, under real concurrency; tasks on a real Celery worker."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from slotsys.kernel.money import contribution_milli
from tests.conftest import Api

pytestmark = pytest.mark.integration


def _fresh(app) -> Api:
    return Api(app)


def test_one_ticket_presented_concurrently_everywhere_pays_once(pg_app, pg_api):
    api = pg_api
    api.as_machine("M001", "POST", "/api/v1/machines/M001/bill-in", {"amount": 50_000})
    vn = api.as_machine("M001", "POST", "/api/v1/machines/M001/cash-out").json["ticket"]["validation_number"]
    cashier = api.staff_token("cashier")
    machines = [f"M{n:03d}" for n in range(2, 12)]

    def present(i: int):
        c = pg_app.test_client()
        if i % 2:
            return c.post("/api/v1/cage/redeem", json={"validation_number": vn},
                          headers={"Authorization": f"Bearer {cashier}", "Idempotency-Key": uuid.uuid4().hex})
        asset = machines[i % len(machines)]
        return c.post(f"/api/v1/machines/{asset}/ticket-in", json={"validation_number": vn},
                      headers={"Authorization": f"Bearer {api.key(asset)}", "Idempotency-Key": uuid.uuid4().hex})

    with ThreadPoolExecutor(max_workers=24) as pool:
        results = list(pool.map(present, range(120)))
    codes = [r.status_code for r in results]
    assert codes.count(200) == 1, codes
    assert all(c == 409 for c in codes if c != 200)
    assert all(r.json["type"].endswith("ticket-already-redeemed") for r in results if r.status_code == 409)
    audit = api.audit()
    assert audit["balanced"] and audit["tickets"]["ledger_outstanding"] == 0


def test_concurrent_retries_with_one_key_spin_once(pg_app, pg_api):
    api = pg_api
    api.as_machine("M013", "POST", "/api/v1/machines/M013/bill-in", {"amount": 50_000})
    key = uuid.uuid4().hex

    def spin(_):
        c = pg_app.test_client()
        return c.post("/api/v1/machines/M013/spin", json={"lines": 50, "multiplier": 1},
                      headers={"Authorization": f"Bearer {api.key('M013')}", "Idempotency-Key": key})

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(spin, range(40)))
    assert {r.status_code for r in results} == {200}
    assert len({r.data for r in results}) == 1
    meters = api.as_machine("M013", "GET", "/api/v1/machines/M013/meters", key=None).json["meters"]
    assert meters["games_played"] == 1
    assert api.audit()["balanced"]


def test_concurrent_machines_mystery_hits_exactly_once_and_no_contribution_lost(pg_app, pg_api):
    """20 MASS machines spin at once on a fast level: each cycle is awarded once, the
    contributions equal the meter's growth plus awards, and the ceiling is never passed."""
    from jackpot_controller.adapters.tables import JackpotLevel

    api = pg_api
    svc = pg_app.extensions["slotsys"]
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one()
        start_cycle, rate = lv.cycle, lv.rate_ppm
        start_contributed, start_hits = lv.contributed_milli, lv.hits
    machines = [f"M{n:03d}" for n in range(1, 21)]
    for m in machines:
        assert api.as_machine(m, "POST", f"/api/v1/machines/{m}/bill-in", {"amount": 50_000}).status_code == 200
    # Force frequent hits: put the trigger close to the meter (the level's next triggers come from its range).
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").with_for_update().one()
        lv.trigger_milli = lv.value_milli + 2_000_000
        uow.commit()

    def play(asset: str):
        c = pg_app.test_client()
        out = []
        for _ in range(15):
            r = c.post(f"/api/v1/machines/{asset}/spin", json={"lines": 50, "multiplier": 1} if asset[1:].lstrip("0").isdigit() and int(asset[1:]) % 2 else {"reels": 5, "multiplier": 1},
                       headers={"Authorization": f"Bearer {api.key(asset)}", "Idempotency-Key": uuid.uuid4().hex})
            assert r.status_code in (200, 409), r.json
            if r.status_code == 200:
                out.append(r.json)
        return out

    with ThreadPoolExecutor(max_workers=20) as pool:
        spins = [s for chunk in pool.map(play, machines) for s in chunk]
    svc.jackpots.fold_all()  # the sequencer folds every recorded wager (in production within a second)
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one()
        hits = uow.levels.recent_hits(lv.id, limit=1000)
        expected = sum(contribution_milli(s["bet"]["won"], rate) + contribution_milli(s["bet"]["won"], lv.reserve_rate_ppm)
                       for s in spins if s["machine"].startswith("M"))
        assert lv.contributed_milli - start_contributed == expected  # every wager counted once, none lost
        assert lv.hits - start_hits == len(hits) >= 1
        assert sorted(h.cycle for h in hits) == list(range(start_cycle, start_cycle + len(hits)))  # one award per cycle
        assert sum(h.amount_won for h in hits) == lv.total_won
        assert lv.value_milli <= lv.ceiling_won * 1000
    audit = api.audit()
    assert audit["balanced"], audit


def test_celery_worker_announces_hits_and_expires_tickets(pg_app, pg_api, celery_worker_running):
    from datetime import datetime, timedelta, timezone

    from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel
    from tito.adapters.tables import Ticket

    api = pg_api
    svc = pg_app.extensions["slotsys"]
    with svc.uow() as uow:
        lv = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").with_for_update().one()
        lv.trigger_milli = lv.value_milli + 1_000
        uow.commit()
    api.as_machine("M014", "POST", "/api/v1/machines/M014/bill-in", {"amount": 10_000})
    r = api.as_machine("M014", "POST", "/api/v1/machines/M014/spin", {"reels": 5, "multiplier": 1})
    assert r.status_code == 200
    svc.jackpots.fold_all()  # decides the hit; its award and announcement go to the worker through Redis
    with svc.uow() as uow:
        lv_id = uow.session.query(JackpotLevel).filter_by(code="MASS_MINOR").one().id
        hit_id = uow.levels.recent_hits(lv_id, limit=1)[0].id
    deadline = time.time() + 20
    announced = False
    while time.time() < deadline and not announced:
        with svc.uow() as uow:
            announced = uow.session.get(JackpotHit, hit_id).announced
        time.sleep(0.2)
    assert announced, "the worker did not process the hit announcement"
    # a duplicated task never announces twice
    assert svc.jackpots.announce_hit(hit_id) is False

    api.as_machine("M015", "POST", "/api/v1/machines/M015/bill-in", {"amount": 5_000})
    vn = api.as_machine("M015", "POST", "/api/v1/machines/M015/cash-out").json["ticket"]["validation_number"]
    with svc.uow() as uow:
        t = uow.session.query(Ticket).filter_by(validation_number=vn).one()
        t.expires_at = datetime.now(timezone.utc) - timedelta(seconds=1)
        uow.commit()
    svc.celery.tasks["tito.expire_tickets"].delay()
    status = None
    deadline = time.time() + 20
    while time.time() < deadline and status != "expired":
        with svc.uow() as uow:
            status = uow.session.query(Ticket).filter_by(validation_number=vn).one().status
        time.sleep(0.2)
    assert status == "expired"
    r = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn})
    assert r.status_code == 409 and "expired" in r.json["detail"]
    assert api.audit()["balanced"]


def test_ledger_is_append_only_on_postgresql(pg_app):
    import sqlalchemy as sa

    svc = pg_app.extensions["slotsys"]
    with svc.uow.engine.connect() as c:
        with pytest.raises(sa.exc.DBAPIError, match="append-only"):
            c.execute(sa.text("UPDATE postings SET amount = amount + 1"))
