"""The Flask stream routes' bound: a stream served on a worker thread (no hand-off, e.g. a plain gunicorn or
``SLOTSYS_STREAM_HANDOFF=false``, or the werkzeug server of the browser tests) holds that thread for its whole
life, so each process serves at most ``SLOTSYS_STREAM_WSGI_MAX`` at once (beyond: 503 problem+json
``…/problems/overloaded`` with ``Retry-After``, nothing opened) and each ends after
``SLOTSYS_STREAM_MAX_LIFETIME_S`` (EventSource reconnects). Its credential is re-checked (``recheck``: the
cached ``AuthService.authenticate`` or the stream token's owner) before a frame at most every second: a revoked
one ends the stream with ``event: end`` / ``{"reason": "revoked"}`` (frames come at least every heartbeat, so
within heartbeat + 1 s of the revocation). Production routes streams to ``slotsys streams``
(docs/streams.md); this only keeps a node that forgot the proxy answering spins."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterator

import structlog
from flask import Response
from slotsys.kernel.api.problems import problem
from slotsys.kernel.errors import DomainError

log = structlog.get_logger("slotsys.server.streams")
RECHECK_S = 1.0
REVOKED_FRAME = 'event: end\ndata: {"reason": "revoked"}\n\n'

_lock = threading.Lock()
_open = 0

# feed(heartbeat_s, max_seconds) → (the subscription, closed when the response ends; the SSE frames)
Feed = Callable[[float, float], tuple[Any, Iterator[str]]]


class _Stream:
    """The response body: the service's SSE generator; ``close()`` (called by the WSGI server when the
    response ends or the client goes, started or not) frees the slot and the subscription."""

    def __init__(self, svc, feed: Feed, max_seconds: float | None, recheck=None) -> None:
        s = svc.settings
        self.recheck = recheck
        life = s.stream_max_lifetime_s if max_seconds is None else min(max_seconds, s.stream_max_lifetime_s)
        self.sub, self.gen = feed(s.stream_heartbeat_s, life)
        self.closed = False

    def __iter__(self):
        return self._frames() if self.recheck is not None else self.gen

    def _frames(self):
        checked = time.monotonic()
        for frame in self.gen:
            if time.monotonic() - checked >= RECHECK_S:
                checked = time.monotonic()
                try:
                    self.recheck()
                except DomainError as err:
                    if err.status in (401, 403):
                        log.info("stream.ended", reason="revoked")
                        yield REVOKED_FRAME
                        return
                except Exception:
                    log.warning("stream.recheck_failed", exc_info=True)  # e.g. the database is down: keep it
            yield frame

    def close(self) -> None:
        global _open
        if self.closed:
            return
        self.closed = True
        try:
            self.gen.close()
            self.sub.close()  # idempotent; the generator's own finally closes it only if it started
        except Exception:
            pass
        with _lock:
            _open -= 1


def sse_response(svc, feed: Feed, max_seconds: float | None = None, recheck=None) -> Response:
    """The SSE response of ``feed`` for an authenticated caller, or the 503 refusal past this process's bound
    (``svc``: the services, for their settings). ``recheck``: a blocking callable raising a 401/403
    ``DomainError`` once the caller's credential is revoked."""
    global _open
    limit, retry = svc.settings.stream_wsgi_max, svc.settings.stream_retry_after_s
    with _lock:
        full = _open >= limit
        if not full:
            _open += 1
    if full:
        resp = problem(503, "Service busy", f"this web process already serves {limit} streams on its threads; "
                       f"streams belong on the stream server (slotsys streams); retry after {retry} s",
                       code="overloaded")
        resp.headers["Retry-After"] = str(retry)
        return resp
    try:
        body = _Stream(svc, feed, max_seconds, recheck)
    except Exception:
        with _lock:
            _open -= 1
        raise
    return Response(body, mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
