"""The web nodes' gunicorn worker: gthread plus admission control (``slotsys/server/admission.py``). Set by
``slotsys/server/gunicorn_conf.py``; ``make run`` serves with it too.

gthread hands each readable connection to a thread pool; when every thread is busy the connection waits in
the pool's queue, unseen by the app. This worker notes when each connection joined that queue
(``enqueue_req``: a new connection, a kept-alive one whose next request arrived, or a pending one whose first
bytes did). On the thread that takes it up, once the request line and headers are parsed, it asks the
:class:`~slotsys.server.admission.AdmissionPolicy` (settings ``SLOTSYS_SHED_*``) whether to serve the request:

* shed: a 503 ``application/problem+json`` (type ``…/problems/overloaded``) with ``Retry-After`` is written
  here, without calling the app — no authentication, no body parsing, no database — so refusing costs a small
  fraction of serving (a refusal that went through Flask cost about as much CPU as the spins it displaced);
  ``slotsys_http_shed_total{endpoint}`` counts it (and ``slotsys_http_requests_total{endpoint,"503"}``,
  ``slotsys_http_queue_seconds``), and one warning a second per worker sums them up;
* ``Connection: close`` from the app (after a 413, whose unread body must not be parsed as the next request) is
  honoured: gunicorn drops hop-by-hop headers an app sets and would say ``keep-alive``, then close anyway;
  :class:`_HonourClose` marks gunicorn's response to close, so the answer says ``Connection: close`` and does it;
* served: the queue time is handed to the app (:func:`slotsys.server.admission.request_queued`) for its
  ``Server-Timing`` header, the ``queue_ms`` of its access log line and ``slotsys_http_queue_seconds``.

Behind the reverse proxy (``SLOTSYS_TRUST_PROXY_REQUEST_START=true``; docs/proxy.md) the wait is the larger of
that and the time since nginx's ``X-Request-Start`` stamp (:func:`slotsys.server.admission.proxy_wait_s`). Trust it only
when nothing but the proxy can reach gunicorn: the stamp can only lengthen a wait, so a forged one gets its own
request refused and nothing else.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import structlog
from gunicorn.http import wsgi
from gunicorn.workers.gthread import ThreadWorker

from slotsys.server import admission
from slotsys.server.streams.gate import STREAM_PATHS as _STREAM_PATHS

log = structlog.get_logger("slotsys.server.admission")


_DRAINABLE_BODY = 64 * 1024  # bytes a refusal still drains to keep the connection (the API's own body limit)
_DRAIN_S = 0.5  # bound on discarding a body that has already arrived (it takes microseconds)


class AdmissionWorker(ThreadWorker):
    def init_process(self):
        from slotsys.kernel.settings import get_settings

        s = get_settings()
        self.admission = admission.AdmissionPolicy(
            s.shed_queue_ms / 1000, target_s=s.shed_target_ms / 1000, interval_s=s.shed_interval_ms / 1000,
            retry_after_s=s.shed_retry_after_s)
        self.trust_proxy_start = s.trust_proxy_request_start
        self.proxy_start_max_s = s.proxy_request_start_max_ms / 1000
        self._shed_lock = threading.Lock()
        self._shed_since_log = 0
        self._shed_logged_at = time.monotonic()
        self._stream_handoff = s.stream_handoff
        self._stream_loop = None
        self._stream_lock = threading.Lock()
        super().init_process()

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = _HonourClose(self.wsgi)

    def enqueue_req(self, conn):
        conn.slotsys_queued_at = time.monotonic()
        super().enqueue_req(conn)

    def handle(self, conn):
        # the wait ends when a thread takes the connection up: the client's own sending time is not queueing
        at = getattr(conn, "slotsys_queued_at", None)
        admission.request_queued(None if at is None else time.monotonic() - at)
        try:
            return super().handle(conn)
        finally:
            admission.request_queued(None)

    def handle_request(self, req, conn):
        wait = admission.queue_wait_s()
        if self.trust_proxy_start:
            proxied = admission.proxy_wait_s(_header(req, "X-REQUEST-START"), time.time(), max_s=self.proxy_start_max_s)
            if proxied is not None:
                wait = admission.combined_wait_s(wait, proxied)
                admission.request_queued(wait)  # what the app reports (Server-Timing, queue_ms, metrics)
        if self.admission.shed(req.path, wait):
            return self._refuse(req, conn, wait)
        if self._stream_handoff and req.method == "GET" and req.path in _STREAM_PATHS:
            return self._hand_off(req, conn)
        return super().handle_request(req, conn)

    # ------------------------------------------------------------------ streams
    def _hand_off(self, req, conn) -> bool:
        """Give the stream's socket to the event loop (slotsys/streams/handoff.py) and free this thread.
        gunicorn then closes a placeholder: its graceful close would half-close (FIN) the shared connection."""
        if self._stream_loop is None:
            with self._stream_lock:
                if self._stream_loop is None:
                    from jackpot_controller.domain.signage import CHANNEL
                    from slotsys.server.streams.handoff import StreamLoop
                    from slotsys.server.streams.hub import Limits

                    services = self.wsgi.extensions["slotsys"]
                    self._stream_loop = StreamLoop(services, Limits.from_settings(services.settings), CHANNEL)
        sock = socket.socket(fileno=conn.sock.detach())
        placeholder = socket.socket()
        placeholder.close()
        conn.sock = placeholder
        self._stream_loop.adopt(sock, req.path, req.query, _header(req, "AUTHORIZATION"))
        return False

    # ------------------------------------------------------------------ the refusal
    def _refuse(self, req, conn, wait: float) -> bool:
        """Answer 503 problem+json + Retry-After on the connection; True keeps it alive (gunicorn's rule).
        Counted before the write (a client that has gone still counts); nothing after the write may raise,
        or gunicorn would write a 500 behind the 503."""
        from slotsys.server import metrics
        from slotsys.kernel.api.problems import PROBLEM_BASE

        endpoint = self._endpoint(req)
        try:
            metrics.record_shed(endpoint, wait)
        except Exception:  # bookkeeping never turns a refusal into an error
            log.exception("admission.count_failed")
        retry = self.admission.retry_after_s
        body = json.dumps({
            "type": PROBLEM_BASE + "overloaded",
            "title": "Service busy",
            "status": 503,
            "detail": f"the node is overloaded: the request waited {wait * 1000:.0f} ms for a worker; nothing was "
                      f"applied: retry after {retry} s with the same Idempotency-Key",
            "instance": req.path,
        }).encode()
        if not _drain_if_here(req, conn):
            # never wait on the client for a body that will be thrown away (nor invite it: 100 Continue);
            # close after the answer instead, so its bytes are never read as the next request
            req._expected_100_continue = False
            req.force_close()
        resp, _environ = wsgi.create(req, conn.sock, conn.client, conn.server, self.cfg)
        if not self.alive or not self.cfg.keepalive:
            resp.force_close()
        headers = [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                   ("Retry-After", str(retry)), ("Server-Timing", f"queue;dur={wait * 1000:.2f}")]
        rid = _header(req, "X-REQUEST-ID")
        if rid:
            headers.append(("X-Request-ID", rid[:100]))
        resp.start_response("503 Service Unavailable", headers)
        resp.write(body)
        resp.close()
        try:
            self._log_refusals(req, wait)
        except Exception:
            pass
        return not resp.should_close()

    def _log_refusals(self, req, wait: float) -> None:
        """One warning a second per worker, not one per refusal."""
        now = time.monotonic()
        with self._shed_lock:
            self._shed_since_log += 1
            if now - self._shed_logged_at < 1.0:
                return
            n, since = self._shed_since_log, now - self._shed_logged_at
            self._shed_since_log, self._shed_logged_at = 0, now
        structlog.contextvars.clear_contextvars()  # not the previous request's ids
        log.warning("admission.shed", requests=n, seconds=round(since, 2), last_wait_ms=round(wait * 1000, 1),
                    last_path=req.path, overloaded=self.admission.overloaded)

    def _endpoint(self, req) -> str:
        """The Flask endpoint the request would have reached (a bounded label set), else ``unknown``."""
        try:
            return self.wsgi.url_map.bind("localhost").match(req.path, req.method)[0]
        except Exception:
            return "unknown"


class _HonourClose:
    """WSGI wrapper: an app's ``Connection: close`` header forces gunicorn's response to close (its
    ``start_response`` is a bound method of that response; ``force_close`` is its own API). Other attributes are
    the app's (``url_map`` for :meth:`AdmissionWorker._endpoint`)."""

    def __init__(self, app) -> None:
        self.app = app

    def __getattr__(self, name: str):
        return getattr(self.app, name)

    def __call__(self, environ, start_response):
        def _start(status, headers, exc_info=None):
            if any(k.lower() == "connection" and v.strip().lower() == "close" for k, v in headers):
                owner = getattr(start_response, "__self__", None)
                if owner is not None and hasattr(owner, "force_close"):
                    owner.force_close()
            return start_response(status, headers, exc_info)

        return self.app(environ, _start)


def _header(req, name: str) -> str | None:
    for k, v in req.headers:
        if k == name:
            return v
    return None


def _drain_if_here(req, conn) -> bool:
    """Discard the refused request's body if all of it has already arrived; False (close the connection) if
    it has not, is chunked, is larger than the API accepts, or waits for ``100 Continue``.

    Why drain here: gthread drains an unread body after the response with 10 ms to spare (the data timeout
    of gunicorn_conf), which a thread waiting for the GIL on a busy node misses, and the connection then
    closes (wrk "read" errors at 3,000 machines: 81-146 a run, then 1). Why only what has arrived: a refusal
    must never hold a thread for a client that trickles its body (gunicorn's reader would wait on each recv).
    """
    if req._expected_100_continue or _header(req, "TRANSFER-ENCODING") is not None:
        return False
    raw = _header(req, "CONTENT-LENGTH")
    if raw is None:
        return True
    try:
        length = int(raw)
    except ValueError:
        return False
    if length == 0:
        return True
    if length > _DRAINABLE_BODY:
        return False
    have = len(conn.parser.unreader.buf.getvalue())  # read with the headers
    if have < length:
        try:  # what the socket holds now, without waiting or taking it
            have += len(conn.sock.recv(length - have, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except (OSError, ValueError):  # nothing there (EAGAIN), the client is gone, or a TLS socket
            pass
    if have < length:
        return False
    try:
        return bool(conn.parser.finish_body(deadline=time.monotonic() + _DRAIN_S, max_bytes=_DRAINABLE_BODY + 1))
    except Exception:  # a body gunicorn cannot read: close
        return False
