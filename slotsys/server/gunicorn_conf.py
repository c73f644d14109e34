"""gunicorn settings for slotsys web nodes: ``gunicorn -c python:slotsys.server.gunicorn_conf slotsys.app.wsgi:app``.

Prometheus multiprocess mode (``slotsys/server/metrics.py``): ``PROMETHEUS_MULTIPROC_DIR`` must be set before any
worker imports ``prometheus_client``. This file is read by the gunicorn master before it forks (and before a
``--preload`` import), so it sets the variable here when the environment does not: a fresh directory per
gunicorn master under the temporary directory. ``on_starting`` empties it (files left by an earlier run would
be counted again), ``child_exit`` marks each exited worker dead (its live gauges go; its counters stay in the
sums), ``on_exit`` removes the directory this file created. Everything else (workers, threads, bind) comes
from the command line or ``GUNICORN_CMD_ARGS`` as usual.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile

_CREATED = "PROMETHEUS_MULTIPROC_DIR" not in os.environ
if _CREATED:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.path.join(tempfile.gettempdir(), f"slotsys-prometheus-{os.getpid()}")

# gthread plus the queue time that admission control (slotsys/server/admission.py) sheds by
worker_class = "slotsys.server.gunicorn_worker.AdmissionWorker"

# gthread (gunicorn 27) holds a worker thread for up to DEFAULT_WORKER_DATA_TIMEOUT (5 s, not a setting)
# on each new connection until its first request arrives. Slot machines connect and then idle until
# their first spin, so at power-up every thread would sit on idle sockets (docs/decisions/0006). A short
# wait hands an idle new connection to the worker's poller, as gunicorn already does for kept-alive
# connections; it also bounds the drain of an unread request body, after which the connection is closed.
from gunicorn.workers import gthread as _gthread  # noqa: E402

if not hasattr(_gthread, "DEFAULT_WORKER_DATA_TIMEOUT"):  # pyproject pins gunicorn 27.x; fail loudly, not silently
    raise RuntimeError("gunicorn's gthread has no DEFAULT_WORKER_DATA_TIMEOUT: review slotsys/server/gunicorn_conf.py")
_gthread.DEFAULT_WORKER_DATA_TIMEOUT = 0.01

# How long an idle connection (kept alive, or new and still silent) stays open: gunicorn's default is
# 2 s, shorter than a player's pause between spins, so machines would reconnect all the time. A closed
# connection costs a machine one reconnect (its retry carries the same Idempotency-Key).
keepalive = 10

# Connections one worker holds open (gunicorn's default is 1,000). Every machine keeps one kept-alive
# connection to the floor system; past this limit a worker stops accepting, and the machines beyond it wait
# in the kernel's accept backlog until some other connection closes (docs/decisions/0006). An idle
# connection costs a socket and a poller entry.
# Each connection is a file descriptor: the soft open-files limit is raised towards the hard one (systemd's
# default soft limit, 1,024, would otherwise crash a worker with EMFILE at about the 1,000th machine), and
# the setting is capped below whatever limit there is, leaving room for the database pool, Redis and logs.
import resource  # noqa: E402

_SPARE_FDS = 200


def _open_files_limit(want: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return want if soft == resource.RLIM_INFINITY else soft


worker_connections = max(100, min(5000, _open_files_limit(5000 + _SPARE_FDS) - _SPARE_FDS))


def on_starting(server) -> None:
    path = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    os.makedirs(path, exist_ok=True)
    for f in glob.glob(os.path.join(path, "*.db")):
        os.remove(f)


def child_exit(server, worker) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server) -> None:
    if _CREATED:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


def post_worker_init(worker) -> None:
    """Once the worker has imported the app: collect, then freeze every object alive now (modules, the
    app, game definitions, compiled SQL) out of the cyclic collector's reach. Before, each full
    (generation 2) collection walked all of them while holding the GIL: 114–189 ms pauses of every
    request in the worker, several a minute under load; after, under 15 ms (measured with a gc
    callback during bench/floor_load.py --driver wrk)."""
    import gc

    gc.collect()
    gc.freeze()
