"""Calling the services directly as the API does (the same exactly-once key and the HTTP status and body the
route would answer), for the tests that drive a use case without HTTP; and :func:`conforms`, an answer checked
against the schema ``/openapi.json`` documents for it."""

from __future__ import annotations

from typing import Any

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


def check_contract(app) -> list[str]:
    """Validate every JSON success the app answers from now on against the schema ``/openapi.json`` documents for
    its operation and status; returns the list the mismatches are appended to (``SLOTSYS_CHECK_CONTRACT=1`` turns
    this on for the ``app`` fixture: a run of any e2e module then also checks the contract of what it reached)."""
    import re

    import jsonschema_rs
    from flask import request

    mismatches: list[str] = []
    validators: dict[tuple[str, str, str], Any] = {}
    spec: dict = {}

    @app.after_request
    def _check(resp):
        if not (200 <= resp.status_code < 300) or resp.mimetype != "application/json" or request.url_rule is None \
                or not request.path.startswith("/api/"):
            return resp
        if not spec:
            spec.update(app.test_client().get("/openapi.json").json)
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", request.url_rule.rule)
        key = (path, request.method.lower(), str(resp.status_code))
        if key not in validators:
            op = spec["paths"].get(path, {}).get(key[1])
            content = (op or {}).get("responses", {}).get(key[2], {}).get("content", {})
            schema = content.get("application/json", {}).get("schema")
            if schema is None:
                mismatches.append(f"{key}: not documented")
                return resp
            validators[key] = jsonschema_rs.validator_for({**schema, "components": spec["components"]})
        errors = [f"{e.instance_path}: {e.message}"[:200] for e in validators[key].iter_errors(resp.get_json())]
        if errors:
            mismatches.append(f"{key}: {errors[:3]}")
        return resp

    return mismatches


def wait(cond, timeout: float = 15.0, what: str = "") -> None:
    """Poll ``cond()`` every 50 ms until it is true; AssertionError naming ``what`` after ``timeout`` seconds."""
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
