"""RFC 9457 problem+json for every error the API returns."""

from __future__ import annotations

from typing import Any

import structlog
from flask import Response, json, request

from slotsys.domain.errors import DomainError

PROBLEM_BASE = "https://slotsys.local/problems/"
log = structlog.get_logger("slotsys.api")


def problem(status: int, title: str, detail: str, *, code: str | None = None, field: str | None = None,
            errors: list[dict] | None = None, **extra: Any) -> Response:
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + (code or str(status)),
        "title": title,
        "status": status,
        "detail": detail,
        "instance": request.path if request else None,
    }
    if field:
        body["field"] = field
    if errors:
        body["errors"] = errors
    body.update({k: v for k, v in extra.items() if v is not None})
    resp = Response(json.dumps(body), status=status, mimetype="application/problem+json")
    if status == 401:
        resp.headers["WWW-Authenticate"] = 'Bearer realm="slotsys"'
    return resp


def from_domain(err: DomainError) -> Response:
    return problem(err.status, err.title, err.detail, code=err.code, field=err.field, **err.extra)


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
