"""The backup and restore runbook (docs/backup-restore.md), exercised: play a floor on a fresh PostgreSQL
database (bill-ins, spins, cash-outs, tickets redeemed at the cage and in another machine), ``pg_dump -Fc`` it,
``pg_restore`` into a new database, start gunicorn (the production conf) on the restored database and find the
ledger audit balanced with the same balances, tickets and audit figures as before; the restored floor plays on
(its sequences were restored too) and still refuses a ticket that was redeemed before the backup."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import httpx
import pytest
import sqlalchemy as sa

from tests.integration._procs import Gunicorn, service_env

PG_DUMP = shutil.which("pg_dump") or "/usr/bin/pg_dump"
PG_RESTORE = shutil.which("pg_restore") or "/usr/bin/pg_restore"
VOLATILE = {"generated_at", "checked_at", "at", "now", "as_of"}  # the audit's clock, if it reports one


def _state(url: str) -> dict:
    eng = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with eng.connect() as c:
            return {
                "balances": c.execute(sa.text("SELECT code, balance FROM accounts ORDER BY code")).all(),
                "tickets": c.execute(sa.text(
                    "SELECT validation_number, status, amount, type FROM tickets ORDER BY validation_number")).all(),
                "game_rounds": c.execute(sa.text("SELECT count(*), max(id) FROM game_rounds")).one(),
                "idempotency_records": c.execute(sa.text("SELECT count(*) FROM idempotency_records")).scalar_one(),
            }
    finally:
        eng.dispose()


def _strip(audit: dict) -> dict:
    return {k: v for k, v in audit.items() if k not in VOLATILE}


def _play(api) -> list[str]:
    """A small floor's evening: returns the validation numbers redeemed before the backup."""
    redeemed = []
    for i, asset in enumerate(("M001", "M002", "M003", "M004", "M005", "M006")):
        r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 50_000})
        assert r.status_code == 200, r.json
        # odd machines run the 50-line game, even ones the 243-ways reel-cost game (slotsys/app/seed.py)
        body = {"lines": 20, "multiplier": 1} if int(asset[1:]) % 2 else {"reels": 3, "multiplier": 1}
        for _ in range(5):
            r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/spin", body)
            assert r.status_code in (200, 409), r.json  # 409: out of credits on a losing streak
        if i % 2 == 0:
            r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out")
            assert r.status_code == 201, r.json
            vn = r.json["ticket"]["validation_number"]
            if i == 0:  # redeemed at the cage
                assert api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}).status_code == 200
                redeemed.append(vn)
            elif i == 2:  # inserted into another machine
                r = api.as_machine("M007", "POST", "/api/v1/machines/M007/ticket-in", {"validation_number": vn})
                assert r.status_code == 200, r.json
                redeemed.append(vn)
            # i == 4: left outstanding (a liability the restore must keep)
    return redeemed


def test_pg_dump_and_restore_into_a_new_database(pg_api, tmp_path):
    app = pg_api.app
    svc = app.extensions["slotsys"]
    redeemed = _play(pg_api)
    svc.jackpots.fold_all()  # every recorded wager into the pools now
    svc.jackpots.stop()  # nothing changes the books from here to the dump
    before_audit = pg_api.audit()
    assert before_audit["balanced"] is True
    src_url = svc.settings.database_url
    before = _state(src_url)
    assert before["tickets"] and any(t[1] == "issued" for t in before["tickets"])

    dump = tmp_path / "slotsys.dump"
    subprocess.run([PG_DUMP, "-Fc", "--no-owner", "-f", str(dump), src_url], check=True, timeout=300)
    assert dump.stat().st_size > 0

    server = src_url.rsplit("/", 1)[0]
    new_name = f"slotsys_restored_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(f"{server}/postgres".replace("postgresql://", "postgresql+psycopg://", 1),
                             isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{new_name}"'))
    new_url = f"{server}/{new_name}"
    gun = None
    try:
        subprocess.run([PG_RESTORE, "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
                        "-d", new_url, str(dump)], check=True, timeout=300)
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-c", "ANALYZE", new_url], check=True, timeout=120)
        after = _state(new_url)
        assert after == before  # every balance, ticket and machine as it was

        env = service_env(new_url, os.environ["REDIS_URL"], tmp_path)
        gun = Gunicorn(env, tmp_path, workers=1, threads=4).start()
        http = httpx.Client(base_url=gun.base, timeout=30)
        assert http.get("/readyz").status_code == 200
        auditor = next(s for s in app.config["DEMO_CREDENTIALS"]["staff"] if s["role"] == "auditor")
        tok = http.post("/api/v1/auth/login", json={"username": auditor["username"], "password": auditor["password"]})
        assert tok.status_code == 200, tok.text
        staff = {"Authorization": f"Bearer {tok.json()['token']}"}
        audit = http.get("/api/v1/audit/ledger", headers=staff)
        assert audit.status_code == 200 and audit.json()["balanced"] is True
        assert _strip(audit.json()) == _strip(before_audit)

        # the restored floor plays on: a new bill-in and spin get fresh ids, the books stay balanced
        key = next(m["key"] for m in app.config["DEMO_CREDENTIALS"]["machines"] if m["asset"] == "M008")
        machine = {"Authorization": f"Bearer {key}"}
        r = http.post("/api/v1/machines/M008/bill-in", json={"amount": 10_000},
                      headers={**machine, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 200, r.text
        r = http.post("/api/v1/machines/M008/spin", json={"reels": 3, "multiplier": 1},
                      headers={**machine, "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 200, r.text
        # a ticket redeemed before the backup is still refused after the restore
        key9 = next(m["key"] for m in app.config["DEMO_CREDENTIALS"]["machines"] if m["asset"] == "M009")
        r = http.post("/api/v1/machines/M009/ticket-in", json={"validation_number": redeemed[0]},
                      headers={"Authorization": f"Bearer {key9}", "Idempotency-Key": uuid.uuid4().hex})
        assert r.status_code == 409, r.text
        final = http.get("/api/v1/audit/ledger", headers=staff).json()
        assert final["balanced"] is True
        http.close()
    finally:
        if gun is not None:
            gun.stop()
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{new_name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(autouse=True)
def _tools():
    for tool in (PG_DUMP, PG_RESTORE):
        if not os.access(tool, os.X_OK):
            pytest.fail(f"{tool} is missing: install Debian's postgresql-client (.ci/run does)")
