"""A real gunicorn for the e2e tests, run as production runs it (``-c python:slotsys.server.gunicorn_conf``) on a SQLite
floor with tasks in-process: started, waited for until ``/readyz`` answers, stopped on exit."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import httpx

from tests.integration._procs import free_port

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def gunicorn(db_url: str, tmp: Path, *, workers: int, threads: int, **env_extra: str) -> Iterator[dict]:
    """Serve ``db_url`` (already migrated and seeded) with ``workers`` × ``threads``; ``env_extra`` adds
    settings (``SLOTSYS_…``). Yields ``{"base", "log", "prom", "proc"}``: the URL, the log file (stdout and
    stderr, JSON lines at INFO), the Prometheus multiprocess directory and the master process."""
    port = free_port()
    prom = tmp / "prometheus"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PROMETHEUS_MULTIPROC_DIR")}
    env.update(DATABASE_URL=db_url, SLOTSYS_CELERY_EAGER="true", SLOTSYS_LOG_JSON="true", SLOTSYS_LOG_LEVEL="INFO",
               PROMETHEUS_MULTIPROC_DIR=str(prom), **env_extra)
    log_path = tmp / "gunicorn.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "-c", "python:slotsys.server.gunicorn_conf", "--workers",
             str(workers), "--threads", str(threads), "--bind", f"127.0.0.1:{port}", "slotsys.app.wsgi:app"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()[-3000:]
            time.sleep(0.3)
        yield {"base": base, "log": log_path, "prom": prom, "proc": proc}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
