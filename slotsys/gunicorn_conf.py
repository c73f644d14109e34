"""gunicorn settings for slotsys web nodes: ``gunicorn -c python:slotsys.gunicorn_conf slotsys.wsgi:app``.

Prometheus multiprocess mode (``slotsys/metrics.py``): ``PROMETHEUS_MULTIPROC_DIR`` must be set before any
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

worker_class = "gthread"


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
