"""RFC 9457 problem+json for every error the API returns.

``title`` (and a fixed-sentence ``detail``) are human text, answered in the request's language
(``Accept-Language``, :mod:`slotsys.kernel.api.i18n`); ``type``, ``status``, ``field``, ``errors`` and every other
member stay machine-readable and the same in every language."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

import structlog
from flask import Response, json, request

from slotsys.kernel.api import i18n
from slotsys.kernel.errors import DomainError

PROBLEM_BASE = "https://slotsys.local/problems/"
log = structlog.get_logger("slotsys.api")


def problem(status: int, title: str, detail: str, *, code: str | None = None, field: str | None = None,
            errors: list[dict] | None = None, **extra: Any) -> Response:
    lang = i18n.request_language()
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + (code or str(status)),
        "title": i18n.translate(title, lang),
        "status": status,
        "detail": i18n.translate(detail, lang),  # a fixed sentence in the catalogue; facts-bearing details stay English
        "instance": request.path if request else None,
    }
    if field:
        body["field"] = field
    if errors:
        body["errors"] = errors
    body.update({k: v for k, v in extra.items() if v is not None})
    resp = Response(json.dumps(body), status=status, mimetype="application/problem+json")
    resp.headers["Content-Language"] = lang
    resp.vary.add("Accept-Language")
    if status == 401:
        resp.headers["WWW-Authenticate"] = 'Bearer realm="slotsys"'
    if status in (429, 503):  # every "try later" says when (RFC 9110 §10.2.3), so clients back off instead of failing
        resp.headers["Retry-After"] = str(retry_after_seconds(extra.get("retry_after")))
    return resp


def retry_after_seconds(value: Any, default: int = 1) -> int:
    """Whole seconds for ``Retry-After`` (delay-seconds form, ≥ 1) from a refusal's ``retry_after``: seconds
    (int/float) or an ISO 8601 moment (the TITO guard's lock-out end); ``default`` when absent or unreadable."""
    if isinstance(value, bool) or value is None:
        return default
    if isinstance(value, (int, float)):
        return max(1, math.ceil(value)) if math.isfinite(value) else default
    if isinstance(value, str):
        try:
            until = datetime.fromisoformat(value)
        except ValueError:
            return default
        if until.tzinfo is None:
            until = until.replace(tzinfo=timezone.utc)
        return max(1, math.ceil((until - datetime.now(timezone.utc)).total_seconds()))
    return default


def from_domain(err: DomainError) -> Response:
    resp = problem(err.status, err.title, err.detail, code=err.code, field=err.field, **err.extra)
    retry = err.extra.get("retry_after")
    if err.status in (429, 503) and isinstance(retry, int) and not isinstance(retry, bool):
        resp.headers["Retry-After"] = str(max(1, retry))  # delay-seconds (RFC 9110 §10.2.3)
    return resp


def from_validation(detail: dict) -> Response:
    """APIFlask/pydantic validation detail {location: {field: [messages]}} → problem with field errors."""
    errors = []
    for location, fields in (detail or {}).items():
        if isinstance(fields, dict):
            for fname, msgs in fields.items():
                for msg in msgs if isinstance(msgs, list) else [msgs]:
                    errors.append({"location": location, "field": fname, "message": str(msg)})
        else:
            errors.append({"location": location, "message": str(fields)})
    first = errors[0] if errors else {}
    summary = "; ".join(f"{e.get('field', e['location'])}: {e['message']}" for e in errors) or "invalid request"
    return problem(422, "The request is not valid", summary, code="validation-failed", field=first.get("field"), errors=errors)


PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "description": "a URI naming the problem (…/problems/<code>)"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "instance": {"type": ["string", "null"], "description": "the request path"},
        "field": {"type": ["string", "null"], "description": "the request field the problem is about"},
        "errors": {"type": "array", "items": {"type": "object", "properties": {
            "location": {"type": "string"}, "field": {"type": "string"}, "message": {"type": "string"}}}},
        "request_id": {"type": ["string", "null"]},
    },
    "additionalProperties": True,
}


def document_problems(spec: dict) -> dict:
    """OpenAPI spec processor: every error response is ``application/problem+json`` with the Problem schema
    (APIFlask documents its own ``{"message", "detail"}`` JSON, which this API never returns), and every
    operation documents a ``default`` problem response (403, 409, 413, 415, 429, 503 …). Integer path variables
    (ids, round and hand numbers: SQL INTEGER columns) are documented as 1 … 2**31 - 1, as ``slotsys.app.factory`` enforces."""
    from slotsys.kernel.api.common import MAX_ID

    spec.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    ref = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for ops in spec.get("paths", {}).values():
        for op in ops.values():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            for param in op.get("parameters", []):
                if param.get("in") == "path" and param.get("schema", {}).get("type") == "integer":
                    param["schema"].update(minimum=1, maximum=MAX_ID)
            for code, resp in op["responses"].items():
                if code[:1] in ("4", "5"):
                    resp["content"] = ref
            op["responses"].setdefault("default", {"description": "Error (RFC 9457 problem details)", "content": ref})
    return spec
