"""Calling the services directly as the API does (the same exactly-once key and the HTTP status and body the
route would answer), for the tests that drive a use case without HTTP; and :func:`conforms`, an answer checked
against the schema ``/openapi.json`` documents for it."""

from __future__ import annotations

from slotsys.kernel.context import Principal
from slotsys.kernel.idempotency import OnceKey, fingerprint


def spin(svc, principal: Principal, asset: str, bet: dict, key: str | None) -> tuple[int, dict, bool]:
    """``POST /api/v1/machines/<asset>/spin`` without HTTP: (status, body, replayed)."""
    once = svc.floor.spin(principal, asset, bet, OnceKey(principal.id, key, fingerprint("POST", f"spin/{asset}", bet)))
    return 200, once.result.model_dump(mode="json"), once.replayed


def conforms(spec: dict, path: str, method: str, status: int, body) -> None:
    """``body`` is valid under the schema the document gives for (path, method, status) (JSON Schema 2020-12)."""
    import jsonschema_rs

    schema = spec["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]
    validator = jsonschema_rs.validator_for({**schema, "components": spec["components"]})
    errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(body)]
    assert not errors, (method, path, errors[:5])
