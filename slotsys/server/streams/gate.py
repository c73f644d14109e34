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
import math
from urllib.parse import parse_qs

from slotsys.kernel.errors import DomainError, Unauthorized, ValidationFailed

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


MAX_SECONDS_BOUND = 86_400.0  # the Flask route's bound (jackpot_controller.api.routes.StreamQuery)


def max_seconds(args: dict[str, str]) -> float | None:
    """``?max_seconds=`` as seconds (a finite number in [0, 86 400]; the stream's lifetime is then
    ``min(max_seconds, SLOTSYS_STREAM_MAX_LIFETIME_S)``), ``None`` when absent. Anything else (``abc``, ``-1``,
    ``inf``, ``nan``, ``1e30``, empty) raises ``ValidationFailed`` (422 naming ``max_seconds``), as the Flask
    route's pydantic model does."""
    if "max_seconds" not in args:
        return None
    raw = args["max_seconds"].strip()
    try:
        value = float(raw) if len(raw) <= 32 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS_BOUND:
        raise ValidationFailed(f"max_seconds must be a number of seconds from 0 to {MAX_SECONDS_BOUND:,.0f}",
                               field="max_seconds")
    return value


def credential(path: str, authorization: str | None, args: dict[str, str]) -> tuple[str, str | None]:
    """What a stream's credential is, for the periodic re-check (:func:`recheck`): ``(path, header or token)``."""
    return (path, args.get("token") if path == SCREENS_STREAM else authorization)


def recheck(services, cred: tuple[str, str | None]) -> None:
    """Re-authenticate an open stream's credential (blocking: run it in an executor). Machine keys and staff
    tokens go through the cached ``AuthService.authenticate`` (at most one database read per credential per
    ``staff_auth_cache_s``; a logout, password change or deactivation evicts it at once via the revocation
    bus); a stream token re-checks its owner (active, same password). Raises ``Unauthorized`` when revoked."""
    path, value = cred
    authenticate(services, path, value if path == JACKPOT_STREAM else None,
                 {"token": value} if path == SCREENS_STREAM and value is not None else {})


def authenticate(services, path: str, authorization: str | None, args: dict[str, str]):
    """The caller's :class:`~slotsys.kernel.context.Principal`; raises ``Unauthorized`` (401) otherwise."""
    if path == SCREENS_STREAM:
        return services.screens.check_stream_token(args.get("token"))
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
