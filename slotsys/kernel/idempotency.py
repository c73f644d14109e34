"""Exactly-once execution of money-moving requests keyed by ``Idempotency-Key``.

The key is claimed (a unique row) at the start of the use case's transaction and the
response is stored in the same transaction, so: a replay returns the first response and
moves nothing; two concurrent requests with one key never both run (PostgreSQL makes the
second wait on the unique index, then it reads the first's stored response); a request
that fails (4xx) rolls back its claim and may be retried with the same key.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from slotsys.kernel.errors import IdempotencyKeyReused, ValidationFailed
from slotsys.kernel.settings import get_settings

_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")


@dataclass(frozen=True)
class IdemResult:
    status: int
    body: dict
    replayed: bool


def fingerprint(method: str, path: str, payload: Any) -> str:
    raw = json.dumps([method, path, payload], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


def require_key(key: str | None) -> str:
    if key is None or key == "":
        raise ValidationFailed("the Idempotency-Key header is required on money-moving requests", field="Idempotency-Key")
    if not _KEY.match(key):
        raise ValidationFailed("Idempotency-Key must be 1-200 printable ASCII characters", field="Idempotency-Key")
    return key


def run_once(uow_factory, principal: str, key: str | None, fp: str, fn: Callable[[Any], dict],
             status: int | Callable[[dict], int] = 200, *, write_behind: bool = False) -> IdemResult:
    """Run ``fn(uow)`` once per (principal, key); ``fn`` must not commit. ``write_behind``: the
    transaction batches its result-less writes until the commit (``SqlUnitOfWork.write_behind``;
    ``fn`` must not read them back). ``status`` may be a function of the body when the outcome is
    decided inside the transaction (e.g. 201 printed / 202 pending)."""
    key = require_key(key)
    with uow_factory() as uow:
        record_id = uow.idempotency.claim(principal, key, fp)
        if record_id is None:
            rec = uow.idempotency.get(principal, key)
            if rec.fingerprint != fp:
                raise IdempotencyKeyReused(
                    "this Idempotency-Key was already used for a different request", field="Idempotency-Key"
                )
            return IdemResult(rec.status_code, rec.response, True)
        if write_behind:
            uow.write_behind()
        body = fn(uow)
        if callable(status):
            status = status(body)
        uow.idempotency.complete(record_id, status, body)
        _fault_pause(get_settings().fault_delay_ms)  # fault injection (tests only): off by default
        uow.commit()
        _fault_pause(get_settings().fault_delay_after_commit_ms)
        return IdemResult(status, body, False)


def _fault_pause(ms: int) -> None:
    """The settings-gated fault-injection point (``SLOTSYS_FAULT_DELAY_MS``,
    ``SLOTSYS_FAULT_DELAY_AFTER_COMMIT_MS``; 0 = off, the default): tests/integration/test_faults.py
    holds a request open there to kill its worker or drop its database connection mid-request."""
    if ms > 0:
        time.sleep(ms / 1000)
