"""Idempotency records: one row per (principal, Idempotency-Key), written in the same
transaction as the money movement it guards."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, delete, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from slotsys.kernel.adapters.db import IdempotencyRecord, utcnow
from slotsys.kernel.adapters.write_behind import execute_or_defer


_T = IdempotencyRecord.__table__
# Built once per dialect (compiled forms are cached): the claim is an INSERT … ON CONFLICT DO NOTHING.
_CLAIM = {
    name: ins(_T).on_conflict_do_nothing(index_elements=["principal", "key"]).returning(_T.c.id)
    for name, ins in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
}
_COMPLETE = update(_T).where(_T.c.id == bindparam("rid"))
# group commit (PostgreSQL): a batch's keys claimed in one statement, in (principal, key) order (two batches
# claiming overlapping keys wait on each other in one order: no deadlock); the refused requests' claims released
# A claim may also set the transaction's lock wait (PostgreSQL lock_timeout, local to the transaction): the CTE is
# read by the INSERT's source, so it is set before the first row is inserted, and the claim's own wait for a
# concurrent claim of the key is bounded too; one statement, not two, at the start of a group commit's transaction
_LOCK_WAIT = "WITH lw AS (SELECT set_config('lock_timeout', :lock_wait, true) AS v) "
_CLAIM_WAIT_PG = text(
    _LOCK_WAIT + "INSERT INTO idempotency_records (principal, key, fingerprint, created_at) "
    "SELECT CAST(:principal AS varchar), CAST(:key AS varchar), CAST(:fingerprint AS varchar), "
    "CAST(:created_at AS timestamptz) FROM lw ON CONFLICT (principal, key) DO NOTHING RETURNING id")
_CLAIM_MANY = ("INSERT INTO idempotency_records (principal, key, fingerprint, created_at) "
               "SELECT c.principal, c.key, c.fingerprint, c.created_at FROM {lw}unnest(CAST(:principals AS varchar[]), "
               "CAST(:keys AS varchar[]), CAST(:fingerprints AS varchar[]), CAST(:ats AS timestamptz[])) "
               "AS c(principal, key, fingerprint, created_at) ORDER BY c.principal, c.key "
               "ON CONFLICT (principal, key) DO NOTHING RETURNING id, principal, key")
_CLAIM_MANY_PG = text(_CLAIM_MANY.format(lw=""))
_CLAIM_MANY_WAIT_PG = text(_LOCK_WAIT + _CLAIM_MANY.format(lw="lw, "))
_RELEASE_PG = text("DELETE FROM idempotency_records WHERE id = ANY(CAST(:ids AS bigint[]))")


class IdempotencyRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def claim(self, principal: str, key: str, fingerprint: str, *, lock_wait_ms: int | None = None) -> int | None:
        """Insert the placeholder row; ``None`` when the key is already taken.

        On PostgreSQL a concurrent uncommitted claim of the same key makes this wait
        until that transaction ends (unique index), so two requests never both proceed.
        ``lock_wait_ms``: from this statement on, a lock not granted within it fails the transaction (PostgreSQL
        ``lock_timeout``, set by this same statement); ignored elsewhere.
        """
        dialect = self.s.get_bind().dialect.name
        params = {"principal": principal, "key": key, "fingerprint": fingerprint, "created_at": utcnow()}
        if lock_wait_ms is not None and dialect == "postgresql":
            return self.s.connection().execute(_CLAIM_WAIT_PG, {**params, "lock_wait": f"{int(lock_wait_ms)}ms"}
                                               ).scalar_one_or_none()
        stmt = _CLAIM[dialect] if dialect in _CLAIM else _CLAIM["sqlite"]
        return self.s.connection().execute(stmt, params).scalar_one_or_none()

    def claim_many(self, claims: list[tuple[str, str, str]], *,
                   lock_wait_ms: int | None = None) -> dict[tuple[str, str], int]:
        """:meth:`claim` for several (principal, key, fingerprint) at once (PostgreSQL, one statement): the record
        id of each one claimed, by (principal, key); a key already taken is absent (after waiting, like
        :meth:`claim`, for a concurrent uncommitted claim of it to end). ``lock_wait_ms``: as for :meth:`claim`."""
        if not claims:
            return {}
        now = utcnow()
        params = {"principals": [c[0] for c in claims], "keys": [c[1] for c in claims],
                  "fingerprints": [c[2] for c in claims], "ats": [now] * len(claims)}
        if lock_wait_ms is None:
            rows = self.s.connection().execute(_CLAIM_MANY_PG, params)
        else:
            rows = self.s.connection().execute(_CLAIM_MANY_WAIT_PG, {**params, "lock_wait": f"{int(lock_wait_ms)}ms"})
        return {(r.principal, r.key): int(r.id) for r in rows}

    def release(self, record_ids: list[int]) -> None:
        """Drop claims of this transaction whose requests were refused (so they may be retried with the same key),
        with the commit when the transaction defers its writes."""
        if record_ids:
            execute_or_defer(self.s, _RELEASE_PG, {"ids": list(record_ids)})

    def get(self, principal: str, key: str) -> IdempotencyRecord | None:
        return self.s.scalar(
            select(IdempotencyRecord).where(IdempotencyRecord.principal == principal, IdempotencyRecord.key == key)
        )

    def complete(self, record_id: int, status_code: int, response: dict) -> None:
        execute_or_defer(self.s, _COMPLETE, {"rid": record_id, "status_code": status_code, "response": response})

    def purge_batch(self, cutoff: datetime, limit: int) -> int:
        """Delete at most ``limit`` records created before ``cutoff`` (oldest first); returns how many.

        One statement, ``DELETE … WHERE id IN (SELECT id … WHERE created_at < :cutoff ORDER BY created_at
        LIMIT :n)``, an index range scan on ``ix_idempotency_records_created_at`` (migration 0016). On
        PostgreSQL the inner SELECT takes ``FOR UPDATE SKIP LOCKED``, so two purges running at once (beat and
        an operator's CLI) split the rows instead of waiting on each other.
        """
        sub = select(_T.c.id).where(_T.c.created_at < cutoff).order_by(_T.c.created_at).limit(limit)
        if self.s.get_bind().dialect.name == "postgresql":
            sub = sub.with_for_update(skip_locked=True)
        return self.s.execute(delete(_T).where(_T.c.id.in_(sub.scalar_subquery()))).rowcount

    def count_older(self, cutoff: datetime) -> int:
        """How many records were created before ``cutoff`` (the dry run's figure; an index-only count)."""
        return self.s.scalar(select(func.count()).select_from(_T).where(_T.c.created_at < cutoff))
