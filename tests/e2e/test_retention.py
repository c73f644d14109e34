"""Idempotency-record retention on the embedded SQLite floor: the purge (bounded batches, old go, recent stay,
a retry within the window replays), the CLI and the Celery task (eager here; beat's schedule names it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import sqlalchemy as sa

from ._retention import run_scenario

BIN = Path(sys.executable).parent


def test_purge_on_sqlite(api):
    run_scenario(api)


def _count(svc) -> int:
    with svc.uow.engine.connect() as c:
        return c.execute(sa.text("SELECT count(*) FROM idempotency_records")).scalar_one()


def _age_all(svc, days: int) -> None:
    with svc.uow.engine.begin() as c:
        c.execute(sa.text("UPDATE idempotency_records SET created_at = :t"),
                  {"t": datetime.now(timezone.utc) - timedelta(days=days)})


def test_cli_dry_run_then_purge_and_the_beat_task(api, tmp_path):
    svc = api.app.extensions["slotsys"]
    for _ in range(5):
        assert api.as_machine("M002", "POST", "/api/v1/machines/M002/bill-in", {"amount": 10_000}).status_code == 200
    n = _count(svc)
    assert n >= 5
    _age_all(svc, 10)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSYS_") and k not in ("REDIS_URL",)}
    env.update(DATABASE_URL=str(svc.settings.database_url), SLOTSYS_IDEMPOTENCY_PURGE_BATCH="2",
               SLOTSYS_CREDENTIALS_FILE=str(tmp_path / "c.json"), SLOTSYS_LOG_LEVEL="WARNING")

    def cli(*args: str) -> dict:
        out = subprocess.run([BIN / "slotsys", "purge-idempotency", *args], env=env, capture_output=True,
                             text=True, timeout=120, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    dry = cli("--dry-run")
    assert dry["dry_run"] is True and dry["eligible"] == n and dry["deleted"] == 0 and dry["retention_days"] == 7
    assert _count(svc) == n
    done = cli()
    assert done["deleted"] == n and done["batch_size"] == 2 and done["batches"] == (n + 1) // 2
    assert _count(svc) == 0

    # the beat task (eager in the embedded default) runs the same purge with the settings
    for _ in range(3):
        assert api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 10_000}).status_code == 200
    _age_all(svc, 8)
    assert api.as_machine("M003", "POST", "/api/v1/machines/M003/bill-in", {"amount": 10_000}).status_code == 200
    entry = svc.celery.conf.beat_schedule["purge-idempotency"]
    assert entry["task"] == "slotsys.purge_idempotency" and entry["schedule"] == 3600.0
    report = svc.celery.tasks["slotsys.purge_idempotency"].apply().get()
    assert report["deleted"] == 3 and _count(svc) == 1
    assert api.audit()["balanced"] is True


def test_embedded_slotsys_run_purges_without_beat(api, tmp_path):
    """`slotsys run` (SQLite, Celery eager, no beat) purges in its own thread at start and every interval."""
    import signal
    import socket
    import time

    svc = api.app.extensions["slotsys"]
    for _ in range(4):
        assert api.as_machine("M004", "POST", "/api/v1/machines/M004/bill-in", {"amount": 10_000}).status_code == 200
    n = _count(svc)
    _age_all(svc, 9)
    svc.uow.engine.dispose()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSYS_") and k not in ("REDIS_URL",)}
    env.update(DATABASE_URL=str(svc.settings.database_url), SLOTSYS_PORT=str(port),
               SLOTSYS_CREDENTIALS_FILE=str(tmp_path / "run-creds.json"))
    log = tmp_path / "run.log"
    with open(log, "wb") as fh:
        p = subprocess.Popen([BIN / "slotsys", "run", "--threads", "2"], env=env, cwd=tmp_path, stdout=fh,
                             stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and "idempotency.purged" not in log.read_text(errors="replace"):
            assert p.poll() is None, log.read_text(errors="replace")
            time.sleep(0.5)
        text = log.read_text(errors="replace")
        line = next(x for x in text.splitlines() if "idempotency.purged" in x)
        assert f"deleted={n}" in line, line
    finally:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)
    assert _count(svc) == 0
