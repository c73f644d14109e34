"""The production gunicorn settings (slotsys/server/gunicorn_conf.py): what they change and why it holds."""

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

    importlib.import_module("slotsys.server.gunicorn_conf")
    assert gthread.DEFAULT_WORKER_DATA_TIMEOUT <= 0.05  # gunicorn's own 5 s held a thread per idle socket


def test_idle_machines_keep_their_connection_longer_than_a_pause_between_spins():
    conf = importlib.import_module("slotsys.server.gunicorn_conf")
    assert conf.keepalive >= 10


def test_each_worker_freezes_what_it_imported_out_of_the_cyclic_collector():
    conf = importlib.import_module("slotsys.server.gunicorn_conf")
    assert conf.worker_class == "slotsys.server.gunicorn_worker.AdmissionWorker"  # gthread + queue time
    before = gc.get_freeze_count()
    try:
        conf.post_worker_init(None)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_worker_connections_fit_the_open_files_limit():
    """Every machine's connection is a file descriptor: past the soft limit gthread's accept() raises EMFILE
    and the worker dies with every connection it held. The conf raises the soft limit towards the hard one
    and keeps worker_connections below it."""
    import resource

    conf = importlib.import_module("slotsys.server.gunicorn_conf")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert conf.worker_connections >= 100
    if soft != resource.RLIM_INFINITY:
        assert conf.worker_connections + conf._SPARE_FDS <= soft
    saved = (soft, hard)
    try:  # a low soft limit is raised (up to the hard one), never left below what the setting needs
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        got = conf._open_files_limit(5200)
        assert got == (5200 if hard == resource.RLIM_INFINITY else min(5200, hard))
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == got
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, saved)
