"""Who may open a stream, and the refusals: shared by the stream server and the gunicorn hand-off so both
take the same credentials as the Flask routes.

* ``/api/v1/jackpots/stream``: ``Authorization: Bearer`` machine key or staff token
  (``AuthService.authenticate``); optional ``?max_seconds=`` (shortens the lifetime, never lengthens it);
* ``/api/v1/screens/jackpot-stream``: ``?token=`` from ``POST /api/v1/screens/stream-token``
  (``ScreensService.check_stream_token``).

:func:`authenticate` is blocking (a database read unless cached): callers run it in an executor.
Refusals are RFC 9457 problem+json bodies (:func:`problem`).
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from slotsys.domain.errors import DomainError, Unauthorized

JACKPOT_STREAM = "/api/v1/jackpots/stream"
SCREENS_STREAM = "/api/v1/screens/jackpot-stream"
STREAM_PATHS = frozenset({JACKPOT_STREAM, SCREENS_STREAM})
PROBLEM_BASE = "https://slotsys.local/problems/"
SSE_HEADERS = (("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"))


def query_args(query: str) -> dict[str, str]:
    """First value of each query parameter (``a=1&b=2``); NUL is refused like the API does."""
    out = {k: v[0] for k, v in parse_qs(query or "", keep_blank_values=True).items()}
    for k, v in out.items():
        if "\x00" in v:
            raise DomainError("must not contain the NUL character", field=k)
    return out


def max_seconds(args: dict[str, str]) -> float | None:
    raw = args.get("max_seconds")
    if raw and raw.replace(".", "", 1).isdigit():
        return float(raw)
    return None


def authenticate(services, path: str, authorization: str | None, args: dict[str, str]):
    """The caller's :class:`~slotsys.services.context.Principal`; raises ``Unauthorized`` (401) otherwise."""
    if path == SCREENS_STREAM:
        from slotsys.services.screens import ScreensService

        return ScreensService(services.ctx).check_stream_token(args.get("token"))
    if path == JACKPOT_STREAM:
        return services.auth.authenticate(authorization)
    raise Unauthorized("not a stream")


def principal_key(principal) -> str:
    return f"{principal.kind}:{principal.name}"


def problem(status: int, code: str, title: str, detail: str, instance: str, field: str | None = None,
            **extra) -> bytes:
    body = {"type": PROBLEM_BASE + code, "title": title, "status": status, "detail": detail, "instance": instance}
    if field:
        body["field"] = field
    body.update({k: v for k, v in extra.items() if v is not None})
    return json.dumps(body).encode()


def from_domain(err: DomainError, instance: str) -> tuple[int, bytes, list[tuple[str, str]]]:
    headers = [("WWW-Authenticate", 'Bearer realm="slotsys"')] if err.status == 401 else []
    return err.status, problem(err.status, err.code, err.title, err.detail, instance, err.field, **err.extra), headers


def too_many(exc, instance: str) -> tuple[int, bytes, list[tuple[str, str]]]:
    """429 (this caller's streams) or 503 (the process's cap), both with ``Retry-After``."""
    if exc.scope == "principal":
        status, code, title = 429, "too-many-streams", "Too many open streams"
        detail = f"this caller already holds {exc.limit} open streams; close one or retry after {exc.retry_after} s"
    else:
        status, code, title = 503, "overloaded", "Service busy"
        detail = f"this stream server holds its maximum of {exc.limit} streams; retry after {exc.retry_after} s"
    return status, problem(status, code, title, detail, instance, limit=exc.limit), [("Retry-After", str(exc.retry_after))]
