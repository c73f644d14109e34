"""Exactly-once execution of money-moving requests keyed by an ``Idempotency-Key``.

The key is claimed (a unique row) at the start of the use case's transaction and the result is stored in the same
transaction, so: a replay returns the first result and moves nothing; two concurrent requests with one key never
both run (PostgreSQL makes the second wait on the unique index, then it reads the first's stored result); a request
that fails (a domain error) rolls back its claim and may be retried with the same key.

Who the request is and what it asked for (:class:`OnceKey`: principal, key, fingerprint) is the caller's to say:
the API layer fingerprints the HTTP request (method, path, body), the SAS host the SAS message it maps. A key reused
for a different request (another fingerprint) is refused with :class:`~slotsys.kernel.errors.IdempotencyKeyReused`.

Results are pydantic models, stored as their JSON (``model_dump(mode="json")``, with the caller's status for a first
success, :attr:`OnceKey.status`) and read back with ``model_validate``: a replay returns an equal result, so the
caller renders it exactly as the first time. A record whose JSON no longer validates as the result (an answer an
earlier release stored in another shape) is returned as :attr:`Once.stored` for the API layer to send as it is.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Generic, Protocol, TypeVar

from pydantic import ValidationError

from slotsys.kernel.errors import IdempotencyKeyReused, ValidationFailed

_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")
R = TypeVar("R")


class StoredResult(Protocol):
    """What :func:`run_once` stores and reads back: a pydantic model's JSON round trip."""

    @classmethod
    def model_validate(cls: type[M], obj: Any) -> M: ...

    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


M = TypeVar("M", bound=StoredResult)


@dataclass(frozen=True)
class OnceKey:
    """What identifies one money-moving request: the caller (``principal``, e.g. ``machine:M001``), its
    ``Idempotency-Key`` (None or malformed → 422 naming ``Idempotency-Key``) and a ``fingerprint`` of what it asked."""

    principal: str
    key: str | None
    fingerprint: str
    status: int | Callable[[Any], int] = 200
    """The caller's status for a first success, recorded with the result (the API's; 200 elsewhere): a number, or a
    function of the result when the outcome decides it (201 created / 200 already there, 202 pending)."""


@dataclass(frozen=True)
class Once(Generic[R]):
    """A use case's result, and whether it was ``replayed`` from the first request with the same key.
    ``stored``: (HTTP status, body) of a record written before results were typed (``result`` is then None)."""

    result: R
    replayed: bool
    stored: tuple[int, dict] | None = None

    @property
    def status(self) -> int:
        """The HTTP status of a :func:`run_once_dict` answer."""
        assert self.stored is not None
        return self.stored[0]

    @property
    def body(self) -> dict:
        """The body of a :func:`run_once_dict` answer."""
        assert self.stored is not None
        return self.stored[1]


def fingerprint(*parts: Any) -> str:
    """SHA-256 (hex) of the parts as canonical JSON: the same request always gives the same fingerprint."""
    raw = json.dumps(list(parts), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


def require_key(key: str | None) -> str:
    if key is None or key == "":
        raise ValidationFailed("the Idempotency-Key header is required on money-moving requests", field="Idempotency-Key")
    if not _KEY.match(key):
        raise ValidationFailed("Idempotency-Key must be 1-200 printable ASCII characters", field="Idempotency-Key")
    return key


def run_once(ctx, request: OnceKey, fn: Callable[[Any], M], *, result: type[M], write_behind: bool = False,
             lock_wait_ms: int | None = None) -> Once[M]:
    """Run ``fn(uow)`` once per (principal, key) in one transaction of ``ctx.uow`` and return its result.

    ``fn`` returns an instance of ``result`` (a pydantic model) and must not commit. ``write_behind``: the
    transaction batches its result-less writes until the commit (``fn`` must not read them back).
    ``lock_wait_ms``: every lock wait of the transaction, the claim's included, is bounded by it (set by the claim
    itself: :meth:`IdempotencyRepository.claim`); one not granted in time raises
    :class:`~slotsys.kernel.errors.LockWaitExceeded` from the unit of work.
    Raises :class:`ValidationFailed` for a missing or malformed key, :class:`IdempotencyKeyReused` for a key used
    with another fingerprint, and whatever ``fn`` raises (the transaction, claim included, is rolled back)."""
    key = require_key(request.key)
    settings = ctx.settings
    with ctx.uow() as uow:
        record_id = uow.idempotency.claim(request.principal, key, request.fingerprint, lock_wait_ms=lock_wait_ms)
        if record_id is None:
            rec = uow.idempotency.get(request.principal, key)
            if rec.fingerprint != request.fingerprint:
                raise IdempotencyKeyReused(
                    "this Idempotency-Key was already used for a different request", field="Idempotency-Key")
            try:
                return Once(result.model_validate(rec.response), True)
            except ValidationError:  # an answer recorded in another shape (an earlier release): send it as stored
                # no typed result exists for such a record: callers send ``stored`` (see Once)
                return Once(None, True, (rec.status_code or 200, rec.response))  # type: ignore[arg-type]
        if write_behind:
            uow.write_behind()
        out = fn(uow)
        code = request.status(out) if callable(request.status) else request.status
        uow.idempotency.complete(record_id, code, out.model_dump(mode="json"))
        _fault_pause(settings.fault_delay_ms)  # fault injection (tests only): off by default
        uow.commit()
        _fault_pause(settings.fault_delay_after_commit_ms)
        return Once(out, False)


def run_once_dict(ctx, request: OnceKey, fn: Callable[[Any], dict], status: int | Callable[[dict], int] = 200, *,
                  write_behind: bool = False) -> Once[dict]:
    """:func:`run_once` for the use cases that still answer with a plain ``dict`` body and decide its HTTP
    ``status`` (a number, or a function of the body when the outcome is decided inside the transaction)."""
    key = require_key(request.key)
    settings = ctx.settings
    with ctx.uow() as uow:
        record_id = uow.idempotency.claim(request.principal, key, request.fingerprint)
        if record_id is None:
            rec = uow.idempotency.get(request.principal, key)
            if rec.fingerprint != request.fingerprint:
                raise IdempotencyKeyReused(
                    "this Idempotency-Key was already used for a different request", field="Idempotency-Key")
            return Once(rec.response, True, (rec.status_code, rec.response))
        if write_behind:
            uow.write_behind()
        body = fn(uow)
        code = status(body) if callable(status) else status
        uow.idempotency.complete(record_id, code, body)
        _fault_pause(settings.fault_delay_ms)
        uow.commit()
        _fault_pause(settings.fault_delay_after_commit_ms)
        return Once(body, False, (code, body))


def _fault_pause(ms: int) -> None:
    """The settings-gated fault-injection point (``SLOTSYS_FAULT_DELAY_MS``,
    ``SLOTSYS_FAULT_DELAY_AFTER_COMMIT_MS``; 0 = off, the default): tests/integration/test_faults.py
    holds a request open there to kill its worker or drop its database connection mid-request."""
    if ms > 0:
        time.sleep(ms / 1000)
