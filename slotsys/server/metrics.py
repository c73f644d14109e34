"""Prometheus metrics: every metric of the service, and the ``/metrics`` exposition.

* **One process** (the embedded default, tests): the default registry of ``prometheus_client``.
* **Several gunicorn workers** (production): ``PROMETHEUS_MULTIPROC_DIR`` is set before any worker imports
  ``prometheus_client`` (``slotsys/server/gunicorn_conf.py`` does it), so every process writes its samples to
  files in that directory; ``/metrics`` merges them (``MultiProcessCollector``), and gunicorn's ``child_exit``
  hook calls ``mark_process_dead`` for each worker that exits. Counters and histograms then aggregate over
  every worker (and survive a worker's restart); whichever worker answers the scrape reports the whole node.

Business counters are incremented **after the transaction commits** and **not** for an idempotent replay
(:class:`PrometheusMetrics`, called after a commit, never for a replay). Amounts are integer won.

* ``slotsys_spins_total``; ``slotsys_coin_in_won_total`` (won wagered); ``slotsys_coin_out_won_total`` (won
  paid by the games themselves; jackpots are counted apart);
* ``slotsys_spin_batch_size`` (histogram): spins per group commit (``slotsys.kernel.group_commit``; 1 = alone);
* ``slotsys_jackpot_awards_total{level}`` / ``slotsys_jackpot_awarded_won_total{level}``: hits the jackpot
  controller decided (counted when the fold that decides them commits, in the process that folds);
* ``slotsys_ticket_redemptions_total{channel}`` / ``slotsys_ticket_redeemed_won_total{channel}``: TITO
  tickets paid at the ``cage``, a ``kiosk`` or credited to a ``machine``;
* ``slotsys_http_requests_total{endpoint,status}`` and ``slotsys_http_request_seconds{endpoint}`` (histogram);
  ``endpoint`` is the Flask endpoint name (``unknown`` for unmatched paths), so the label set stays bounded;
* ``slotsys_http_queue_seconds`` (histogram): how long each request waited for a worker thread, and
  ``slotsys_http_shed_total{endpoint}``: requests refused 503 for waiting too long (``slotsys/server/admission.py``;
  also counted in ``slotsys_http_requests_total`` with status 503);
* ``slotsys_celery_queue_depth{queue}`` (tasks waiting in the broker) and ``slotsys_celery_unacked`` (tasks
  taken by a worker, not yet acknowledged), read from Redis at scrape time with a 250 ms timeout; when Redis
  does not answer they are absent and ``slotsys_celery_broker_up`` is 0: a scrape never fails for them.
"""

from __future__ import annotations

import os
import threading
from typing import Iterable

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

REQUESTS = Counter("slotsys_http_requests_total", "HTTP requests", ["endpoint", "status"])
LATENCY = Histogram("slotsys_http_request_seconds", "HTTP request latency (seconds)", ["endpoint"],
                    buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
QUEUE_WAIT = Histogram("slotsys_http_queue_seconds", "Time a request waited for a worker thread (seconds; gunicorn "
                       "with slotsys.server.gunicorn_worker.AdmissionWorker)",
                       buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
SHED = Counter("slotsys_http_shed_total", "Requests refused with 503 for waiting too long for a worker thread "
               "(admission control, slotsys/server/admission.py)", ["endpoint"])
SPINS = Counter("slotsys_spins_total", "Games played (paid spins; free games are part of their paid game)")
COIN_IN = Counter("slotsys_coin_in_won_total", "Won wagered by spins")
COIN_OUT = Counter("slotsys_coin_out_won_total", "Won won by spins (game wins; jackpots are counted apart)")
JACKPOT_AWARDS = Counter("slotsys_jackpot_awards_total", "Jackpot hits decided by the controller", ["level"])
JACKPOT_WON = Counter("slotsys_jackpot_awarded_won_total", "Won awarded by jackpot hits", ["level"])
REDEMPTIONS = Counter("slotsys_ticket_redemptions_total", "TITO tickets redeemed", ["channel"])
REDEEMED_WON = Counter("slotsys_ticket_redeemed_won_total", "Won paid for redeemed TITO tickets", ["channel"])
SPIN_BATCH = Histogram("slotsys_spin_batch_size", "Spins per group commit (concurrent spins of one process run as "
                       "one transaction; 1: a spin alone)", buckets=(1, 2, 4, 8, 16, 32, 64))
EVENTS_REFUSED = Counter("slotsys_machine_events_refused_total",
                         "Machine event reports refused for an unknown kind or SAS code", ["field"])

QUEUE_TIMEOUT_S = 0.25
CELERY_QUEUES = ("celery",)  # the queues our tasks use (Celery's default queue)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir") or None


# ------------------------------------------------------------------ business counters (after commit)
class PrometheusMetrics:
    """The business metrics port (:class:`slotsys.kernel.ports.Metrics`) on the counters above; the services call
    it after their commit, never for a replay. Amounts in won."""

    def game_played(self, bet_won: int, win_won: int) -> None:
        SPINS.inc()
        COIN_IN.inc(bet_won)
        COIN_OUT.inc(win_won)

    def spin_batch(self, size: int) -> None:
        SPIN_BATCH.observe(size)

    def ticket_redeemed(self, channel: str, amount_won: int) -> None:
        REDEMPTIONS.labels(channel).inc()
        REDEEMED_WON.labels(channel).inc(amount_won)

    def jackpot_awarded(self, level: str, amount_won: int) -> None:
        JACKPOT_AWARDS.labels(level).inc()
        JACKPOT_WON.labels(level).inc(amount_won)

    def event_refused(self, field: str) -> None:
        EVENTS_REFUSED.labels(field=field).inc()


def observe_request(endpoint: str, status: int, seconds: float, queue_wait_s: float | None = None) -> None:
    """One answered request: ``seconds`` in the app, ``queue_wait_s`` before it (None: not measured)."""
    REQUESTS.labels(endpoint, str(status)).inc()
    LATENCY.labels(endpoint).observe(seconds)
    if queue_wait_s is not None:
        QUEUE_WAIT.observe(queue_wait_s)


def record_shed(endpoint: str, queue_wait_s: float) -> None:
    """A request refused by admission control (never reached the app): counted as shed, as a 503 answer, and
    its queue wait observed."""
    SHED.labels(endpoint).inc()
    REQUESTS.labels(endpoint, "503").inc()
    QUEUE_WAIT.observe(queue_wait_s)


# ------------------------------------------------------------------ Celery queue depth (scrape time)
class QueueDepthCollector:
    """Reads the broker's queue lengths from Redis when scraped: one pipelined round trip, 250 ms timeout."""

    def __init__(self, redis_url: str, queues: Iterable[str] = CELERY_QUEUES) -> None:
        self.redis_url = redis_url
        self.queues = tuple(queues)
        self._client = None
        self._lock = threading.Lock()

    def _redis(self):
        with self._lock:
            if self._client is None:
                import redis

                self._client = redis.Redis.from_url(self.redis_url, socket_timeout=QUEUE_TIMEOUT_S,
                                                    socket_connect_timeout=QUEUE_TIMEOUT_S)
            return self._client

    def collect(self):
        up = GaugeMetricFamily("slotsys_celery_broker_up", "1 if the broker answered this scrape's queue read")
        try:
            pipe = self._redis().pipeline(transaction=False)
            for q in self.queues:
                pipe.llen(q)
            pipe.hlen("unacked")
            *depths, unacked = pipe.execute()
        except Exception:  # the probe must not fail the scrape: report the broker down
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        depth = GaugeMetricFamily("slotsys_celery_queue_depth", "Tasks waiting in the broker queue", labels=["queue"])
        for q, n in zip(self.queues, depths):
            depth.add_metric([q], int(n))
        yield depth
        yield GaugeMetricFamily("slotsys_celery_unacked", "Tasks taken by a worker and not yet acknowledged",
                                value=int(unacked))


_queue_collectors: dict[str, QueueDepthCollector] = {}


def exposition(redis_url: str | None) -> tuple[bytes, str]:
    """The ``/metrics`` body and its content type: every worker's samples (multiprocess mode) or this
    process's registry, plus the Celery queue depth when a broker is configured."""
    path = multiprocess_dir()
    if path:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=path)
    else:
        registry = REGISTRY
    body = generate_latest(registry)
    if redis_url:
        collector = _queue_collectors.get(redis_url)
        if collector is None:
            collector = _queue_collectors.setdefault(redis_url, QueueDepthCollector(redis_url))
        queue_registry = CollectorRegistry(auto_describe=False)
        queue_registry.register(collector)
        body += generate_latest(queue_registry)
    return body, CONTENT_TYPE_LATEST
