"""Idempotency-record retention on PostgreSQL: the same scenario as on SQLite (old records go in bounded
batches, recent stay, a retry within the window replays, a purged redemption's retry is refused by the
ticket), the purge's statement uses the created_at index, and two purges at once split the rows."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from slotsys.kernel.retention import purge_idempotency
from tests.e2e._retention import run_scenario


def test_purge_on_postgresql(pg_api):
    run_scenario(pg_api)


def test_batches_use_the_created_at_index_and_concurrent_purges_split_the_rows(pg_api):
    svc = pg_api.app.extensions["slotsys"]
    old = datetime.now(timezone.utc) - timedelta(days=30)
    with svc.uow.engine.begin() as c:  # 20,000 aged records (no money: the purge looks at nothing else)
        c.execute(sa.text(
            "INSERT INTO idempotency_records (principal, key, fingerprint, status_code, response, created_at) "
            "SELECT 'machine:M001', 'aged-' || g, 'f', 200, '{}', :t - g * interval '1 second' "
            "FROM generate_series(1, 20000) g"), {"t": old})
        c.execute(sa.text("ANALYZE idempotency_records"))
        plan = "\n".join(r[0] for r in c.execute(sa.text(
            "EXPLAIN DELETE FROM idempotency_records WHERE id IN (SELECT id FROM idempotency_records "
            "WHERE created_at < :cut ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED)"),
            {"cut": old - timedelta(days=1)}))
    assert "ix_idempotency_records_created_at" in plan, plan
    now = datetime.now(timezone.utc)
    reports, errors = [], []

    def purge():
        try:
            reports.append(purge_idempotency(svc.uow, now, retention_days=7, batch_size=500))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=purge) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert sum(r.deleted for r in reports) == 20_000  # every row deleted exactly once between them
    assert all(r.batches <= 20_000 // 500 + 1 for r in reports)
    with svc.uow.engine.connect() as c:
        assert c.execute(sa.text("SELECT count(*) FROM idempotency_records WHERE key LIKE 'aged-%'")).scalar_one() == 0
    assert pg_api.audit()["balanced"] is True
