"""The production gunicorn settings (slotsys/gunicorn_conf.py): what they change and why it holds."""

from __future__ import annotations

import gc
import importlib
import os

import pytest


@pytest.fixture(autouse=True)
def _keep_environment():
    """Importing the conf sets PROMETHEUS_MULTIPROC_DIR (as the gunicorn master needs); later tests in this
    process must not inherit it, or their /metrics would look for that directory."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def test_idle_new_connections_do_not_hold_a_worker_thread():
    from gunicorn.workers import gthread

    importlib.import_module("slotsys.gunicorn_conf")
    assert gthread.DEFAULT_WORKER_DATA_TIMEOUT <= 0.05  # gunicorn's own 5 s held a thread per idle socket


def test_idle_machines_keep_their_connection_longer_than_a_pause_between_spins():
    conf = importlib.import_module("slotsys.gunicorn_conf")
    assert conf.keepalive >= 10


def test_each_worker_freezes_what_it_imported_out_of_the_cyclic_collector():
    conf = importlib.import_module("slotsys.gunicorn_conf")
    assert conf.worker_class == "slotsys.gunicorn_worker.AdmissionWorker"  # gthread + queue time
    before = gc.get_freeze_count()
    try:
        conf.post_worker_init(None)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
