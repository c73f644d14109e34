"""Real processes for the fault tests (tests/integration/test_faults.py): a fresh
PostgreSQL database with the demo floor, gunicorn (the production conf and its AdmissionWorker), a Celery worker (with embedded beat), and a
private redis-server that may be stopped (never the shared one). Every process runs in its own
session (process group) and is killed with its group; logs go to files for the failure message."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, timeout: float = 60.0, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if pred():
                return True
        except Exception:
            pass
        time.sleep(step)
    return bool(pred())


def tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------- database
class FloorDb:
    """A brand-new database on the shared server, migrated and seeded in this process (the same
    code ``slotsys migrate`` / ``slotsys seed`` run); dropped by :meth:`drop`. ``app`` is an in-process
    app on it (its own sequencer stopped) for direct reads, set-up and the audit."""

    def __init__(self, server_url: str, tmp: Path, redis_url: str) -> None:
        import sqlalchemy as sa

        from slotsys.kernel.adapters.db import make_engine
        from slotsys.kernel.settings import Settings
        from tests.conftest import _make_app

        self.server_url = server_url
        self.name = f"slotsys_fault_{uuid.uuid4().hex[:10]}"
        self.admin = make_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")
        with self.admin.connect() as c:
            c.execute(sa.text(f'CREATE DATABASE "{self.name}"'))
        self.url = f"{server_url.rsplit('/', 1)[0]}/{self.name}"
        self.creds_file = tmp / "creds.json"
        settings = Settings(database_url=self.url, redis_url=redis_url, celery_eager=False,
                            credentials_file=self.creds_file, db_pool_pre_ping=True)
        self.app = _make_app(settings)
        self.svc = self.app.extensions["slotsys"]
        self.svc.jackpots.stop()  # this process folds only when a test says so
        self.creds = self.app.config["DEMO_CREDENTIALS"]

    def terminate_backends(self) -> int:
        """Drop every connection to this database (the server stays up); returns how many."""
        import sqlalchemy as sa

        with self.admin.connect() as c:
            return len(c.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :d AND pid <> pg_backend_pid()"),
                {"d": self.name}).all())

    def drop(self) -> None:
        import sqlalchemy as sa

        try:
            self.svc.jackpots.stop()
            self.svc.uow.engine.dispose()
        finally:
            with self.admin.connect() as c:
                c.execute(sa.text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))
            self.admin.dispose()


def service_env(db_url: str, redis_url: str, tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSYS_")}
    env.update(DATABASE_URL=db_url, REDIS_URL=redis_url, SLOTSYS_CREDENTIALS_FILE=str(tmp / "creds.json"),
               SLOTSYS_LOG_LEVEL="WARNING", SLOTSYS_LOG_JSON="true", PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


class Proc:
    """A subprocess in its own process group, logging to ``log``."""

    def __init__(self, argv: list, env: dict, log: Path) -> None:
        self.argv, self.env, self.log = [str(a) for a in argv], env, log
        self.p: subprocess.Popen | None = None

    def start(self) -> "Proc":
        fh = open(self.log, "ab")
        self.p = subprocess.Popen(self.argv, env=self.env, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        fh.close()
        return self

    @property
    def pid(self) -> int:
        assert self.p is not None
        return self.p.pid

    def alive(self) -> bool:
        return self.p is not None and self.p.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole group (the process and its children) and reap it."""
        if self.p is None:
            return
        try:
            os.killpg(self.p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL what is left of the group."""
        if self.p is None:
            return
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGTERM)
                self.p.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.p.pid, signal.SIGKILL)  # stragglers (workers) of the group
        except ProcessLookupError:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


# ---------------------------------------------------------------------------- gunicorn
def children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return sorted(out)


class Gunicorn(Proc):
    def __init__(self, env: dict, tmp: Path, workers: int = 2, threads: int = 4) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        env = dict(env, PROMETHEUS_MULTIPROC_DIR=str(tmp / f"prometheus-{self.port}"))
        super().__init__([BIN / "gunicorn", "-c", "python:slotsys.server.gunicorn_conf", "-w", workers, "--threads", threads,
                          "-b", f"127.0.0.1:{self.port}", "--timeout", "60", "--graceful-timeout", "5",
                          "--log-level", "warning", "slotsys.app.wsgi:app"], env, tmp / f"gunicorn-{self.port}.log")

    def start(self, timeout: float = 120.0) -> "Gunicorn":
        super().start()
        ok = wait_until(lambda: self.alive() and len(self.worker_pids()) == self.workers
                        and httpx.get(self.base + "/healthz", timeout=5).status_code == 200, timeout=timeout, step=0.5)
        assert ok, f"gunicorn did not come up:\n{tail(self.log)}"
        return self

    def worker_pids(self) -> list[int]:
        return children(self.pid) if self.alive() else []

    def connections_by_worker(self) -> dict[int, int]:
        """Established client connections each worker holds right now (from ``ss``)."""
        out = subprocess.run(["ss", "-tnpH", "state", "established", f"( sport = :{self.port} )"],
                             capture_output=True, text=True, timeout=10).stdout
        counts: dict[int, int] = {}
        for pid in self.worker_pids():
            counts[pid] = out.count(f"pid={pid},")
        return counts


# ---------------------------------------------------------------------------- celery
class CeleryWorker(Proc):
    """``celery -A slotsys.app.worker worker`` (threads pool), optionally with the embedded beat (-B)."""

    def __init__(self, env: dict, tmp: Path, beat: bool = True, concurrency: int = 2, name: str = "w") -> None:
        argv = [BIN / "celery", "-A", "slotsys.app.worker", "worker", "--pool", "threads", "--concurrency", concurrency,
                "--loglevel", "INFO", "--without-gossip", "--without-mingle", "-n", f"faults-{name}-{uuid.uuid4().hex[:6]}@%h"]
        if beat:
            argv += ["-B", "--schedule", tmp / f"beat-{uuid.uuid4().hex[:6]}"]
        super().__init__(argv, env, tmp / f"celery-{name}.log")

    def start(self, timeout: float = 120.0) -> "CeleryWorker":
        super().start()
        ok = wait_until(lambda: not self.alive() or " ready." in self.log.read_text(errors="replace"),
                        timeout=timeout, step=0.5)
        assert ok and self.alive(), f"celery worker did not come up:\n{tail(self.log)}"
        return self


# ---------------------------------------------------------------------------- redis
class PrivateRedis(Proc):
    """A redis-server of this test's own on a free port (no persistence): the one we may stop."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        super().__init__(["redis-server", "--port", self.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                          "--daemonize", "no", "--dir", tmp], os.environ.copy(), tmp / f"redis-{self.port}.log")

    def start(self, timeout: float = 30.0) -> "PrivateRedis":
        import redis

        super().start()
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        assert wait_until(lambda: client.ping(), timeout=timeout), f"redis did not start:\n{tail(self.log)}"
        client.close()
        return self
