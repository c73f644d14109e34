"""Admission control (load shedding) for the web nodes: a request that waited too long for a worker thread is
answered at once with 503 + ``Retry-After`` instead of being served late.

Why: an overloaded gunicorn worker queues requests without bound. With 3,000 machines offering 1,000 spins/s
to a node that can settle ~250/s, every spin waited seconds (bench/floor_load.py: p50 4.5 s), each machine
timed out and retried, and the retries queued too. Shedding by *queue wait* (the time from the request
becoming readable to a worker thread taking it up; the idea of CoDel's sojourn time) keeps the latency of the
requests that are served bounded by the budget plus their own service time, and turns the excess into fast,
cheap refusals that change nothing: the machine retries after ``Retry-After`` with the same Idempotency-Key.

Pieces:

* :class:`slotsys.server.gunicorn_worker.AdmissionWorker` (the web nodes' worker class, set in
  ``slotsys/server/gunicorn_conf.py``) measures how long each connection waited for a thread and hands it to the
  serving thread through :func:`request_queued`;
* once the request line and headers are parsed, the worker asks :meth:`AdmissionPolicy.shed` (CoDel's rule
  and a hard budget: ``SLOTSYS_SHED_TARGET_MS``, ``SLOTSYS_SHED_INTERVAL_MS``, ``SLOTSYS_SHED_QUEUE_MS``) and
  answers a shed request itself with a problem+json 503 (type ``…/overloaded``), without calling the app: no
  authentication, body parsing or database call;
* a served request's wait reaches the app (:func:`queue_wait_s`) for its ``Server-Timing`` header and log line.

Behind the reverse proxy (docker/nginx.conf, docs/proxy.md) the wait starts earlier: nginx stamps each request
it hands on with ``X-Request-Start: t=<seconds since the epoch>``, and with ``SLOTSYS_TRUST_PROXY_REQUEST_START``
the worker measures from that stamp too (:func:`proxy_wait_s`, :func:`combined_wait_s`): the time in gunicorn's
accept backlog, in the socket before the worker's poller saw it (a worker starved of CPU, a GC pause) and in the
thread-pool queue, not only the last of these.

Requests not served by that worker (the Flask test client, another server) have no queue time and are never
shed. Pure: no Flask, no gunicorn import.
"""

from __future__ import annotations

import threading
import time

_local = threading.local()

#: paths never shed: the probes and the scrape must see an overloaded node as it is
EXEMPT_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def request_queued(wait_s: float | None) -> None:
    """Called by the worker on the serving thread as it takes a connection up: ``wait_s`` is how long (seconds)
    the connection waited in the worker's queue for a thread; ``None`` once the request is done."""
    _local.wait_s = None if wait_s is None else max(0.0, wait_s)


def queue_wait_s() -> float | None:
    """Seconds the current thread's request waited in the worker's queue before a thread took it up; ``None``
    when the request did not come through :class:`~slotsys.server.gunicorn_worker.AdmissionWorker`."""
    return getattr(_local, "wait_s", None)


def proxy_wait_s(header: str | None, now: float, *, max_s: float) -> float | None:
    """Seconds since the proxy handed the request on, from its ``X-Request-Start`` header; ``now`` is this
    host's wall clock (``time.time()``, seconds since the epoch).

    Format: ``t=<number>`` (or the bare number), the convention of nginx (``t=${msec}``: seconds with
    millisecond resolution), Apache (``t=%D``/``%t``: microseconds) and the APM tools that read it (New
    Relic, Scout); the unit is told by magnitude as they do: above 1e15 microseconds, above 1e12
    milliseconds, else seconds.

    The proxy's clock is not ours, so the result is clamped: a stamp in the future (its clock ahead, or
    nginx's cached millisecond clock) counts as no wait (0.0); a wait above ``max_s`` is taken for a clock
    out of step rather than a queue and ignored (``None``), as is a missing or unreadable header. The caller
    still takes the larger of this and its own measurement (:func:`combined_wait_s`), so a stamp that is too
    late can never shorten a measured wait, and a forged one can only get its own request refused.
    """
    if not header:
        return None
    raw = header.strip()
    if raw[:2] in ("t=", "T="):
        raw = raw[2:]
    try:
        stamp = float(raw)
    except ValueError:
        return None
    if stamp != stamp or stamp <= 0 or stamp == float("inf"):  # NaN, zero, negative, inf
        return None
    if stamp > 1e15:
        stamp /= 1e6
    elif stamp > 1e12:
        stamp /= 1e3
    wait = now - stamp
    if wait > max_s:
        return None
    return max(0.0, wait)


def combined_wait_s(local_s: float | None, proxy_s: float | None) -> float | None:
    """The request's queue wait from both measurements (seconds; ``None`` when neither exists): the larger,
    since both end now and the proxy's starts earlier whenever the two clocks agree."""
    if proxy_s is None:
        return local_s
    return proxy_s if local_s is None else max(local_s, proxy_s)


class AdmissionPolicy:
    """When to refuse a request for having queued too long: CoDel's rule as servers use it (Nichols & Jacobson,
    "Controlling Queue Delay", ACM Queue 2012; the same controller Facebook's Wangle/Thrift servers shed with),
    plus a hard budget.

    * Every request's queue wait is observed. At the end of each ``interval_s``, the node is *overloaded* when
      even the shortest wait seen in that interval exceeded ``target_s``: a standing queue, not a burst.
    * While overloaded, a request that waited more than ``2 × target_s`` is shed. The standing queue drains
      within about one interval and the requests served meanwhile wait at most about twice the target.
    * Whatever the state, a request that waited more than ``budget_s`` is shed (a burst longer than the
      budget serves nobody in time).

    Units are seconds. ``budget_s`` 0 turns admission control off. ``retry_after_s`` is the whole seconds a
    refused client is told to wait (HTTP ``Retry-After``). The probes and the scrape (``exempt_paths``) are
    never shed and are not observed. Thread-safe: one policy serves every thread of a worker process.
    """

    def __init__(self, budget_s: float, *, target_s: float = 0.05, interval_s: float = 0.1, retry_after_s: int = 1,
                 exempt_paths: frozenset[str] = EXEMPT_PATHS) -> None:
        self.budget_s = budget_s
        self.target_s = target_s
        self.interval_s = interval_s
        self.retry_after_s = retry_after_s
        self.exempt_paths = exempt_paths
        self._lock = threading.Lock()
        self._interval_end: float | None = None
        self._min_wait = float("inf")
        self.overloaded = False

    def shed(self, path: str, wait_s: float | None, now: float | None = None) -> bool:
        """Observe this request's queue wait (``None``: not measured, never shed) and say whether to refuse it."""
        if self.budget_s <= 0 or wait_s is None or path in self.exempt_paths:
            return False
        now = time.monotonic() if now is None else now
        with self._lock:
            if self._interval_end is None:
                self._interval_end = now + self.interval_s
            elif now >= self._interval_end:  # judge the interval that ended, start the next
                # (an interval that passed without a single request had no standing queue)
                self.overloaded = self._min_wait > self.target_s and now < self._interval_end + self.interval_s
                self._min_wait = float("inf")
                self._interval_end = now + self.interval_s
            self._min_wait = min(self._min_wait, wait_s)
            overloaded = self.overloaded
        return wait_s > self.budget_s or (overloaded and wait_s > 2 * self.target_s)
