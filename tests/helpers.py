"""Calling the services directly as the API does (the same exactly-once key and the HTTP status and body the
route would answer), for the tests that drive a use case without HTTP."""

from __future__ import annotations

from slotsys.kernel.context import Principal
from slotsys.kernel.idempotency import OnceKey, fingerprint


def spin(svc, principal: Principal, asset: str, bet: dict, key: str | None) -> tuple[int, dict, bool]:
    """``POST /api/v1/machines/<asset>/spin`` without HTTP: (status, body, replayed)."""
    once = svc.floor.spin(principal, asset, bet, OnceKey(principal.id, key, fingerprint("POST", f"spin/{asset}", bet)))
    return 200, once.result.model_dump(mode="json"), once.replayed
