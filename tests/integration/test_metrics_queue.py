"""/metrics reads the Celery queue depth from the real Redis at scrape time (REDIS_URL's database)."""

from __future__ import annotations

import json
import uuid

import redis
from prometheus_client.parser import text_string_to_metric_families

from slotsys.app.factory import create_app
from slotsys.kernel.settings import Settings


def _samples(text: str) -> dict:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_queue_depth_is_read_from_redis_at_scrape_time(pg_server_url, tmp_path):
    import os

    url = os.environ["REDIS_URL"]
    r = redis.Redis.from_url(url)
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'f.db'}", redis_url=url, celery_eager=False,
                              credentials_file=tmp_path / "c.json"))
    client = app.test_client()
    base = r.llen("celery")
    marker = uuid.uuid4().hex
    r.rpush("celery", *[json.dumps({"test": marker, "n": i}) for i in range(7)])
    try:
        m = _samples(client.get("/metrics").get_data(as_text=True))
        assert m[("slotsys_celery_broker_up", ())] == 1
        assert m[("slotsys_celery_queue_depth", (("queue", "celery"),))] == base + 7
        assert ("slotsys_celery_unacked", ()) in m
    finally:
        for i in range(7):
            r.lrem("celery", 0, json.dumps({"test": marker, "n": i}))
    m = _samples(client.get("/metrics").get_data(as_text=True))
    assert m[("slotsys_celery_queue_depth", (("queue", "celery"),))] == r.llen("celery")
    app.extensions["slotsys"].uow.engine.dispose()
