"""The retention scenario, run on SQLite (tests/e2e/test_retention.py) and PostgreSQL
(tests/integration/test_retention_pg.py): real requests leave their idempotency records, some are aged past
the window by moving their ``created_at`` back (the one thing a test cannot wait for), then the purge runs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from slotsys.kernel.retention import purge_idempotency

OLD, NEW = 7, 4  # bill-ins aged past the window / kept


def _records(svc) -> dict[str, datetime]:
    with svc.uow.engine.connect() as c:
        return {k: t for k, t in c.execute(sa.text("SELECT key, created_at FROM idempotency_records")).all()}


def _age(svc, keys: list[str], when: datetime) -> None:
    t = sa.table("idempotency_records", sa.column("key"), sa.column("created_at"))
    with svc.uow.engine.begin() as c:
        c.execute(sa.update(t).where(t.c.key.in_(keys)).values(created_at=when))


def run_scenario(api) -> None:
    svc = api.app.extensions["slotsys"]
    now = datetime.now(timezone.utc)
    asset = "M001"
    old = [f"old-bill-{i}" for i in range(OLD)]
    new = [f"new-bill-{i}" for i in range(NEW)]
    first = {}
    for k in old + new:
        r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000}, key=k)
        assert r.status_code == 200, r.json
        first[k] = r.json
    cash = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out", key="old-cash-out")
    assert cash.status_code == 201, cash.json
    vn = cash.json["ticket"]["validation_number"]
    redeem = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}, key="old-redeem")
    assert redeem.status_code == 200, redeem.json
    old_keys = old + ["old-cash-out", "old-redeem"]
    _age(svc, old_keys, now - timedelta(days=8))
    _age(svc, new[:1], now - timedelta(days=6, hours=23))  # just inside the 7-day window: kept
    before = _records(svc)
    assert set(old_keys) | set(new) <= set(before)

    # dry run: counts exactly the aged records, deletes nothing
    dry = purge_idempotency(svc.uow, now, retention_days=7, batch_size=3, dry_run=True)
    assert dry.dry_run and dry.eligible == len(old_keys) and dry.deleted == 0
    assert _records(svc) == before

    # one bounded batch: exactly batch_size rows, the oldest, committed on its own
    one = purge_idempotency(svc.uow, now, retention_days=7, batch_size=3, max_batches=1)
    assert (one.deleted, one.batches) == (3, 1)
    assert len(before) - len(_records(svc)) == 3

    # the rest in batches of at most 3: 9 aged records → 3 + 3 + 3, then an empty batch ends the run
    rest = purge_idempotency(svc.uow, now, retention_days=7, batch_size=3)
    assert (rest.deleted, rest.batches) == (len(old_keys) - 3, 2)
    after = _records(svc)
    assert not set(old_keys) & set(after)  # old records go
    assert set(new) <= set(after)  # recent ones stay, the one 6 days 23 hours old included
    assert set(after) == set(before) - set(old_keys)
    assert purge_idempotency(svc.uow, now, retention_days=7, batch_size=3).deleted == 0

    # a retry within the window still replays: same body, nothing moves
    audit0 = api.audit()
    for k in new:
        r = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/bill-in", {"amount": 10_000}, key=k)
        assert r.status_code == 200 and r.headers.get("Idempotent-Replayed") == "true" and r.json == first[k]
    # past the window the record is gone, and the ticket's validation number still refuses a second payment;
    # the cash-out's retry finds no credits from the first one to cash out again
    again = api.as_staff("cashier", "POST", "/api/v1/cage/redeem", {"validation_number": vn}, key="old-redeem")
    assert again.status_code == 409 and again.json["redeemed_channel"] == "cage", again.json
    cash_again = api.as_machine(asset, "POST", f"/api/v1/machines/{asset}/cash-out", key="old-cash-out")
    assert cash_again.status_code == 409, cash_again.json
    assert api.audit() == audit0 and audit0["balanced"] is True
