"""Domain errors. The API maps each to an RFC 9457 problem+json response.

Each error carries a stable ``code`` (a URI fragment used as the problem ``type``),
a human ``detail`` and optionally the ``field`` of the request it is about.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """Base of every refusal the service explains to its caller (4xx)."""

    status = 400
    code = "bad-request"
    title = "Bad request"

    def __init__(self, detail: str, *, field: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field
        self.extra = extra


class ValidationFailed(DomainError):
    status = 422
    code = "validation-failed"
    title = "The request is not valid"


class NotFound(DomainError):
    status = 404
    code = "not-found"
    title = "Not found"


class Conflict(DomainError):
    status = 409
    code = "conflict"
    title = "Conflict with the current state"


class InsufficientFunds(Conflict):
    code = "insufficient-funds"
    title = "Insufficient funds"


class Unauthorized(DomainError):
    status = 401
    code = "unauthorized"
    title = "Authentication required"


class Forbidden(DomainError):
    status = 403
    code = "forbidden"
    title = "Not allowed"


class IdempotencyKeyReused(DomainError):
    status = 422
    code = "idempotency-key-reused"
    title = "Idempotency-Key reused with a different request"


class TwoSignaturesRequired(Conflict):
    """A handpay at or above the two-person threshold is paid only through the handpay queue (two signers)."""

    code = "two-signatures-required"


class MachineLocked(Conflict):
    code = "machine-locked"
    title = "The machine is locked"


class HandpayRequired(Conflict):
    """A cash-out above the ticket limit: the credits are paid by hand (the handpay queue), not on a ticket."""

    code = "handpay-required"
    title = "Cash-out above the ticket limit: handpay required"


class LockWaitExceeded(Exception):
    """A row lock was not granted within the wait the transaction set itself (the Idempotency-Key claim's
    ``lock_wait_ms``: PostgreSQL ``lock_timeout``, SQLSTATE 55P03); the transaction was rolled back, nothing applied. Not a refusal: the caller
    that set the limit runs the work again without it (the spin group commit), so it never reaches a client."""
