"""Shared fixtures.

* unit tests need nothing running;
* ``app``/``client`` run the real app on a fresh, migrated SQLite file (Celery eager): a copy of one file the session
  migrated and seeded once (the same schema and demo floor every test would build; ~1.2 s saved per test);
* ``pg_app``/``pg_client`` (integration) run it on a fresh PostgreSQL database created on
  the server named by DATABASE_URL, with Redis from REDIS_URL; skipped when those are unset.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import uuid

import pytest

from slotsys.kernel.settings import Settings


def _own_redis_database_per_xdist_worker() -> None:
    """Under pytest-xdist (``-n 2``, as CI runs) each worker process gets its own Redis logical database: the
    broker queue a test purges, the sequencer's leader lease and the signage channels are then never shared
    between two tests running at once. Worker ``gwN`` takes database ``(D - N) mod 16`` of REDIS_URL's ``D``."""
    worker, url = os.environ.get("PYTEST_XDIST_WORKER", ""), os.environ.get("REDIS_URL", "")
    if not worker.startswith("gw") or not url:
        return
    head, _, db = url.rpartition("/")
    if head.endswith(":") or not db.isdigit():  # no database in the URL: database 0
        head, db = url.rstrip("/"), "0"
    os.environ["REDIS_URL"] = f"{head}/{(int(db) - int(worker[2:])) % 16}"


_own_redis_database_per_xdist_worker()


def _make_app(settings: Settings):
    from slotsys.app.factory import create_app
    from slotsys.app.migrate import upgrade
    from slotsys.app.seed import seed_demo

    upgrade(settings.database_url)
    app = create_app(settings)
    svc = app.extensions["slotsys"]
    creds = seed_demo(svc)
    app.config["TESTING"] = True
    app.config["DEMO_CREDENTIALS"] = creds
    return app


def _sqlite_settings(folder) -> Settings:
    return Settings(database_url=f"sqlite:///{folder / 'floor.db'}", redis_url=None, celery_eager=True,
                    credentials_file=folder / "creds.json")


@pytest.fixture(scope="session")
def seeded_floor(tmp_path_factory):
    """The migrated SQLite file with the demo floor, built once per session: (folder, credentials)."""
    folder = tmp_path_factory.mktemp("seeded-floor")
    a = _make_app(_sqlite_settings(folder))
    creds = a.config["DEMO_CREDENTIALS"]
    a.extensions["slotsys"].jackpots.driver.stop()
    a.extensions["slotsys"].uow.engine.dispose()  # the last connection closed: the file is whole on its own
    return folder, creds


@pytest.fixture
def app(tmp_path, seeded_floor):
    folder, creds = seeded_floor
    for name in os.listdir(folder):  # floor.db (and a WAL, had one been left), creds.json
        shutil.copyfile(folder / name, tmp_path / name)
    from slotsys.app.factory import create_app

    a = create_app(_sqlite_settings(tmp_path))
    a.config["TESTING"] = True
    a.config["DEMO_CREDENTIALS"] = copy.deepcopy(creds)
    mismatches = None
    if os.environ.get("SLOTSYS_CHECK_CONTRACT") == "1":  # every JSON success checked against /openapi.json
        from tests.helpers import check_contract

        mismatches = check_contract(a)
    yield a
    a.extensions["slotsys"].jackpots.driver.stop()  # no fold may outlive its database (nor log into later tests)
    a.extensions["slotsys"].uow.engine.dispose()
    assert not mismatches, "answers outside the documented contract:\n" + "\n".join(mismatches)


class Api:
    """A thin test client that speaks the API like a machine or a staff member."""

    def __init__(self, app) -> None:
        self.app = app
        self.client = app.test_client()
        self.creds = app.config["DEMO_CREDENTIALS"]
        self._tokens: dict[str, str] = {}

    def key(self, asset: str) -> str:
        return next(m["key"] for m in self.creds["machines"] if m["asset"] == asset)

    def staff_token(self, role: str) -> str:
        if role not in self._tokens:
            s = next(s for s in self.creds["staff"] if s["role"] == role)
            r = self.client.post("/api/v1/auth/login", json={"username": s["username"], "password": s["password"]})
            assert r.status_code == 200, r.json
            self._tokens[role] = r.json["token"]
        return self._tokens[role]

    def as_machine(self, asset: str, method: str, path: str, body=None, key: str | None = "auto", token: str | None = None):
        headers = {"Authorization": f"Bearer {token or self.key(asset)}"}
        if key == "auto":
            key = uuid.uuid4().hex
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.client.open(path, method=method, json=body, headers=headers)

    def as_staff(self, role: str, method: str, path: str, body=None, key: str | None = "auto"):
        headers = {"Authorization": f"Bearer {self.staff_token(role)}"}
        if key == "auto":
            key = uuid.uuid4().hex
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.client.open(path, method=method, json=body, headers=headers)

    def audit(self) -> dict:
        r = self.as_staff("auditor", "GET", "/api/v1/audit/ledger", key=None)
        assert r.status_code == 200
        return r.json


@pytest.fixture
def api(app) -> Api:
    return Api(app)


# ------------------------------------------------------------------ integration
def _pg_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith("postgresql") else None


@pytest.fixture(scope="session")
def pg_server_url():
    url = _pg_url()
    if not url or not os.environ.get("REDIS_URL"):
        pytest.skip("integration: set DATABASE_URL (PostgreSQL) and REDIS_URL to run against the real services")
    return url


@pytest.fixture
def pg_app(pg_server_url, tmp_path):
    """The app on a brand-new PostgreSQL database (dropped afterwards)."""
    import sqlalchemy as sa

    from slotsys.kernel.adapters.db import make_engine

    name = f"slotsys_t_{uuid.uuid4().hex[:10]}"
    admin = make_engine(pg_server_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    base = pg_server_url.rsplit("/", 1)[0]
    settings = Settings(database_url=f"{base}/{name}", redis_url=os.environ["REDIS_URL"], celery_eager=False,
                        credentials_file=tmp_path / "creds.json")
    a = _make_app(settings)
    yield a
    a.extensions["slotsys"].jackpots.driver.stop()  # no fold may outlive its database (nor log into later tests)
    a.extensions["slotsys"].uow.engine.dispose()
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def pg_api(pg_app) -> Api:
    return Api(pg_app)


@pytest.fixture
def celery_worker_running(pg_app):
    """A real Celery worker (threads pool) consuming from the Redis broker."""
    from celery.contrib.testing.worker import start_worker

    celery = pg_app.extensions["slotsys"].celery
    celery.control.purge()  # tasks left by earlier tests belong to databases that are gone
    with start_worker(celery, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=20):
        yield celery


def dump(resp) -> str:
    return json.dumps(resp.json, ensure_ascii=False, indent=1)
